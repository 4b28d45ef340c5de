"""Lab 00, vmap or a loop: an operator without a batching rule runs once per sample under vmap, with a warning."""

from hood.capture.common import words

from hood.capture.ops import OpLog

# --8<-- [start:body]
import warnings

import torch


def vmap_without_a_batching_rule(samples=5):
    """torch.histc has no batching rule: count what the mode logs under vmap, and the warning vmap gives."""
    batch = torch.randn(samples, 4)
    with warnings.catch_warnings(record=True) as caught, OpLog() as log:
        warnings.simplefilter("always")
        torch.vmap(lambda t: torch.histc(t, bins=4))(batch)
    histc = [c for c in log.calls if c.op == "aten::histc"]
    n, each = len(histc), histc[0].args[0]
    print(words(en=f"one vmap call: {n} aten::histc calls, each on {each}",
                es=f"una llamada a vmap: {n} llamadas a aten::histc, cada una sobre {each}"))
    print(words(en="operators logged:", es="operadores anotados:"), ", ".join(dict.fromkeys(log.names)))
    message = next(str(w.message) for w in caught if "batching rule" in str(w.message))
    print(words(en="warning:", es="aviso:"), f"{message.split('. ')[0]}.")
    return log.calls, message
# --8<-- [end:body]
