"""Theory 02's self-check questions: values a reader predicts before running the block."""

from snippets.custom_ops.record_ops import RecordOps
from snippets.running_example import running_example

# --8<-- [start:versions]
import torch


def view_versions():
    """Write through a view of `w`, then into `w`: the two tensors' `_version`."""
    w = torch.ones(3)
    v = w[1:]  # a view of w
    v.add_(1)
    w.mul_(2)
    return w._version, v._version
# --8<-- [end:versions]


# --8<-- [start:inference_ops]
import torch.nn.functional as F


def ops_under_inference_mode():
    """The calls `RecordOps` sees for `F.linear(x, W, b)` under `torch.inference_mode()`."""
    x, W, b = running_example()
    with torch.inference_mode(), RecordOps() as rec:
        F.linear(x, W, b)
    return rec.ops
# --8<-- [end:inference_ops]
