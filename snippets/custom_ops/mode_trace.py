"""What a TorchDispatchMode sees of the custom op, next to what it sees of F.linear."""

from snippets.custom_ops.record_ops import RecordOps
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def mode_trace(scaled_linear):
    """Record the ops of forward and backward, for `F.linear(...) * 0.5` and for the custom op."""
    traces = {}
    candidates = {
        "F.linear(x, W, b) * 0.5": lambda x, W, b: F.linear(x, W, b) * 0.5,
        "hood::scaled_linear(x, W, b, 0.5)": lambda x, W, b: scaled_linear(x, W, b, 0.5),
    }
    for name, fn in candidates.items():
        x, W, b = running_example()  # fresh leaves: no .grad to accumulate into
        with RecordOps() as forward:
            y = fn(x, W, b)
        grad = torch.ones_like(y)
        with RecordOps() as backward:
            y.backward(grad)
        traces[name] = (forward.ops, backward.ops)
        print(name)
        print("  forward: ", forward.ops)
        print("  backward:", backward.ops)
    return traces
# --8<-- [end:body]
