"""What the autograd key does at dispatch time: record the node, then redispatch below itself."""

from hood.capture.common import words
from hood.capture.custom_ops import dispatch_rows
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def autograd_key_events():
    """Interleave tensor packs (autograd recording a node) with what reaches the Python key."""
    x, W, b = running_example()
    events = []

    def pack(tensor):
        same_memory_as_W = tensor.data_ptr() == W.data_ptr()
        who = "x" if tensor is x else (words(en="W, transposed", es="W, transpuesta") if same_memory_as_W else "?")
        saves = words(en=f"autograd key saves {tuple(tensor.shape)} for backward",
                      es=f"la clave de autograd guarda {tuple(tensor.shape)} para el backward")
        events.append(f"{saves} ({who})")
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), BelowAutograd(events):
        y = F.linear(x, W, b)
    back = words(en="back at the caller:", es="de vuelta en quien llamó:")
    events.append(f"{back} y.grad_fn = {type(y.grad_fn).__name__}")
    for event in events:
        print(event)
    return events
# --8<-- [end:body]


# --8<-- [start:mode]
class BelowAutograd(torch.utils._python_dispatch.TorchDispatchMode):
    """Runs at the Python key, below the autograd key: log each op that gets there and its output."""

    def __init__(self, events):
        super().__init__()
        self.events = events

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.events.append(words(en=f"Python key (below autograd) runs {func}",
                                 es=f"la clave Python (por debajo de autograd) ejecuta {func}"))
        out = func(*args, **(kwargs or {}))
        grad_fn = out.grad_fn
        self.events.append(words(en="  its output:", es="  su salida:")
                           + f" requires_grad={out.requires_grad}, grad_fn={grad_fn}")
        return out
# --8<-- [end:mode]


# --8<-- [start:slots]
def autograd_slots(ops=("aten::linear", "aten::t", "aten::addmm")):
    """What each operator of the call holds at `AutogradCPU`: the kind of entry, and the file behind it."""
    rows = {op: dispatch_rows(op, ("AutogradCPU",))[0] for op in ops}
    width = max(len(op) for op in ops)
    for op, row in rows.items():
        print(words(en="AutogradCPU of", es="AutogradCPU de"), f"{op:<{width}}  {row.kind:<15}  {row.source}")
    return rows
# --8<-- [end:slots]
