"""Theory 01, check yourself: two outputs the page has not shown, for the reader to predict."""

from hood.capture.common import words
from hood.capture.dispatch import recording_dispatch
from hood.capture.ops import OpLog
from snippets.running_example import running_example

# --8<-- [start:inplace]
import torch


def inplace_start_key():
    """Under inference_mode, the key where y.add_(1) starts, for a y made before the region."""
    y = torch.zeros(3)
    with torch.inference_mode(), recording_dispatch() as steps:
        y.add_(1)
    first = next(s for s in steps if s.op == "aten.add_.Tensor")
    print("y.add_(1)", words(en=f"under inference_mode starts at {first.key} ({first.kernel} kernel);",
                             es=f"dentro de inference_mode empieza en {first.key} (kernel {first.kernel});"),
          f"y._version = {y._version}")
    return first.key
# --8<-- [end:inplace]

# --8<-- [start:vector]
import torch  # noqa: F811 - each section carries its own imports


def matmul_vector_ops():
    """The operators a dispatch mode logs for torch.matmul(v, Wt), v a 1-D vector of 64 values."""
    x, W, b = running_example()
    v, Wt = x[0].detach(), W.detach().t()
    with OpLog() as log:
        torch.matmul(v, Wt)
    n, shape = len(log.names), tuple(v.shape)
    said = words(en=f"v of shape {shape}: {n} operators,", es=f"v de forma {shape}: {n} operadores,")
    print("torch.matmul(v, Wt),", said, ", ".join(log.names))
    return len(log.names)
# --8<-- [end:vector]
