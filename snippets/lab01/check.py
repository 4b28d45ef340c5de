"""`check(name, mine)`: a gradient you derived for the MLP's loss, against the one autograd computes."""

from hood.capture.common import max_diff, words
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.running_example import running_example

# --8<-- [start:gradients]
import torch


def autograd_gradients(dtype=torch.float32):
    """Autograd's gradients of the MLP's loss in `dtype`: leaves, h, logp, and z1, z2 (what relu and log_softmax
    received)."""
    x, _, _ = running_example(dtype=dtype)
    W1, b1, W2, b2, target = mlp_params(dtype=dtype)
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    grads = {}
    for name, node in (("z1", h.grad_fn), ("z2", logp.grad_fn)):  # ReluBackward0, LogSoftmaxBackward0
        node.register_hook(lambda grad_inputs, grad_outputs, name=name: grads.update({name: grad_inputs[0]}))
    tensors = {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "logp": logp}
    grads.update(zip(tensors, torch.autograd.grad(loss, list(tensors.values()))))
    return grads
# --8<-- [end:gradients]


# --8<-- [start:body]
WRONG = words(en="wrong", es="incorrecto")
"""The verdict `check` ends a line with when a gradient is off by more than `tol`."""


def check(name, mine, dtype=torch.float32, tol=1e-6):
    """Compare `mine`, your gradient of the loss for `name` (x, W1, b1, W2, b2, h, logp, z1, z2), with the one
    autograd computes in `dtype`: right when they differ by less than `tol`."""
    real = autograd_gradients(dtype)[name]
    if mine.dtype != dtype:
        print(f"{name}:", words(en=f"wrong dtype {mine.dtype}, the check runs in {dtype}",
                                es=f"dtype equivocado {mine.dtype}, la comprobación se hace en {dtype}"))
        return False
    if tuple(mine.shape) != tuple(real.shape):
        print(f"{name}:", words(en=f"wrong shape {tuple(mine.shape)}, autograd's is {tuple(real.shape)}",
                                es=f"forma equivocada {tuple(mine.shape)}, la de autograd es {tuple(real.shape)}"))
        return False
    agreement = max_diff(mine, real, tol)
    verdict = words(en="right", es="correcto") if agreement.within else WRONG
    print(f"{name}:", words(en=f"max |mine - autograd| {agreement}:",
                            es=f"diferencia máxima con autograd {agreement}:"), verdict)
    return agreement.within
# --8<-- [end:body]
