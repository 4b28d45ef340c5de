"""The steps of a per-key dispatch walk (what `hood.capture.dispatch` records), and their rendering.

Self-contained (torch is not even needed): a page's setup block includes this module's body, and the block that
teaches the walk includes `hood/capture/dispatch.py:body`.
"""

# --8<-- [start:body]
from dataclasses import dataclass


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


def render_walk(steps: list[Step]) -> str:
    """One line per step: operator, key, and what the key resolved to."""
    width = max((len(s.op) for s in steps), default=0)
    key_width = max((len(s.key) for s in steps), default=0)
    return "\n".join(f"{s.op:<{width}}  @ {s.key:<{key_width}}  -> {s.kernel}" for s in steps)
# --8<-- [end:body]
