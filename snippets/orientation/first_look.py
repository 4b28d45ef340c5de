"""Orientation: the pinned torch and the autograd node that `F.linear(x, W, b)` records."""

from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def first_look():
    """Run the LM head once and print what the orientation page talks about."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    print("torch:", torch.__version__)
    print("y.shape:", tuple(y.shape))
    print("y.grad_fn:", y.grad_fn)
    print("next_functions:", [type(fn).__name__ for fn, _ in y.grad_fn.next_functions])
    return y
# --8<-- [end:body]
