"""Step 3 of lab 01: the MLP's gradients from the real graph and the hand formulas alone, checked with `check`."""

from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.by_hand import backward_by_hand, hand_formulas
from snippets.lab01.check import check
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


TOLERANCE = {torch.float32: 1e-6, torch.float64: 1e-12}  # rounding noise sits far below both


def mlp_by_hand(dtype=torch.float32, formulas=None, tol=None):
    """`backward_by_hand(loss)` in `dtype`, each leaf's gradient checked with `check` under `tol`
    (`TOLERANCE[dtype]`); returns what `check` said for each leaf."""
    x, _, _ = running_example(dtype=dtype)
    W1, b1, W2, b2, target = mlp_params(dtype=dtype)
    _, _, loss = mlp_forward(x, W1, b1, W2, b2, target)
    hand = backward_by_hand(loss, formulas or hand_formulas())
    print(str(dtype).removeprefix("torch.") + ":")
    return {name: check(name, hand[leaf], dtype, tol or TOLERANCE[dtype])
            for name, leaf in (("x", x), ("W1", W1), ("b1", b1), ("W2", W2), ("b2", b2))}
# --8<-- [end:body]
