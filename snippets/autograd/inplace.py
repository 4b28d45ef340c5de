"""In-place operations and the version counter: the check autograd makes on every saved tensor."""

from hood.capture.common import words
from hood.capture.custom_ops import first_line
from snippets.running_example import running_example

import torch

# --8<-- [start:body]
import torch.nn.functional as F


def version_counter():
    """Modify in place a tensor `exp` saved for backward, run backward, then the out-of-place fix; then a leaf."""
    x, W, b = running_example()
    h = F.linear(x, W, b).exp()  # exp saves its output h: the derivative of exp is exp
    versions = [h._version]
    h.add_(1)  # an in-place op bumps the version counter
    versions.append(h._version)
    h[0, 0] = 0.0  # an indexed write is in place too
    versions.append(h._version)
    h[1].mul_(2)  # a view shares its base's counter
    versions.append(h._version)
    print(words(en="h._version after", es="h._version tras"), "exp, h.add_(1), h[0, 0] = 0.0, h[1].mul_(2):", versions)
    error = None
    try:
        h.sum().backward()
    except RuntimeError as err:
        error = str(err).split(" Hint:")[0]
    print("backward:", error)
    h = F.linear(x, W, b).exp()
    h = h + 1  # out of place: a new tensor; the h that exp saved keeps version 0
    h.sum().backward()
    print(words(en="out of place, h = h + 1: backward runs; W.grad",
                es="sin in-place, h = h + 1: el backward funciona; W.grad"), tuple(W.grad.shape))
    leaf_in_place(b)  # b is a leaf that requires grad, saved by no node (setup block)
    return versions, error
# --8<-- [end:body]


# --8<-- [start:leaf]
def leaf_in_place(b):
    """`b.add_(1)` on a leaf that requires grad, then under `torch.no_grad()` (what an optimiser step does)."""
    on_leaf = words(en="b.add_(1) on the leaf b:", es="b.add_(1) sobre la hoja b:")
    try:
        b.add_(1)
        print(on_leaf, words(en="fine", es="funciona"))
    except RuntimeError as err:
        print(on_leaf, first_line(err))
    with torch.no_grad():
        b.add_(1)
    print(words(en="under no_grad, b.add_(1): fine;", es="bajo no_grad, b.add_(1): funciona;"),
          "b._version", b._version)
# --8<-- [end:leaf]
