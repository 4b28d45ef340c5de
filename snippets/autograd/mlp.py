"""A two-layer MLP head on the running example's shapes: 64 -> 128 -> 600, log-softmax, NLL loss."""

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def mlp_params(seed: int = 7, dtype: torch.dtype = torch.float32):
    """W1 (128, 64), b1 (128,), W2 (600, 128), b2 (600,), all requiring grad; two target word ids."""
    gen = torch.Generator().manual_seed(seed)
    W1 = (torch.randn(128, 64, generator=gen, dtype=dtype) / 8).requires_grad_()
    b1 = torch.randn(128, generator=gen, dtype=dtype).requires_grad_()
    W2 = (torch.randn(600, 128, generator=gen, dtype=dtype) / 11).requires_grad_()
    b2 = torch.randn(600, generator=gen, dtype=dtype).requires_grad_()
    target = torch.tensor([3, 17])
    return W1, b1, W2, b2, target


def mlp_forward(x, W1, b1, W2, b2, target):
    """h = relu(x W1^T + b1), logp = log_softmax(h W2^T + b2), loss = nll_loss(logp, target)."""
    h = F.relu(F.linear(x, W1, b1))
    logp = F.log_softmax(F.linear(h, W2, b2), dim=-1)
    loss = F.nll_loss(logp, target)
    return h, logp, loss
# --8<-- [end:body]
