"""Only leaves keep their .grad; retain_grad() asks autograd to keep a non-leaf's gradient too."""

from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import warnings

import torch
import torch.nn.functional as F


def retain_grad_demo():
    """Backward twice through `F.linear`: once plain, once with `y.retain_grad()`."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    print("y.is_leaf:", y.is_leaf, "| W.is_leaf:", W.is_leaf)
    y.sum().backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plain = y.grad
    print(words(en="without retain_grad: y.grad is", es="sin retain_grad: y.grad es"), plain)
    print(words(en="  warning:", es="  aviso:"), str(caught[0].message).split(". ")[0] + ".")
    y = F.linear(x, W, b)
    y.retain_grad()
    y.sum().backward()
    all_ones = torch.equal(y.grad, torch.ones_like(y))
    print(words(en="with retain_grad: y.grad", es="con retain_grad: y.grad"), tuple(y.grad.shape),
          words(en="all ones:", es="todo unos:"), all_ones)
    twice = torch.equal(W.grad, 2 * x.sum(0).expand_as(W))  # one pass gives x.sum(0) in every row
    print(words(en="W.grad accumulated over the two backward passes:",
                es="W.grad acumulado en las dos pasadas de backward:"), twice)
    return plain, y.grad
# --8<-- [end:body]
