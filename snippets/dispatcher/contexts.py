"""Theory 01: x under each context; the thread-local sets change, x's keys do not (vmap wraps it)."""

from hood.capture.common import words
from hood.capture.keys import key_view, render_key_views
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def context_key_sets():
    """x under each context: the thread-local sets change, x's keys do not; vmap's function gets a batched wrapper
    of x, whose keys add FuncTorchBatched."""
    x, W, b = running_example()
    views = [key_view(words(en="no context", es="sin contexto"), x)]
    with torch.no_grad():
        views.append(key_view("torch.no_grad()", x))
    with torch.inference_mode():
        views.append(key_view("torch.inference_mode()", x))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        views.append(key_view("torch.autocast('cpu', dtype=torch.bfloat16)", x))

    def look_inside_vmap(row):
        label = words(en="inside torch.vmap (one row of x)", es="dentro de torch.vmap (una fila de x)")
        views.append(key_view(label, row))
        return row

    torch.vmap(look_inside_vmap)(x)
    print(render_key_views(views))
    return views
# --8<-- [end:body]
