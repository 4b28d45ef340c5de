"""`hood::scaled_linear(x, W, b, scale)`: the LM head's logits times 1 / temperature, as a custom op."""

# --8<-- [start:body]
import torch
from torch import Tensor


def define_scaled_linear(name="hood::scaled_linear", *, fake=True, autograd=True):
    """Register `scale * (x @ W.T + b)` as the custom operator `name` and return it.

    `fake=False` or `autograd=False` leave the fake kernel or the backward out, to see what breaks.
    """

    @torch.library.custom_op(name, mutates_args=())
    def scaled_linear(x: Tensor, W: Tensor, b: Tensor, scale: float) -> Tensor:
        # The real kernel. It runs below the autograd key, so nothing inside it is recorded.
        return torch.addmm(b, x, W.t()) * scale

    def scaled_linear_fake(x, W, b, scale):
        # Shapes, dtype and device only: what FakeTensor, meta tensors and torch.compile need.
        return x.new_empty(x.shape[0], W.shape[0])

    def setup_context(ctx, inputs, output):
        x, W, b, scale = inputs
        ctx.save_for_backward(x, W)
        ctx.scale = scale

    def backward(ctx, grad):
        x, W = ctx.saved_tensors
        g = grad * ctx.scale
        # Made of differentiable torch ops, so the backward can itself be differentiated.
        return g @ W, g.t() @ x, g.sum(0), None  # dx, dW, db, and nothing for the float

    if fake:
        scaled_linear.register_fake(scaled_linear_fake)
    if autograd:
        scaled_linear.register_autograd(backward, setup_context=setup_context)
    return scaled_linear
# --8<-- [end:body]
