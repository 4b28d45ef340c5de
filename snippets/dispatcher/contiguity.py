"""Theory 01: when contiguity matters: view(), reshape() and addmm on a transposed W."""

from hood.capture.common import words
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
    print("W.t().view(-1)", words(en="raises:", es="lanza:"), view_error)
    flat = Wt.reshape(-1)
    shares = flat.untyped_storage().data_ptr() == W.untyped_storage().data_ptr()
    print("W.t().reshape(-1)", words(en="shares W's storage:", es="comparte el almacenamiento de W:"), shares)
    y = torch.addmm(b.detach(), x.detach(), Wt)
    shape, contiguous = tuple(y.shape), y.is_contiguous()
    print("addmm(b, x, W.t())", words(en=f"with a non-contiguous W.t(): shape {shape}, contiguous output {contiguous}",
                                      es=f"con una W.t() no contigua: forma {shape}, salida contigua {contiguous}"))
    return view_error, shares, y
# --8<-- [end:body]
