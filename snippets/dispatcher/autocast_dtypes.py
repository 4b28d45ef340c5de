"""Theory 01: what a bfloat16 autocast region casts, by input dtype: float16 too, float64 not."""

from hood.capture.common import words
from hood.capture.ops import OpLog
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def autocast_by_dtype():
    """F.linear inside torch.autocast('cpu', dtype=torch.bfloat16) on inputs of three dtypes: the casts logged."""
    casts = {}
    for dtype in (torch.float32, torch.float16, torch.float64):
        x, W, b = (t.detach() for t in running_example(dtype=dtype))
        with torch.autocast("cpu", dtype=torch.bfloat16), OpLog() as log:
            F.linear(x, W, b)
        casts[str(dtype)] = log.names.count("aten::_to_copy")
        print(f"{str(dtype):<14}", words(en="inputs:", es="entradas:"),
              f"{casts[str(dtype)]} _to_copy, addmm -> {log.calls[-1].out}")
    return casts
# --8<-- [end:body]
