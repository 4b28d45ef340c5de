"""Reading a dispatch key set: the tensor's keys, the thread-local sets, the key that fires first."""

from hood.capture.keys import key_view, render_key_views
from snippets.reading.tiny import tiny_inputs

# --8<-- [start:body]


def read_key_set():
    """Print what the dispatcher sees for a call on `x`, outside any context."""
    x, w = tiny_inputs()
    view = key_view("x: float32 (2, 3), requires_grad=True", x)
    print(render_key_views([view]))
    return view
# --8<-- [end:body]
