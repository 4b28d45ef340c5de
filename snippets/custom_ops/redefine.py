"""Defining an op name twice is not an error: the last definition silently replaces the first."""

from hood.capture.custom_ops import first_line
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example

# --8<-- [start:body]
from torch._library.custom_ops import OPDEFS


def redefine_pitfall():
    """Define `hood::scaled_linear_twice` with a backward, then again without one, then backward."""
    first = define_scaled_linear("hood::scaled_linear_twice")
    x, W, b = running_example()
    first(x, W, b, 0.5).sum().backward()
    print("first definition, backward: W.grad", tuple(W.grad.shape))
    # The same name again, without a backward: no error.
    second = define_scaled_linear("hood::scaled_linear_twice", autograd=False)
    print("second definition: accepted without an error")
    print("the registry's entry is now the second:", OPDEFS["hood::scaled_linear_twice"] is second)
    print("the first definition's library was destroyed:", first._lib.m is None)
    try:
        second(x, W, b, 0.5).sum().backward()
        print("backward: fine")
        return None
    except RuntimeError as err:
        print("backward:", first_line(err))
        return err
# --8<-- [end:body]
