"""The fix for the `.item()` graph break: let Dynamo capture the scalar as a symbolic value."""

from hood.capture.common import words
from snippets.compile.graph_breaks import chatty_head
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def scalar_capture_fix():
    """Explain `chatty_head` as it is, then with `capture_scalar_outputs` on for this call only."""
    x, W, b = running_example()
    counts = {}
    for capture in (False, True):
        torch._dynamo.reset()
        with torch._dynamo.config.patch(capture_scalar_outputs=capture):  # restored on exit
            explanation = torch._dynamo.explain(chatty_head)(x, W, b)
        reasons = [r.reason.splitlines()[0] for r in explanation.break_reasons]
        counts[capture] = n = explanation.graph_count
        print(f"capture_scalar_outputs={capture}:", words(en=f"{n} graphs, breaks:", es=f"{n} grafos, cortes:"),
              reasons)
    return counts
# --8<-- [end:body]
