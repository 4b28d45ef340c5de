"""Graph breaks: what Dynamo cannot put in a graph, and what `torch._dynamo.explain` says about it."""

from hood.capture.common import words
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
    print(words(en="graphs:", es="grafos:"), explanation.graph_count)
    print(words(en="graph breaks:", es="cortes de grafo:"), explanation.graph_break_count)
    for i, reason in enumerate(explanation.break_reasons, 1):
        where = reason.user_stack[-1].name
        print(words(en=f"break {i}, in {where}:", es=f"corte {i}, en {where}:"), reason.reason.splitlines()[0])
    for i, gm in enumerate(explanation.graphs, 1):
        calls = [n.target if isinstance(n.target, str) else n.target.__name__
                 for n in gm.graph.nodes if n.op.startswith("call")]
        print(words(en=f"graph {i} calls:", es=f"llamadas del grafo {i}:"), calls)
    return explanation
# --8<-- [end:body]
