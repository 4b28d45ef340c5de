"""Step 1 of lab 01: the MLP's real graph, node by node, and the odd way two saved ints print."""

from hood.capture.autograd import autograd_graph, render_graph
from hood.capture.common import words
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.formulas import as_signed
from snippets.running_example import running_example

# --8<-- [start:walk]
import torch


def walk_mlp():
    """Print every node of the MLP loss's graph with its next nodes and saved values."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    names = {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "logp": logp, "target": target}
    graph = autograd_graph(loss, names)
    print(render_graph(graph))
    return graph
# --8<-- [end:walk]


# --8<-- [start:saved_ints]
def saved_ints():
    """`_saved_dim` and `_saved_ignore_index` come back unsigned: read them as int64, or they break."""
    x, _, _ = running_example()
    _, logp, loss = mlp_forward(x, *mlp_params())
    dim, ignore = logp.grad_fn._saved_dim, loss.grad_fn._saved_ignore_index
    print("LogSoftmaxBackward0._saved_dim:", dim, "->", as_signed(dim), "| 2**64 - 1 =", 2**64 - 1)
    reduction = loss.grad_fn._saved_reduction  # 1 (mean): a non-negative value stays as it is
    print("NllLossBackward0._saved_ignore_index:", ignore, "->", as_signed(ignore),
          "| _saved_reduction:", reduction, "->", as_signed(reduction))
    try:
        logp.sum(dim)
    except Exception as err:  # noqa: BLE001 - the point is to show what the raw value does
        print("logp.sum(dim)", words(en="with the raw value:", es="con el valor tal cual:"),
              f"{type(err).__name__}: {err}")
    print("logp.sum(as_signed(dim)).shape:", tuple(logp.sum(as_signed(dim)).shape))
    return dim, ignore
# --8<-- [end:saved_ints]
