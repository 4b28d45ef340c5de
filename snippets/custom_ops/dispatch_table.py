"""What torch.library.custom_op registers with the dispatcher, and the rows a CPU call meets."""

import torch

from hood.capture.common import dispatch_table, words
from hood.capture.custom_ops import dispatch_rows, registrations, render_registrations, render_rows
from snippets.custom_ops.scaled_linear import define_scaled_linear

# --8<-- [start:body]
def show_dispatch_table(qualname="hood::scaled_linear"):
    """Registrations and call-path rows of the (defined) op, and of a twin without fake or backward."""
    define_scaled_linear(qualname + "_bare", fake=False, autograd=False)
    full, bare = registrations(qualname), registrations(qualname + "_bare")
    print(render_registrations(*full))
    print()
    print(words(en="the twin without fake kernel or backward registers the same keys:",
                es="el gemelo sin kernel fake ni backward registra las mismas claves:"),
          [r.key for r in full[1]] == [r.key for r in bare[1]])
    print()
    print(render_rows(dispatch_rows(qualname)))
    return full, bare, dispatch_rows(qualname)
# --8<-- [end:body]


# --8<-- [start:variants]
from torch import Tensor


def other_registrations():
    """What `custom_op` registers for an op that mutates its input, and for one limited to `device_types="cpu"`."""

    @torch.library.custom_op("hood::scale_", mutates_args=("x",))
    def scale_(x: Tensor, scale: float) -> None:
        x.mul_(scale)  # mutates x, as mutates_args says

    @torch.library.custom_op("hood::scaled_linear_cpu", mutates_args=(), device_types="cpu")
    def scaled_linear_cpu(x: Tensor, W: Tensor, b: Tensor, scale: float) -> Tensor:
        return torch.addmm(b, x, W.t()) * scale

    found = {}
    for qualname in ("hood::scale_", "hood::scaled_linear_cpu"):
        found[qualname] = registrations(qualname)
        print(render_registrations(*found[qualname]))
        table = dispatch_table(qualname)
        none = words(en="none", es="ninguna")
        print(words(en="  computed table, CPU and CUDA rows:", es="  tabla calculada, filas CPU y CUDA:"),
              "; ".join(f"{k} {table[k].kind}" if k in table else f"{k} {none}" for k in ("CPU", "CUDA")))
    return found
# --8<-- [end:variants]
