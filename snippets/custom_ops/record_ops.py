"""A TorchDispatchMode that records the name of every op call reaching the Python key."""

# --8<-- [start:body]
from torch.utils._python_dispatch import TorchDispatchMode


class RecordOps(TorchDispatchMode):
    """`with RecordOps() as rec: ...`, then `rec.ops`: the ops in call order (`aten.addmm.default`)."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        return func(*args, **(kwargs or {}))
# --8<-- [end:body]
