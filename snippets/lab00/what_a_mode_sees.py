"""Lab 00, part C: what a logging mode sees of `x + y` and `torch.mm(x, y)`, and what it does not."""

from hood.capture.common import words
from snippets.lab00.logging_mode import LoggingMode

# --8<-- [start:body]
import torch


def log_add_and_mm():
    """`x + y` and `torch.mm(x, y)` with x requiring grad: what the mode logs, and what autograd did anyway."""
    x, y = torch.randn(3, 3, requires_grad=True), torch.randn(3, 3)
    with LoggingMode() as mode:
        z, w = x + y, torch.mm(x, y)
    print(words(en="the mode logged:", es="el modo anotó:"), mode.names)
    add, mm = type(z.grad_fn).__name__, type(w.grad_fn).__name__
    print(words(en=f"grad_fn of x + y: {add}, of torch.mm(x, y): {mm}",
                es=f"grad_fn de x + y: {add}; de torch.mm(x, y): {mm}"))
    return mode.names, z, w
# --8<-- [end:body]
