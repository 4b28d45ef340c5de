"""Theory 01: the keys a tensor carries, and how thread-local state changes which key fires."""

from hood.capture.common import words
from hood.capture.keys import key_view, render_key_views
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def tensor_key_sets():
    """The dispatch keys that different tensors carry: dtypes, requires_grad, devices, layouts."""
    x, W, b = running_example()
    views = [
        key_view("x: float32, requires_grad=True", x),
        key_view("x.detach(): requires_grad=False", x.detach()),
        key_view("x.half(): float16", x.detach().half()),
        key_view("torch.arange(3): int64", torch.arange(3)),
        key_view("torch.empty(2, 64, device='meta')", torch.empty(2, 64, device="meta")),
        key_view("x.to_sparse(): " + words(en="sparse COO", es="disperso (COO)"), x.detach().to_sparse()),
    ]
    print(render_key_views(views, show_tls=False))
    return views
# --8<-- [end:body]


# --8<-- [start:made]
def made_differently():
    """Keys that depend on how a tensor was made: an inference tensor, and the lazy views of a complex tensor."""
    with torch.inference_mode():
        made_inside = torch.ones(2, 64)  # an inference tensor: made under inference_mode
    z = torch.ones(2, dtype=torch.complex64)
    views = [
        key_view("torch.ones(2, 64) " + words(en="made under torch.inference_mode()",
                                              es="creado dentro de torch.inference_mode()"), made_inside),
        key_view("z.conj(): complex64, " + words(en="a conjugate view", es="una vista conjugada"), z.conj()),
        key_view("z.conj().imag: " + words(en="a negative view", es="una vista negada"), z.conj().imag),
    ]
    print(render_key_views(views, show_tls=False))
    return views
# --8<-- [end:made]
