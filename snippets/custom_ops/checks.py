"""gradcheck, gradgradcheck and torch.library.opcheck on hood::scaled_linear."""

from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def check_scaled_linear(scaled_linear):
    """Run the three checks on the running example's shapes, in float64."""
    x, W, b = running_example(dtype=torch.float64)

    def fn(x, W, b):
        return scaled_linear(x, W, b, 0.5)

    first = torch.autograd.gradcheck(fn, (x, W, b), fast_mode=True)
    second = torch.autograd.gradgradcheck(fn, (x, W, b), fast_mode=True)
    report = torch.library.opcheck(scaled_linear, (x, W, b, 0.5))
    print("gradcheck", words(en="(fast mode):", es="(modo rápido):"), first)
    print("gradgradcheck", words(en="(fast mode):", es="(modo rápido):"), second)
    print("opcheck:")
    for test, result in report.items():
        print(f"  {test}: {result}")
    return first, second, report
# --8<-- [end:body]
