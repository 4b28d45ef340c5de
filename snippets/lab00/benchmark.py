"""Lab 00, benchmark discipline: time F.linear with torch.utils.benchmark, not a bare clock loop."""

from hood.capture.common import decimal, grouped, number, words
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
    print(read_medians({n: r.median for n, r in results.items()}))
    return results


def read_medians(medians):
    """One sentence on `medians` (batch size -> seconds): whether the median grew at every larger batch."""
    sizes = sorted(medians)
    first, last = medians[sizes[0]], medians[sizes[-1]]
    if all(medians[a] < medians[b] for a, b in zip(sizes, sizes[1:])):
        return words(en=f"The median grew at every larger batch: {number(last / first, '.1f', 'en')}x from batch "
                        f"{sizes[0]} to batch {sizes[-1]}.",
                     es=f"La mediana creció en cada lote mayor: {number(last / first, '.1f', 'es')} veces del lote "
                        f"{sizes[0]} al {sizes[-1]}.")
    return words(en="The median did not grow at every larger batch here: on a busy machine one measurement can come "
                    "out slower than a larger batch's. Run the block again.",
                 es="Aquí la mediana no creció en cada lote mayor: en una máquina ocupada, una medición puede salir "
                    "más lenta que la de un lote mayor. Vuelve a ejecutar el bloque.")
# --8<-- [end:body]
