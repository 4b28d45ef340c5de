"""Lab 00, the profiler drill: which operators take the time, and which Python line called the first addmm."""

from hood.capture.common import decimal, words
from hood.capture.profile import hot_ops, op_rows
from snippets.running_example import running_example

# --8<-- [start:body]
import traceback

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode


def training_step(x, W, b):
    """One forward and backward step; `.grad` is cleared first, as `zero_grad(set_to_none=True)` would."""
    for t in (x, W, b):
        t.grad = None  # without it, every step after the first accumulates: add_ where the first ran detach
    F.linear(x, W, b).sum().backward()


class FirstCaller(TorchDispatchMode):
    """Notes the Python stack at the first call of one operator (a mode runs on the caller's thread, in its stack)."""

    def __init__(self, op: str):
        super().__init__()
        self.op, self.stack = op, None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if self.stack is None and func.name() == self.op:
            self.stack = traceback.extract_stack()[:-1]  # drop this method's own frame
        return func(*args, **(kwargs or {}))


def profile_drill(steps: int = 20):
    """Profile forward and backward with shapes; list the ops with at least 5 % of the ops' summed self CPU time;
    find the first addmm's caller with a dispatch mode, since the profiler's stacks are empty here."""
    x, W, b = running_example()
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True) as prof:
        for _ in range(steps):
            training_step(x, W, b)
    rows = op_rows(prof)
    hot = hot_ops(rows, threshold=0.05)
    print(words(en=f"{len(rows)} operator rows over {steps} steps; at least 5 % of their summed self CPU time:",
                es=f"{len(rows)} filas de operadores en {steps} pasos; "
                   "al menos el 5 % de la suma de su tiempo propio de CPU:"))
    for name, share in hot:
        print(f"  {decimal(share * 100, '5.1f')}{words(en='%', es=' %')}  {name}")
    addmm = [e for e in prof.events() if e.name == "aten::addmm"]
    stacked = sum(1 for e in addmm if e.stack)
    print("\nwith_stack=True:", words(en=f"{stacked} of {len(addmm)} aten::addmm events carry a stack",
                                    es=f"{stacked} de {len(addmm)} eventos aten::addmm llevan pila"))
    with FirstCaller("aten::addmm") as mode:
        training_step(x, W, b)
    mine = [f for f in mode.stack if "/torch/" not in f.filename.replace("\\", "/")]
    print(words(en="what called the first aten::addmm (a dispatch mode with traceback, innermost last):",
                es="qué llamó al primer aten::addmm "
                   "(un modo de dispatch con traceback, el frame más interno al final):"))
    for frame in mine[-3:]:
        print(f"  {frame.name}: {frame.line or words(en=f'(line {frame.lineno})', es=f'(línea {frame.lineno})')}")
    return rows, hot, mine
# --8<-- [end:body]
