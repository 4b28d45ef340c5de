"""Reading a dispatch-mode log: one line per ATen call reaching the Python key (not the calls the kernels below
it make), with its arguments described."""

from hood.capture.ops import OpLog, render_calls
from snippets.reading.tiny import tiny, tiny_inputs

# --8<-- [start:body]


def read_mode_lines():
    """Print every ATen call `tiny(x, w)` makes, as a TorchDispatchMode sees it."""
    x, w = tiny_inputs()
    with OpLog() as log:
        tiny(x, w)
    print(render_calls(log.calls))
    return log.calls
# --8<-- [end:body]
