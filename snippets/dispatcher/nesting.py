"""Theory 01: which call runs inside which: the per-key walk of hood.capture.dispatch, with its nesting."""

from hood.capture.dispatch import recording_dispatch

# --8<-- [start:body]
import contextlib
from dataclasses import dataclass

import torch
from torch._ops import OpOverload


@contextlib.contextmanager
def nested_dispatch():
    """`recording_dispatch` that also says how deep each step ran: a list of `(depth, Step)`.

    Each kernel the dispatcher picks runs inside a Python function that calls it as the dispatcher does
    (`OpOverload._op_dk`, `callBoxedForDispatchKey` in C++) and counts the kernels running: a step taken while
    a kernel runs is one level below that kernel's step. The steps are the ones `recording_dispatch` records.
    """
    depth, nested = [0], []
    with recording_dispatch() as steps:
        ask = OpOverload._get_dispatch  # the recorder's spy

        def deeper(self, key):
            handler = ask(self, key)
            nested.append((depth[0], steps[-1]))

            def run(*args, **kwargs):
                depth[0] += 1
                try:
                    if isinstance(handler, torch._C.DispatchKey):
                        return self._op_dk(handler, *args, **kwargs)
                    return handler(*args, **kwargs)
                finally:
                    depth[0] -= 1
            return run

        OpOverload._get_dispatch = deeper
        try:
            yield nested
        finally:
            OpOverload._get_dispatch = ask


@dataclass
class Call:
    """One operator call: how deep it is, each (key, kernel) it went down, and at which steps of the walk (from 1)."""

    op: str
    level: int
    keys: list[tuple[str, str]]
    at: list[int]


def call_tree(nested) -> list[Call]:
    """The calls of a nested walk in order; a step of the same operator just below its last step is the same call."""
    calls, open_steps = [], []  # open_steps: (depth, call) of the kernels still running
    for number, (depth, step) in enumerate(nested, start=1):
        while open_steps and open_steps[-1][0] >= depth:
            open_steps.pop()
        parent = open_steps[-1][1] if open_steps else None
        if parent is not None and parent.op == step.op:
            call = parent  # the same call, gone down to a lower key
        else:
            call = Call(step.op, parent.level + 1 if parent else 0, [], [])
            calls.append(call)
        call.keys.append((step.key, step.kernel))
        call.at.append(number)
        open_steps.append((depth, call))
    return calls


def render_tree(calls: list[Call]) -> str:
    """One line per call, indented by level: `op: step key=kernel, ...`."""
    return "\n".join("  " * c.level + f"{c.op}: " + ", ".join(f"{n} {k}={v}" for n, (k, v) in zip(c.at, c.keys))
                     for c in calls)
# --8<-- [end:body]
