"""Lab 00, the profiler drill: which operators take the time, and which Python line called them."""

from hood.capture.profile import hot_ops, op_rows
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def profile_drill(steps: int = 20):
    """Profile forward and backward with shapes and Python stacks; list the ops above 5 % of self CPU time."""
    x, W, b = running_example()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True) as prof:
        for _ in range(steps):
            for t in (x, W, b):
                t.grad = None  # as an optimizer's zero_grad(set_to_none=True) would
            F.linear(x, W, b).sum().backward()
    rows = op_rows(prof)
    hot = hot_ops(rows, threshold=0.05)
    print(f"{len(rows)} operator rows over {steps} steps; above 5 % of self CPU time:")
    for name, share in hot:
        print(f"  {share:6.1%}  {name}")
    event, callers = next(e for e in prof.events() if e.name == "aten::addmm"), []
    while event.cpu_parent is not None and len(callers) < 4:
        event = event.cpu_parent
        callers.append(event.name)
    print("\nwith_stack: what called the first aten::addmm (innermost first):")
    for name in callers:
        print(f"  {name}")
    return rows, hot
# --8<-- [end:body]
