"""Step 4 of lab 01: the hand formulas as one autograd.Function, checked by gradcheck in float64."""

from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.formulas import (
    addmm_backward, log_softmax_backward, nll_loss_backward, relu_backward, t_backward,
)
from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:function]
import torch


class HandMLPLoss(torch.autograd.Function):
    """The MLP's loss whose backward is the hand-written formulas, chained in the graph's order."""

    @staticmethod
    def forward(ctx, x, W1, b1, W2, b2, target, log_softmax_bwd):
        h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
        ctx.save_for_backward(x, W1, W2, h, logp, target)
        ctx.log_softmax_bwd = log_softmax_bwd
        return loss

    @staticmethod
    def backward(ctx, grad):
        x, W1, W2, h, logp, target = ctx.saved_tensors
        d_logp = nll_loss_backward(grad, logp, target, len(target))
        d_z2 = ctx.log_softmax_bwd(d_logp, logp)
        d_b2, d_h, d_W2t = addmm_backward(d_z2, h, W2.t())
        d_z1 = relu_backward(d_h, h)
        d_b1, d_x, d_W1t = addmm_backward(d_z1, x, W1.t())
        return d_x, t_backward(d_W1t), d_b1, t_backward(d_W2t), d_b2, None, None
# --8<-- [end:function]


# --8<-- [start:body]
def gradcheck_hand(log_softmax_bwd=log_softmax_backward, *, only_x=False, raise_exception=False):
    """gradcheck (fast mode, float64) of `HandMLPLoss` with the given log_softmax backward.

    `only_x=True` checks the gradient of x alone: when fast mode fails, gradcheck explains the failure
    in slow mode, two forward passes per entry of every input that requires grad (171,696 for all five).
    """
    x, _, _ = running_example(dtype=torch.float64)
    W1, b1, W2, b2, target = mlp_params(dtype=torch.float64)
    if only_x:
        W1, b1, W2, b2 = (p.detach() for p in (W1, b1, W2, b2))
    return torch.autograd.gradcheck(
        lambda *params: HandMLPLoss.apply(*params, target, log_softmax_bwd),
        (x, W1, b1, W2, b2), fast_mode=True, raise_exception=raise_exception,
    )


def gradchecks():
    """gradcheck on autograd's own MLP and on the hand-written one."""
    x, _, _ = running_example(dtype=torch.float64)
    W1, b1, W2, b2, target = mlp_params(dtype=torch.float64)
    params = (x, W1, b1, W2, b2)
    own = torch.autograd.gradcheck(lambda *p: mlp_forward(*p, target)[2], params, fast_mode=True)
    print(words(en="gradcheck, autograd's formulas (float64, fast mode):",
                es="gradcheck, fórmulas de autograd (float64, modo rápido):"), own)
    print(words(en="gradcheck, hand formulas       (float64, fast mode):",
                es="gradcheck, fórmulas a mano      (float64, modo rápido):"), gradcheck_hand())
    return own, gradcheck_hand()
# --8<-- [end:body]
