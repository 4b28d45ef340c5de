"""Theory 01: a linear on float16 tensors, outside autocast, casts nothing."""

from hood.capture.ops import OpLog, render_calls
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def half_linear():
    """F.linear on tensors that are already float16, outside autocast: nothing to cast."""
    x, W, b = running_example(dtype=torch.float16)
    with OpLog() as log:
        F.linear(x, W, b)
    print(render_calls(log.calls))
    return log.calls
# --8<-- [end:body]
