"""Theory 01: sizes, strides, offsets and shared storage of views."""

from hood.capture.tensors import layout, render_layouts
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def views_of_w():
    """W and four tensors made from it: three views that share its storage, one copy that does not."""
    x, W, b = running_example()
    W = W.detach()
    layouts = [
        layout("W", W),
        layout("W.t()", W.t()),
        layout("W[10:20]", W[10:20]),
        layout("W.narrow(1, 8, 16)", W.narrow(1, 8, 16)),
        layout("W.t().contiguous()", W.t().contiguous()),
    ]
    print(render_layouts(layouts))
    return layouts
# --8<-- [end:body]
