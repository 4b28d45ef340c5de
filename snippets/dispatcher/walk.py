"""Theory 01: real per-key walks of F.linear(x, W, b) and of a + b, recorded by hood.capture.dispatch."""

from hood.capture.dispatch import recording_dispatch
from hood.capture.steps import render_walk
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def linear_walk():
    """Every dispatch decision of one F.linear(x, W, b) call."""
    x, W, b = running_example()
    with recording_dispatch() as steps:
        F.linear(x, W, b)
    print(render_walk(steps))
    return steps


def add_walk():
    """Every dispatch decision of `a + b`: from Python's `+` to the CPU kernel of aten::add.Tensor."""
    x, W, b = running_example()
    a, b = x, x.detach() * 2  # one operand requires grad, the other does not
    with recording_dispatch() as steps:
        a + b
    print(render_walk(steps))
    return steps
# --8<-- [end:body]
