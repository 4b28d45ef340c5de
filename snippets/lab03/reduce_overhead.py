"""Lab 03, stretch: `mode="reduce-overhead"` on a CPU build, against the default mode of Part A."""

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
    print("same kernels as the default mode:", out.kernels == default.kernels)
    print("same library calls:", out.extern_calls == default.extern_calls)
    print("CUDA graphs in the code:", "cudagraph" in out.code.lower())
    lines, default_lines = out.call.splitlines(), default.call.splitlines()
    print("wrapper lines only in the default mode:", *[x for x in default_lines if x not in lines], sep="\n    ")
    print("wrapper lines only in reduce-overhead:", *[x for x in lines if x not in default_lines] or ["none"],
          sep="\n    ")
    return out
# --8<-- [end:body]
