"""Guards: the checks Dynamo runs before reusing a compiled graph, and the one a new shape fails."""

from hood.capture.common import words
from hood.capture.compile import cache_entries, guard_failures, render_guards
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def guards_of_head():
    """Compile `head`, print the guards of its compiled version, then check them against a batch of 3."""
    torch._dynamo.reset()  # forget earlier compiles, so that this one is frame 0 (`0/0`) in any session
    x, W, b = running_example()
    torch.compile(head, backend="eager")(x, W, b)
    (entry,) = cache_entries(head)
    print(render_guards(entry))
    x3 = torch.randn(3, 64, requires_grad=True)
    for compile_id, reasons in guard_failures(head, {"x": x3, "W": W, "b": b}):
        against = words(en=f"a batch of 3 against version {compile_id}:",
                        es=f"un lote de 3 frente a la versión {compile_id}:")
        print(against, "; ".join(reasons) or words(en="all guards pass", es="pasa todas las guardas"))
    return entry
# --8<-- [end:body]
