"""Lab 03, stretch: `mode="reduce-overhead"` on a CPU build, against the default mode of Part A."""

from hood.capture.common import words
from hood.capture.compile import inductor_output
from snippets.compile.heads import TinyHead
from snippets.compile.inductor_code import generated_code

# --8<-- [start:body]
import torch


def reduce_overhead(default, batch=2, seed=42):
    """Compile the head with mode="reduce-overhead"; compare its code with `default` (Part A's)."""
    torch.manual_seed(seed)
    _, (code,) = generated_code(TinyHead(), torch.randn(batch, 64), mode="reduce-overhead")
    out = inductor_output(code)
    label = {"kernels": words(en="same kernels as the default mode:", es="los mismos kernels que el modo por defecto:"),
             "calls": words(en="same library calls:", es="los mismos kernels externos:"),
             "cuda": words(en="CUDA graphs in the code:", es="CUDA graphs en el código:"),
             "default": words(en="wrapper lines only in the default mode:",
                              es="líneas del wrapper solo en el modo por defecto:"),
             "reduce": words(en="wrapper lines only in reduce-overhead:",
                             es="líneas del wrapper solo en reduce-overhead:"),
             "none": words(en="none", es="ninguna")}
    print(label["kernels"], out.kernels == default.kernels)
    print(label["calls"], out.extern_calls == default.extern_calls)
    print(label["cuda"], "cudagraph" in out.code.lower())
    lines, default_lines = out.call.splitlines(), default.call.splitlines()
    print(label["default"], *[x for x in default_lines if x not in lines], sep="\n    ")
    print(label["reduce"], *[x for x in lines if x not in default_lines] or [label["none"]], sep="\n    ")
    return out
# --8<-- [end:body]
