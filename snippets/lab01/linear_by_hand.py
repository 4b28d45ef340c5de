"""Step 2 of lab 01: the three gradients of linear(x, W, b), from AddmmBackward0's saved tensors."""

from hood.capture.common import max_diff, words
from hood.capture.custom_ops import first_line
from snippets.lab01.formulas import addmm_backward, t_backward
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def linear_by_hand():
    """Backward through `F.linear` with a random upstream gradient, by autograd and by hand."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    g = torch.randn(y.shape, generator=torch.Generator().manual_seed(1))  # dL/dy for some loss L
    node = y.grad_fn  # AddmmBackward0: y = b + mat1 @ mat2 with mat1 = x, mat2 = W.t()
    mat1, mat2 = node._saved_mat1, node._saved_mat2  # read them now: backward frees them
    y.backward(g)
    d_b, d_x, d_Wt = addmm_backward(g, mat1, mat2)
    d_W = t_backward(d_Wt)  # TBackward0 turns d(W.t()) into dW
    hand = {"x": d_x, "W": d_W, "b": d_b}
    for name, leaf in (("x", x), ("W", W), ("b", b)):
        bound = max_diff(hand[name], leaf.grad, 1e-6)
        print(f"d{name}:", words(en=f"shape {tuple(hand[name].shape)}, max |hand - autograd| {bound}",
                                 es=f"forma {tuple(hand[name].shape)}, diferencia máxima con autograd {bound}"))
    print(words(en="without the sum over the batch, db would have shape",
                es="sin la suma sobre el lote, db tendría forma"), tuple(g.shape),
          words(en="but b has", es="pero b tiene"), tuple(b.shape))
    try:
        _ = node._saved_mat1
    except RuntimeError as err:
        print(words(en="after backward,", es="tras el backward,"), "node._saved_mat1 ->",
              first_line(err).split(". ")[0] + ".")
    return hand, {"x": x.grad, "W": W.grad, "b": b.grad}
# --8<-- [end:body]
