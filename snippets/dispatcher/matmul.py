"""Theory 01: what a dispatch mode sees of torch.matmul, @ and F.linear (not the composites, while autograd is on)."""

from hood.capture.common import words
from hood.capture.ops import OpLog
from hood.capture.tables import table_rows
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def matmul_ops():
    """The ATen operators a TorchDispatchMode logs for matmul, @ and linear on the running example."""
    x, W, b = running_example()
    x, W, b = x.detach(), W.detach(), b.detach()
    # made outside the mode, so that only the products are logged; x3 and c3 have the same shape, (3, 2, 64):
    # x3 repeats x without copying it (stride 0 on its first dimension), c3 is a fresh, contiguous tensor
    Wt, x3, c3 = W.t(), x.expand(3, 2, 64), torch.randn(3, 2, 64)
    calls = {
        "torch.matmul(x, Wt)": lambda: torch.matmul(x, Wt),
        "x @ Wt": lambda: x @ Wt,
        f"torch.matmul(x3, Wt), x3 strides {x3.stride()}": lambda: torch.matmul(x3, Wt),
        f"torch.matmul(c3, Wt), c3 strides {c3.stride()}": lambda: torch.matmul(c3, Wt),
        "F.linear(x, W, b)": lambda: F.linear(x, W, b),
    }
    row = table_rows("aten::matmul", ("AutogradCPU",))[0]
    print("aten::matmul", words(en="at", es="en"), f"AutogradCPU: {row.kind} · {row.source}")
    seen = {}
    for label, call in calls.items():
        with OpLog() as log:
            call()
        seen[label] = log.names
        spanish = label.replace(" strides ", " con strides ")  # the rest of a label is code
        print(words(en=f"{label:<46}", es=f"{spanish:<49}"), "->", ", ".join(seen[label]))
    return row, seen
# --8<-- [end:body]
