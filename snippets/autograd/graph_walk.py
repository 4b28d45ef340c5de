"""Walk the autograd graph of `F.linear(x, W, b)`: nodes, edges, and what each node saved."""

from hood.capture.autograd import autograd_graph, render_graph
from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def walk_linear():
    """Print the graph behind `y = F.linear(x, W, b)` and check what `AddmmBackward0` saved."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    graph = autograd_graph(y, {"x": x, "W": W, "b": b})
    print(render_graph(graph))
    node = y.grad_fn
    print()
    print("node._saved_mat1 is x:", node._saved_mat1 is x)
    print(words(en="same memory (data_ptr):", es="misma memoria (data_ptr):"),
          node._saved_mat1.data_ptr() == x.data_ptr())
    print("node._saved_mat2 is W:", node._saved_mat2 is W)
    print(words(en="mat2 is W seen through a transpose:", es="mat2 es W vista a través de una transposición:"),
          node._saved_mat2.data_ptr() == W.data_ptr(),
          "strides", node._saved_mat2.stride(), words(en="vs W", es="frente a W"), W.stride())
    return graph
# --8<-- [end:body]
