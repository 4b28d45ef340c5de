"""The running example of every page: the grammar MiniGPT's LM head, `F.linear(x, W, b)`."""

import torch


def running_example(seed: int = 42, dtype: torch.dtype = torch.float32):
    """x (2, 64), W (600, 64) and b (600,), all requiring grad, drawn from a fixed seed."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(2, 64, generator=gen, dtype=dtype, requires_grad=True)
    W = torch.randn(600, 64, generator=gen, dtype=dtype, requires_grad=True)
    b = torch.randn(600, generator=gen, dtype=dtype, requires_grad=True)
    return x, W, b
