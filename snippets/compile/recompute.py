"""The partitioner's choice: for `sin(sin(x))` the forward saves only `x`, and the backward computes `sin` again."""

from hood.capture.common import words
from snippets.compile.aot_graphs import aot_graphs, readable, saved_for_backward

# --8<-- [start:body]
import torch


def sin_of_sin(x):
    """Two cheap pointwise operators: the backward needs `cos(sin(x))` and `cos(x)`."""
    return torch.sin(torch.sin(x))


def recomputed_in_backward(seed=42):
    """Partition `sin_of_sin` with Inductor's partitioner; print what the forward saves, the backward graph and
    the forward operators the backward computes again."""
    torch.manual_seed(seed)
    graphs = aot_graphs(sin_of_sin, torch.randn(4, 8, requires_grad=True))
    forward = {n.target for n in graphs["forward"].graph.nodes if n.op == "call_function"}
    again = [n.name for n in graphs["backward"].graph.nodes if n.op == "call_function" and n.target in forward]
    print(words(en="saved for backward:", es="se guarda para el backward:"), saved_for_backward(graphs))
    print(readable(graphs["backward"]))
    print(words(en="forward operators the backward computes again:",
                es="operadores del forward que el backward vuelve a calcular:"), again)
    return graphs
# --8<-- [end:body]
