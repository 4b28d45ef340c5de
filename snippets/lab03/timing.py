"""Lab 03, part E: eager versus compiled, timed with torch.utils.benchmark at a few batch sizes."""

from hood.capture.compile_timing import Timing
from snippets.compile.heads import AVX2, TinyHead, inductor_config

# --8<-- [start:body]
import torch
from torch.utils import benchmark


def time_head(batches=(2, 64, 256), min_run_time=0.3, threads=1, seed=42):
    """Median microseconds per call, eager and compiled, on `threads` threads (torch.utils.benchmark's default: 1).

    Each batch size is compiled, for that thread count, before it is timed."""
    torch.manual_seed(seed)
    model = TinyHead().eval()
    rows = []
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)  # Dynamo guards on it: compile under the thread count that is timed
    try:
        with inductor_config.patch({**AVX2, "cpp.threads": threads}), torch.no_grad():  # the kernel too
            for n in batches:
                torch._dynamo.reset()
                x = torch.randn(n, 64)
                compiled = torch.compile(model)
                compiled(x)  # compile and warm up outside the timed region
                medians = [benchmark.Timer("f(x)", globals={"f": f, "x": x}, num_threads=threads)
                           .blocked_autorange(min_run_time=min_run_time).median * 1e6 for f in (model, compiled)]
                rows.append(Timing(n, *medians))
    finally:
        torch.set_num_threads(previous)
    return rows
# --8<-- [end:body]
