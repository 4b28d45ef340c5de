"""Theory 01: override the CPU kernel of an existing ATen operator from Python, then restore it."""

from hood.capture.common import words
from hood.capture.tables import slot

# --8<-- [start:body]
import warnings

import torch


def override_add():
    """Replace aten::add.Tensor's CPU kernel for the length of a `try`, then unregister it."""
    calls, a = [], torch.ones(3)

    def add_cpu(self, other, alpha=1):  # a + alpha * b, computed by another operator
        calls.append(tuple(self.shape))
        return torch.ops.aten.sub.Tensor(self, other, alpha=-alpha)

    rows = {words(en="before    ", es="antes     "): slot("aten::add.Tensor", "CPU")}  # padded: the colons align
    lib = torch.library.Library("aten", "IMPL")  # add kernels to an existing namespace
    try:
        with warnings.catch_warnings(action="ignore"):  # torch warns once that a kernel is being overridden
            lib.impl("add.Tensor", add_cpu, "CPU")
        rows[words(en="overridden", es="sustituida")], result = slot("aten::add.Tensor", "CPU"), (a + a).tolist()
    finally:
        lib._destroy()  # unregister: the previous kernel is back
    rows[words(en="restored  ", es="restaurada")] = slot("aten::add.Tensor", "CPU")
    seen = words(en="calls seen by add_cpu", es="llamadas a add_cpu")
    for when, row in rows.items():
        print(words(en="CPU slot of aten::add.Tensor,", es="casilla CPU de aten::add.Tensor,"), f"{when}: {row}")
    print(f"a + a {words(en='while overridden', es='con el kernel sustituido')}: {result}, {seen}: {len(calls)}")
    print(f"a + a {words(en='after', es='después')}: {(a + a).tolist()}, {seen}: {len(calls)}")
    return rows, result, calls
# --8<-- [end:body]
