"""Theory 01: under inference_mode a dispatch mode does see aten::linear and aten::matmul."""

from hood.capture.common import words
from hood.capture.ops import OpLog
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def composites_under_inference_mode():
    """What the mode logs for F.linear and torch.matmul under no context, no_grad and inference_mode."""
    x, W, b = running_example()
    Wt = W.t()  # made outside the mode, so that only the products are logged
    seen = {}
    for label, context in (("no context", torch.enable_grad), ("torch.no_grad()", torch.no_grad),
                           ("torch.inference_mode()", torch.inference_mode)):
        with context(), OpLog() as linear:
            F.linear(x, W, b)
        with context(), OpLog() as matmul:
            torch.matmul(x, Wt)
        seen[label] = (linear.names, matmul.names)
        shown = words(en=f"{label:<23}", es=f"{'sin contexto' if label == 'no context' else label:<23}")
        print(f"{shown} F.linear -> {', '.join(linear.names):<24} torch.matmul -> {', '.join(matmul.names)}")
    return seen
# --8<-- [end:body]
