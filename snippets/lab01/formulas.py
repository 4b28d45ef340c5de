"""The backward formula of every node in the lab's graphs, written by hand."""

# --8<-- [start:body]
import torch


def addmm_backward(grad, mat1, mat2, alpha=1, beta=1):
    """out = beta * bias + alpha * mat1 @ mat2 (bias broadcast over rows): (d bias, d mat1, d mat2)."""
    return beta * grad.sum(0), alpha * grad @ mat2.t(), alpha * mat1.t() @ grad


def t_backward(grad):
    """out = W.t(): the gradient of W is the incoming gradient transposed back."""
    return grad.t()


def relu_backward(grad, result):
    """out = relu(z), with out saved: the gradient passes where out > 0 and is 0 elsewhere."""
    return grad * (result > 0)


def log_softmax_backward(grad, result, dim=-1):
    """out = log_softmax(z), out saved: dz = grad - softmax(z) * grad.sum(dim), softmax(z) = exp(out)."""
    return grad - result.exp() * grad.sum(dim, keepdim=True)


def nll_loss_backward(grad, logp, target, total_weight):
    """loss = -sum_i logp[i, target[i]] / total_weight: d logp = -grad / total_weight at targets, else 0."""
    d_logp = torch.zeros_like(logp)
    d_logp[torch.arange(len(target)), target] = -grad / total_weight
    return d_logp
# --8<-- [end:body]


# --8<-- [start:signed]
def as_signed(value: int) -> int:
    """A saved int64 that Python received as unsigned (-1 shows as 2**64 - 1), back to its sign."""
    return value - 2**64 if value >= 2**63 else value
# --8<-- [end:signed]


# --8<-- [start:diagonal]
def log_softmax_backward_diagonal(grad, result, dim=-1):
    """Subtly wrong: only the diagonal of log_softmax's Jacobian, dz_i = grad_i * (1 - softmax_i)."""
    return grad * (1 - result.exp())
# --8<-- [end:diagonal]
