"""Reading a dispatch walk: one line per (operator, key) decision, in the order the dispatcher made them."""

from hood.capture.dispatch import recording_dispatch
from hood.capture.steps import render_walk
from snippets.reading.tiny import tiny_inputs

# --8<-- [start:body]


def read_walk():
    """Print the walk of `x.t()`: a view, so it stops at three keys on its way down."""
    x, w = tiny_inputs()
    with recording_dispatch() as steps:  # what hood.capture.dispatch.dispatch_walk does
        x.t()
    print(render_walk(steps))
    return steps
# --8<-- [end:body]
