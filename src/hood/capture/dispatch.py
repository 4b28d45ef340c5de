"""A real per-key walk of a call: every (operator, dispatch key) the dispatcher resolves, in order.

`TORCH_SHOW_DISPATCH_TRACE` prints nothing in release wheels, but the Python dispatcher asks Python which
kernel each (operator, key) resolves to (`OpOverload._get_dispatch`) the first time it meets the pair.
Spying on that question, and forgetting each answer right after, records every step of a real call.
Self-contained (torch and the standard library only).
"""

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import torch
from torch._dispatch.python import enable_python_dispatcher
from torch._ops import OpOverload


@dataclass(frozen=True)
class Step:
    """One dispatch decision.

    Attributes:
        op: The operator overload, e.g. `aten.addmm.default`.
        key: The dispatch key the call was at.
        kernel: The registration that key resolved to (a key such as `CompositeImplicitAutograd`,
            or `python:<name>` for a kernel written in Python).
    """

    op: str
    key: str
    kernel: str


@contextlib.contextmanager
def recording_dispatch() -> Iterator[list[Step]]:
    """Record every dispatch decision made inside the `with` block."""
    steps: list[Step] = []
    original = OpOverload._get_dispatch

    def spy(self, key):
        handler = original(self, key)
        self._dispatch_cache.pop(key, None)  # forget it, so the next call asks again
        kernel = handler if isinstance(handler, torch._C.DispatchKey) else f"python:{handler.__name__}"
        steps.append(Step(str(self), str(key).split(".")[-1], str(kernel).split(".")[-1]))
        return handler

    for op in list(torch._ops.get_cached_ops()):
        op._dispatch_cache.clear()
    torch._ops.reset_cached_ops()
    OpOverload._get_dispatch = spy
    try:
        with enable_python_dispatcher():
            yield steps
    finally:
        OpOverload._get_dispatch = original


def dispatch_walk(fn: Callable[[], object]) -> list[Step]:
    """The steps of one call of `fn()`."""
    with recording_dispatch() as steps:
        fn()
    return steps


def render_walk(steps: list[Step]) -> str:
    """One line per step: operator, key, and what the key resolved to."""
    width = max((len(s.op) for s in steps), default=0)
    key_width = max((len(s.key) for s in steps), default=0)
    return "\n".join(f"{s.op:<{width}}  @ {s.key:<{key_width}}  -> {s.kernel}" for s in steps)
