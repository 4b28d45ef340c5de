"""Defining the same op name twice is not an error: the last definition silently replaces the first."""

from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example

# --8<-- [start:body]
from hood.capture.custom_ops import first_line


def redefine_pitfall():
    """Define `hood::scaled_linear_twice` with a backward, then again without one, then backward."""
    first = define_scaled_linear("hood::scaled_linear_twice")
    x, W, b = running_example()
    first(x, W, b, 0.5).sum().backward()
    print("first definition, backward: W.grad", tuple(W.grad.shape))
    define_scaled_linear("hood::scaled_linear_twice", autograd=False)  # same name, no error
    print("second definition: accepted without an error")
    try:
        first(x, W, b, 0.5).sum().backward()  # through the FIRST Python object
        print("backward through the first object: fine")
        return None
    except RuntimeError as err:
        print("backward through the first object:", first_line(err))
        return err
# --8<-- [end:body]
