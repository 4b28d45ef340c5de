"""`torch._dynamo.mark_dynamic`: declare a size dynamic before the first compile, and save the recompile."""

from hood.capture.common import words
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
from torch._dynamo.testing import CompileCounter


def compiles_with_and_without_mark_dynamic(batches=(2, 3, 4, 64)):
    """Count the compiles of the head over `batches`, as is and with the first batch's size marked dynamic."""
    _, W, b = running_example()
    counts = {}
    for mark in (False, True):
        torch._dynamo.reset()
        counter = CompileCounter()  # a backend that counts the frames it compiles
        compiled = torch.compile(head, backend=counter)
        for i, n in enumerate(batches):
            x = torch.randn(n, 64)
            if mark and i == 0:
                torch._dynamo.mark_dynamic(x, 0)  # dimension 0 of this tensor is symbolic from the start
            compiled(x, W, b)
        counts[mark] = n = counter.frame_count
        print(f"mark_dynamic={mark}:", words(en=f"batches {batches}, compiles {n}",
                                             es=f"lotes {batches}, compilaciones {n}"))
    return counts
# --8<-- [end:body]
