"""Without register_fake: eager works, everything that traces with fake tensors fails."""

from hood.capture.common import words
from hood.capture.custom_ops import first_line, wrapped_error
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def without_fake():
    """Define the op without a fake kernel; try it eagerly, on meta tensors, compiled, in opcheck."""
    scaled_linear = define_scaled_linear("hood::scaled_linear_nofake", fake=False)
    x, W, b = running_example()
    eager = scaled_linear(x, W, b, 0.5)
    print(words(en="eager on real tensors:", es="eager con tensores reales:"), tuple(eager.shape))
    def logits(x):
        return scaled_linear(x, W, b, 0.5)

    attempts = {
        "meta tensors": lambda: scaled_linear(*(t.detach().to("meta") for t in (x, W, b)), 0.5),
        "torch.compile": lambda: torch.compile(logits, fullgraph=True)(x),
        "opcheck": lambda: torch.library.opcheck(scaled_linear, (*(t.double() for t in (x, W, b)), 0.5)),
    }
    errors, shown = {}, {"meta tensors": words(en="meta tensors", es="tensores meta")}
    for what, attempt in attempts.items():
        try:
            attempt()
            errors[what] = None
            print(f"{shown.get(what, what)}:", words(en="no error", es="sin error"))
        except Exception as err:  # noqa: BLE001 - each failure is the output
            errors[what] = err
            print(f"{shown.get(what, what)}: {first_line(err)}")
            if wrapped_error(err):
                print(words(en="    which wraps", es="    que envuelve"), wrapped_error(err))
    return errors
# --8<-- [end:body]
