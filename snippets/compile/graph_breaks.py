"""Graph breaks: what Dynamo cannot put in a graph, and what `torch._dynamo.explain` says about it."""

from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def chatty_head(x, W, b):
    logits = F.linear(x, W, b)
    print("logits:", tuple(logits.shape))  # Python I/O: cannot be part of a graph
    top = logits.max().item()  # a Python float read out of a tensor
    return torch.softmax(logits - top, dim=-1)


def graph_breaks():
    """Explain `chatty_head`: how many graphs, how many breaks, why, and what each graph holds."""
    x, W, b = running_example()
    explanation = torch._dynamo.explain(chatty_head)(x, W, b)
    print("graphs:", explanation.graph_count)
    print("graph breaks:", explanation.graph_break_count)
    for i, reason in enumerate(explanation.break_reasons, 1):
        print(f"break {i}, in {reason.user_stack[-1].name}: {reason.reason.splitlines()[0]}")
    for i, gm in enumerate(explanation.graphs, 1):
        calls = [n.target if isinstance(n.target, str) else n.target.__name__
                 for n in gm.graph.nodes if n.op.startswith("call")]
        print(f"graph {i} calls:", calls)
    return explanation
# --8<-- [end:body]
