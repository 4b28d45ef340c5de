"""Lab 00, vmap or a loop: an operator without a batching rule runs once per sample under vmap, with a warning."""

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
    print(f"one vmap call: {len(histc)} aten::histc calls, each on {histc[0].args[0]}")
    print(f"operators logged: {', '.join(dict.fromkeys(log.names))}")
    message = next(str(w.message) for w in caught if "batching rule" in str(w.message))
    print(f"warning: {message.split('. ')[0]}.")
    return log.calls, message
# --8<-- [end:body]
