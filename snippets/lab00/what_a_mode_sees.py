"""Lab 00, part C: what a logging mode sees of `x + y` and `torch.mm(x, y)`, and what it does not."""

from snippets.lab00.logging_mode import LoggingMode

# --8<-- [start:body]
import torch


def log_add_and_mm():
    """`x + y` and `torch.mm(x, y)` with x requiring grad: what the mode logs, and what autograd did anyway."""
    x, y = torch.randn(3, 3, requires_grad=True), torch.randn(3, 3)
    with LoggingMode() as mode:
        z, w = x + y, torch.mm(x, y)
    print(f"the mode logged: {mode.names}")
    print(f"grad_fn of x + y: {type(z.grad_fn).__name__}, of torch.mm(x, y): {type(w.grad_fn).__name__}")
    return mode.names, z, w
# --8<-- [end:body]
