"""Theory 01: when contiguity matters: view(), reshape() and addmm on a transposed W."""

from snippets.running_example import running_example

# --8<-- [start:body]
import torch


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
