"""Lab 03, stretch: `torch.export` of the head, one whole graph with its parameters as inputs."""

from snippets.compile.heads import TinyHead

# --8<-- [start:body]
import torch


def export_head(seed=42):
    """Export the TinyHead for a batch of 2; print the exported graph and its signature."""
    torch.manual_seed(seed)
    exported = torch.export.export(TinyHead(), (torch.randn(2, 64),))
    print(exported.graph_module.code.strip())
    print(exported.graph_signature)
    return exported
# --8<-- [end:body]
