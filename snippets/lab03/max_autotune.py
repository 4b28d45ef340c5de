"""Lab 03, stretch: `mode="max-autotune"` against the default mode, compile time and generated code."""

from hood.capture.common import number, words
from hood.capture.compile import inductor_output
from snippets.compile.heads import TinyHead
from snippets.compile.inductor_code import generated_code

# --8<-- [start:body]
import tempfile
import time

import torch
from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir


def compare_modes(modes=("default", "max-autotune"), batch=2, seed=42):
    """Compile the head in each mode from an empty Inductor cache; time it and keep its generated code."""
    torch.manual_seed(seed)
    model, x = TinyHead(), torch.randn(batch, 64)
    results = {}
    for mode in modes:
        with tempfile.TemporaryDirectory() as folder, temporary_cache_dir(folder):
            start = time.perf_counter()
            _, (code,) = generated_code(model, x, mode=mode)
            results[mode] = (time.perf_counter() - start, inductor_output(code))
    for mode, (seconds, out) in results.items():
        kernels, calls = sorted(out.kernels), out.extern_calls
        print(f"{mode:>12}: " + words(
            en=f"compiled in {number(seconds, '.1f', 'en')} s; kernels {kernels}; library calls {calls}",
            es=f"compilado en {number(seconds, '.1f', 'es')} s; kernels {kernels}; kernels externos {calls}"))
    (_, first), *others = results.values()
    print(words(en="same generated kernels in every mode:", es="los mismos kernels generados en todos los modos:"),
          all(o.kernels == first.kernels for _, o in others))
    return results
# --8<-- [end:body]
