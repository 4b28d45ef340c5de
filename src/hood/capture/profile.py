"""Profiler results as data: which ops ran, with which shapes, how often, and where the time went.

Times differ on every run, so what a page traces is the structure (names, shapes, calls); the shares of
time are shown, never traced. Self-contained (torch and the standard library only).
"""

from dataclasses import dataclass

OP_PREFIXES = ("aten::", "autograd::", "torch::autograd::")


@dataclass(frozen=True)
class OpRow:
    """One line of `key_averages(group_by_input_shape=True)` for an operator or autograd node.

    Attributes:
        name: `aten::addmm`, `AddmmBackward0`, `autograd::engine::evaluate_function: ...`.
        calls: How many times it ran with these input shapes.
        shapes: The input shapes as the profiler prints them.
        self_us: Time in the op itself, microseconds (varies per run).
    """

    name: str
    calls: int
    shapes: str
    self_us: float


def is_op(name: str) -> bool:
    """ATen operators and autograd nodes, not the Python frames `with_stack=True` adds."""
    return name.startswith(OP_PREFIXES) or name.endswith("Backward0")


def op_rows(prof) -> list[OpRow]:
    """The operator rows of a finished `torch.profiler.profile`, sorted by name then shapes."""
    rows = [
        OpRow(e.key, e.count, str(e.input_shapes), e.self_cpu_time_total)
        for e in prof.key_averages(group_by_input_shape=True)
        if is_op(e.key)
    ]
    return sorted(rows, key=lambda r: (r.name, r.shapes))


def render_structure(rows: list[OpRow]) -> str:
    """Name, calls and input shapes: what stays the same from run to run."""
    width = max((len(r.name) for r in rows), default=0)
    return "\n".join(f"{r.name:<{width}}  x{r.calls}  {r.shapes}" for r in rows)


def hot_ops(rows: list[OpRow], threshold: float = 0.05) -> list[tuple[str, float]]:
    """Ops whose self time is at least `threshold` of the total self time, largest first, as (name, share)."""
    total = sum(r.self_us for r in rows) or 1.0
    shares: dict[str, float] = {}
    for r in rows:
        shares[r.name] = shares.get(r.name, 0.0) + r.self_us / total
    return sorted(((n, s) for n, s in shares.items() if s >= threshold), key=lambda item: -item[1])
