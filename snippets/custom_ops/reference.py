"""The custom op against its reference, F.linear(x, W, b) * scale: forward and the three gradients."""

from hood.capture.common import max_diff, words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def against_reference(scaled_linear, scale: float = 0.5):
    """Run the op and `F.linear(x, W, b) * scale` forward and backward, same upstream gradient."""
    print(words(en="schema:", es="esquema:"), torch.ops.hood.scaled_linear.default._schema)
    g = torch.randn(2, 600, generator=torch.Generator().manual_seed(1))
    results = {}
    for name, fn in (("custom op", lambda x, W, b: scaled_linear(x, W, b, scale)),
                     ("reference", lambda x, W, b: F.linear(x, W, b) * scale)):
        x, W, b = running_example()
        y = fn(x, W, b)
        y.backward(g)
        results[name] = (y, x.grad, W.grad, b.grad)
    for label, ours, ref in zip(("y", "dx", "dW", "db"), *results.values()):
        print(f"{label}:", words(en="max |custom op - reference|", es="diferencia máxima con la referencia"),
              max_diff(ours, ref, 1e-6))
    return results
# --8<-- [end:body]
