"""The NLL and log-softmax formulas, fed from what the nodes saved, checked with `check`."""

from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.check import check
from snippets.lab01.formulas import log_softmax_backward, nll_loss_backward
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def check_head_formulas():
    """d logp from NllLossBackward0's formula, then d z2 from LogSoftmaxBackward0's, each checked."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    nll, log_softmax = loss.grad_fn, logp.grad_fn
    d_logp = nll_loss_backward(torch.tensor(1.0), nll._saved_self, nll._saved_target, nll._saved_total_weight)
    d_z2 = log_softmax_backward(d_logp, log_softmax._saved_result)
    return check("logp", d_logp), check("z2", d_z2)
# --8<-- [end:body]
