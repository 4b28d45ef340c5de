"""Lab 00, exercise 3 timed: exercise 3's per-sample function in a Python loop and under vmap."""

from snippets.lab00.exercises import per_sample
from snippets.lab00.timing_sentence import read_timing

# --8<-- [start:body]
import torch
from torch.utils import benchmark


def time_loop_and_vmap(batches=(8, 64, 512), min_run_time=0.3):
    """Median microseconds per call, loop and vmap, at each batch size (torch.utils.benchmark, one thread)."""
    batched = torch.vmap(per_sample)
    loop = lambda b: torch.stack([per_sample(row) for row in b])  # noqa: E731
    rows = []
    for n in batches:
        x = torch.randn(n, 4)
        loop_us, vmap_us = (benchmark.Timer("f(x)", globals={"f": f, "x": x}).blocked_autorange(
            min_run_time=min_run_time).median * 1e6 for f in (loop, batched))
        rows.append((n, loop_us, vmap_us))
    print(read_timing(rows))
    return rows
# --8<-- [end:body]
