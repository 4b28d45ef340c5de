"""A TorchDispatchMode that logs every ATen call reaching the Python key, with tensor metadata (not the calls
the kernels below it make).

Self-contained (torch and the standard library only).
"""

from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten


def describe(value) -> str:
    """`f32[2, 64]` for a tensor (with `grad` when it requires grad), `repr` for anything else."""
    if isinstance(value, torch.Tensor):
        dtype = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.float64: "f64",
                 torch.int64: "i64", torch.bool: "b8"}.get(value.dtype, str(value.dtype))
        return f"{dtype}{list(value.shape)}" + (" grad" if value.requires_grad else "")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    return repr(value)


@dataclass(frozen=True)
class OpCall:
    """One ATen call seen by the mode: the overload's full name, its arguments and its result, described."""

    op: str
    args: tuple[str, ...]
    out: str


class OpLog(TorchDispatchMode):
    """Record each call (`with OpLog() as log: ...`, then read `log.calls`)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[OpCall] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        described = tuple(describe(a) for a in args) + tuple(f"{k}={describe(v)}" for k, v in kwargs.items())
        flat_out, _ = tree_flatten(out)
        self.calls.append(OpCall(func.name(), described, ", ".join(describe(o) for o in flat_out)))
        return out

    @property
    def names(self) -> list[str]:
        """The overload names, in call order."""
        return [c.op for c in self.calls]


def render_calls(calls: list[OpCall]) -> str:
    """One line per call: `aten::addmm(f32[600] grad, ...) -> f32[2, 600]`."""
    return "\n".join(f"{c.op}({', '.join(c.args)}) -> {c.out}" for c in calls)
