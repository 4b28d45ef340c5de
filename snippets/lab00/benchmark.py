"""Lab 00, benchmark discipline: time F.linear with torch.utils.benchmark, not a bare clock loop."""

from hood.capture.common import decimal, grouped, words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F
from torch.utils import benchmark


def benchmark_linear(batch_sizes=(2, 64, 256)):
    """Time F.linear with torch.utils.benchmark: warm-up, enough runs, median per call."""
    x, W, b = (t.detach() for t in running_example())
    results = {}
    for n in batch_sizes:
        xn = torch.randn(n, 64)
        timer = benchmark.Timer(stmt="F.linear(x, W, b)", globals={"F": F, "x": xn, "W": W, "b": b},
                                num_threads=torch.get_num_threads(), label="F.linear", sub_label=f"batch {n}")
        results[n] = timer.blocked_autorange(min_run_time=0.3)
        blocks = len(results[n].times)
        print(words(en=f"batch {n:>4}: median", es=f"lote {n:>4}: mediana"), decimal(results[n].median * 1e6, "8.1f"),
              words(en="us over", es="µs en"), grouped(blocks), words(en="blocks", es="bloques"))
    return results
# --8<-- [end:body]
