"""Reading a grad_fn chain: the backward nodes behind an output, where each sends gradients, what each saved."""

from hood.capture.autograd import autograd_graph, render_graph
from snippets.reading.tiny import tiny, tiny_inputs

# --8<-- [start:body]


def read_grad_chain():
    """Print the graph behind `tiny(x, w)`, naming the leaves `x` and `w`."""
    x, w = tiny_inputs()
    y = tiny(x, w)
    graph = autograd_graph(y, {"x": x, "w": w})
    print(render_graph(graph))
    return graph
# --8<-- [end:body]
