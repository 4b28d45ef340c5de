"""Theory 01: sizes, strides, offsets and shared storage of views; when contiguity matters."""

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


def when_contiguity_matters():
    """view() needs compatible strides, reshape() copies when it must, addmm takes the transposed view as is."""
    x, W, b = running_example()
    Wt = W.detach().t()
    try:
        Wt.view(-1)
        view_error = None
    except RuntimeError as error:
        view_error = str(error)
    print(f"W.t().view(-1) raises: {view_error}")
    flat = Wt.reshape(-1)
    shares = flat.untyped_storage().data_ptr() == W.untyped_storage().data_ptr()
    print(f"W.t().reshape(-1) shares W's storage: {shares}")
    y = torch.addmm(b.detach(), x.detach(), Wt)
    print(f"addmm(b, x, W.t()) with a non-contiguous W.t(): shape {tuple(y.shape)}, "
          f"contiguous output {y.is_contiguous()}")
    return view_error, shares, y
# --8<-- [end:body]
