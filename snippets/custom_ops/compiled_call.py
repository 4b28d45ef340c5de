"""Inside torch.compile the custom op is one opaque call in the generated code."""

from hood.capture.common import words
from hood.capture.custom_ops import wrapper_calls
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
from torch._inductor.utils import run_and_get_code


def compiled_call(scaled_linear):
    """Compile a function that only calls the op (inference); print the wrapper's kernel calls."""
    x, W, b = running_example()

    def logits(x):
        return scaled_linear(x, W, b, 0.5)

    with torch.no_grad():
        out, codes = run_and_get_code(torch.compile(logits, fullgraph=True), x)
        eager = logits(x)
    print(words(en="generated wrappers:", es="wrappers generados:"), len(codes))
    for line in wrapper_calls(codes[0]):
        print("   ", line)
    print(words(en="compiled equals eager:", es="compilado igual a eager:"), torch.equal(out, eager))
    return codes, out, eager
# --8<-- [end:body]
