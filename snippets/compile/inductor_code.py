"""Inductor: compile a function and get back the module of Python and C++ it generated."""

from snippets.compile.heads import AVX2, inductor_config

# --8<-- [start:body]
import torch
from torch._inductor.utils import run_and_get_code


def generated_code(fn, *args, **compile_options):
    """Compile `fn` with Inductor (AVX2 vectors, inference) and run it: its result and the generated modules."""
    with inductor_config.patch(AVX2), torch.no_grad():
        return run_and_get_code(torch.compile(fn, **compile_options), *args)
# --8<-- [end:body]
