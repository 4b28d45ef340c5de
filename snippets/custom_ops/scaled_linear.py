"""`hood::scaled_linear(x, W, b, scale)`: the LM head's logits times 1 / temperature, as a custom op."""

# --8<-- [start:body]
import torch
from torch import Tensor


def define_scaled_linear(name="hood::scaled_linear", *, fake=True, autograd=True):
    """Register `scale * (x @ W.T + b)` as the op `name`; `fake=False`, `autograd=False` leave parts out."""

    @torch.library.custom_op(name, mutates_args=())
    def scaled_linear(x: Tensor, W: Tensor, b: Tensor, scale: float) -> Tensor:
        return torch.addmm(b, x, W.t()) * scale  # the real kernel, below autograd: nothing in it is recorded

    def scaled_linear_fake(x, W, b, scale):
        return x.new_empty(x.shape[0], W.shape[0])  # shape, dtype and device only: no data is computed

    def setup_context(ctx, inputs, output):
        x, W, b, scale = inputs
        ctx.save_for_backward(x, W)
        ctx.scale = scale

    def backward(ctx, grad):
        x, W = ctx.saved_tensors
        g = grad * ctx.scale  # torch ops all along, so the backward can itself be differentiated
        return g @ W, g.t() @ x, g.sum(0), None  # dx, dW, db, and nothing for the float

    if fake:
        scaled_linear.register_fake(scaled_linear_fake)
    if autograd:
        scaled_linear.register_autograd(backward, setup_context=setup_context)
    return scaled_linear
# --8<-- [end:body]
