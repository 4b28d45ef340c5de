"""Theory 01: the keys a tensor carries, and how thread-local state changes which key fires."""

from hood.capture.keys import key_view, render_key_views
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def tensor_key_sets():
    """The dispatch keys that different tensors carry."""
    x, W, b = running_example()
    views = [
        key_view("x: float32, requires_grad=True", x),
        key_view("x.detach(): requires_grad=False", x.detach()),
        key_view("x.half(): float16", x.detach().half()),
        key_view("torch.arange(3): int64", torch.arange(3)),
        key_view("torch.empty(2, 64, device='meta')", torch.empty(2, 64, device="meta")),
        key_view("x.to_sparse(): sparse COO", x.detach().to_sparse()),
    ]
    print(render_key_views(views, show_tls=False))
    return views
# --8<-- [end:body]
