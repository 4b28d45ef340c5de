"""Theory 01: the walk of F.linear(x, W, b) drawn as a diagram, one box per operator call."""

from hood.capture.common import words
from hood.capture.diagram import Node, layered_svg
from hood.capture.dispatch import recording_dispatch
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def walk_diagram():
    """The same walk as a diagram: one box per operator call, listing the keys it went through."""
    x, W, b = running_example()
    with recording_dispatch() as steps:
        F.linear(x, W, b)
    calls = []  # consecutive steps of one operator are one call going down the keys
    for step in steps:
        if calls and calls[-1][0] == step.op and step.key not in [k for k, _ in calls[-1][1]]:
            calls[-1][1].append((step.key, step.kernel))
        else:
            calls.append((step.op, [(step.key, step.kernel)]))
    nodes = [Node(str(i), op, " | ".join(f"{key}: {kernel}" for key, kernel in keys))
             for i, (op, keys) in enumerate(calls)]
    edges = [(str(i), str(i + 1)) for i in range(len(calls) - 1)]
    print(layered_svg(nodes, edges, words(en="Dispatch decisions of F.linear(x, W, b), in order",
                                           es="Decisiones de dispatch de F.linear(x, W, b), en orden")))
    return calls
# --8<-- [end:body]
