"""Inductor: the module of Python and C++ it generates for the head."""

from hood.capture.compile import inductor_output, render_inductor_summary
from snippets.compile.heads import AVX2, head, inductor_config
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
from torch._inductor.utils import run_and_get_code


def generated_code(fn, *args, **compile_options):
    """Compile `fn` with Inductor (AVX2 vectors, inference) and run it: its result and the generated modules."""
    with inductor_config.patch(AVX2), torch.no_grad():
        return run_and_get_code(torch.compile(fn, **compile_options), *args)


def show_inductor_code():
    """Compile the head and summarise what Inductor generated."""
    x, W, b = running_example()
    y, modules = generated_code(head, x, W, b)
    print("generated modules:", len(modules))
    out = inductor_output(modules[0])
    print(render_inductor_summary(out))
    return out
# --8<-- [end:body]
