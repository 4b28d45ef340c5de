"""A real per-key walk of a call: every (operator, dispatch key) the dispatcher resolves, in order.

`TORCH_SHOW_DISPATCH_TRACE` prints nothing in release wheels, but the Python dispatcher asks Python which
kernel each (operator, key) resolves to (`OpOverload._get_dispatch`) the first time it meets the pair.
Spying on that question, and forgetting each answer right after, records every step of a real call.
Torch and the standard library only: a page includes `hood/capture/steps.py:body`, then this module's body.
"""

from collections.abc import Callable

from hood.capture.steps import Step, render_walk

__all__ = ["Step", "dispatch_walk", "recording_dispatch", "render_walk"]

# --8<-- [start:body]
import contextlib

import torch
from torch._dispatch.python import enable_python_dispatcher
from torch._ops import OpOverload


@contextlib.contextmanager
def recording_dispatch():
    """Record every (operator, key) decision made inside the `with` block, as a list of `Step`."""
    steps, original = [], OpOverload._get_dispatch

    def spy(self, key):
        handler = original(self, key)  # the registration `key` resolves to, for this operator
        self._dispatch_cache.pop(key, None)  # forget it, so that the next call asks again
        kernel = handler if isinstance(handler, torch._C.DispatchKey) else f"python:{handler.__name__}"
        steps.append(Step(str(self), str(key).split(".")[-1], str(kernel).split(".")[-1]))
        return handler

    for op in list(torch._ops.get_cached_ops()):  # forget what earlier calls cached
        op._dispatch_cache.clear()
    torch._ops.reset_cached_ops()
    OpOverload._get_dispatch = spy
    try:
        with enable_python_dispatcher():  # the C++ dispatcher now asks Python at every key
            yield steps
    finally:
        OpOverload._get_dispatch = original
# --8<-- [end:body]


def dispatch_walk(fn: Callable[[], object]) -> list:
    """The steps of one call of `fn()`."""
    with recording_dispatch() as steps:
        fn()
    return steps
