"""The tiny function every block of the reading page looks at: a product, a ReLU, a constant."""

# --8<-- [start:body]
import torch


def tiny(x, w):
    """relu(x @ w) + 1: three operators, small enough to read every line of every output."""
    return torch.relu(x @ w) + 1


def tiny_inputs(requires_grad: bool = True):
    """x (2, 3) and w (3, 4), drawn from a fixed seed."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, generator=gen, requires_grad=requires_grad)
    w = torch.randn(3, 4, generator=gen, requires_grad=requires_grad)
    return x, w
# --8<-- [end:body]
