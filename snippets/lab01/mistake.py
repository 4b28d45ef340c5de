"""Step 5 of lab 01: a subtly wrong log_softmax backward, and the two checks that catch it."""

from hood.capture.common import words
from hood.capture.custom_ops import first_line
from snippets.lab01.by_hand import hand_formulas
from snippets.lab01.formulas import log_softmax_backward_diagonal
from snippets.lab01.hand_function import gradcheck_hand
from snippets.lab01.mlp_by_hand import mlp_by_hand

# --8<-- [start:body]
from torch.autograd.gradcheck import GradcheckError


def catch_the_mistake():
    """Swap in `log_softmax_backward_diagonal`; compare with autograd, then run gradcheck."""
    diffs = mlp_by_hand(formulas=hand_formulas(log_softmax=log_softmax_backward_diagonal), tol=1e-3)
    print()
    caught = gradcheck_hand(log_softmax_backward_diagonal, only_x=True)
    print(words(en="gradcheck with respect to x returns:", es="gradcheck respecto de x devuelve:"), caught)
    try:
        gradcheck_hand(log_softmax_backward_diagonal, only_x=True, raise_exception=True)
    except GradcheckError as err:
        print(words(en="with raise_exception=True:", es="con raise_exception=True:"), first_line(err))
    return diffs
# --8<-- [end:body]
