"""Defining an op name twice is not an error: the last definition silently replaces the first."""

from hood.capture.common import words
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
    print(words(en="first definition, backward: W.grad", es="primera definición, backward: W.grad"),
          tuple(W.grad.shape))
    # The same name again, without a backward: no error.
    second = define_scaled_linear("hood::scaled_linear_twice", autograd=False)
    print(words(en="second definition: accepted without an error", es="segunda definición: aceptada sin error"))
    print(words(en="the registry's entry is now the second:", es="la entrada del registro es ahora la segunda:"),
          OPDEFS["hood::scaled_linear_twice"] is second)
    print(words(en="the first definition's library was destroyed:",
                es="la biblioteca de la primera definición se destruyó:"), first._lib.m is None)
    try:
        second(x, W, b, 0.5).sum().backward()
        print("backward:", words(en="fine", es="funciona"))
        return None
    except RuntimeError as err:
        print("backward:", first_line(err))
        return err
# --8<-- [end:body]
