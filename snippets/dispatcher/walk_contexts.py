"""Theory 01: where linear and addmm are handled under no_grad, inference_mode and autocast."""

from hood.capture.dispatch import recording_dispatch
from hood.capture.steps import render_walk
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def walk_in_contexts():
    """The linear and addmm decisions of F.linear(x, W, b) in three contexts."""
    x, W, b = running_example()
    contexts = {
        "torch.no_grad()": torch.no_grad,
        "torch.inference_mode()": torch.inference_mode,
        "torch.autocast('cpu', dtype=torch.bfloat16)": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
    }
    walks = {}
    for label, context in contexts.items():
        with recording_dispatch() as steps, context():
            F.linear(x, W, b)
        walks[label] = [s for s in steps if s.op in ("aten.linear.default", "aten.addmm.default")]
        print(f"{label}\n{render_walk(walks[label])}\n")
    return walks
# --8<-- [end:body]
