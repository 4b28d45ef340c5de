"""Theory 01: the casts autocast inserts, and its cast cache."""

from hood.capture.common import words
from hood.capture.ops import OpLog, render_calls
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def autocast_casts():
    """Two F.linear calls inside one autocast region: the first casts x, W and b, the second reuses the casts."""
    x, W, b = running_example()
    logs = []
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for call in (words(en="first call", es="primera llamada"), words(en="second call", es="segunda llamada")):
            with OpLog() as log:
                F.linear(x, W, b)
            logs.append(log.calls)
            print(f"{call}:\n{render_calls(log.calls)}\n")
    return logs
# --8<-- [end:body]
