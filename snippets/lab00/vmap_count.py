"""Lab 00, vmap or a loop: the operator calls a Python loop over samples makes, and those of one vmap call."""

from hood.capture.common import max_diff, words
from hood.capture.ops import OpLog

# --8<-- [start:body]
import torch


def count_loop_and_vmap(samples=5):
    """Operator calls under the logging mode: a loop over the samples, then one vmap call."""
    batch = torch.randn(samples, 4)
    f = lambda t: (t * t + torch.sin(t)).sum()  # noqa: E731 - one sample in, one number out
    with OpLog() as loop:
        looped = torch.stack([f(row) for row in batch])
    with OpLog() as vmapped:
        batched = torch.vmap(f)(batch)
    n, m = len(loop.calls), len(vmapped.calls)
    print(words(en=f"loop over {samples} samples: {n} operator calls,",
                es=f"bucle sobre {samples} muestras: {n} llamadas a operadores,"), loop.names[:5], "...")
    print(words(en=f"one vmap call: {m} operator calls,", es=f"una llamada a vmap: {m} llamadas a operadores,"),
          vmapped.names)
    agree = words(en="loop and vmap agree:", es="el bucle y vmap coinciden:")
    print(agree, words(en="max |diff|", es="diferencia máxima"), max_diff(looped, batched, 1e-4))
    return loop.calls, vmapped.calls
# --8<-- [end:body]
