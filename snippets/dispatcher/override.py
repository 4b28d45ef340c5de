"""Theory 01: override the CPU kernel of an existing ATen operator from Python, then restore it."""

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

    rows = {"before": slot("aten::add.Tensor", "CPU")}
    lib = torch.library.Library("aten", "IMPL")  # add kernels to an existing namespace
    try:
        with warnings.catch_warnings():  # torch warns once that a kernel is being overridden
            warnings.simplefilter("ignore")
            lib.impl("add.Tensor", add_cpu, "CPU")
        rows["overridden"], result = slot("aten::add.Tensor", "CPU"), (a + a).tolist()
    finally:
        lib._destroy()  # unregister: the previous kernel is back
    rows["restored"] = slot("aten::add.Tensor", "CPU")
    for when, row in rows.items():
        print(f"CPU slot of aten::add.Tensor, {when:<10}: {row}")
    print(f"a + a while overridden: {result}, calls seen by add_cpu: {len(calls)}")
    print(f"a + a after: {(a + a).tolist()}, calls seen by add_cpu: {len(calls)}")
    return rows, result, calls
# --8<-- [end:body]
