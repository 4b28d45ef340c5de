"""The results of no_grad and inference_mode in recorded operations.

An inference tensor can still be the input of a recorded operation (`y + b`); autograd only refuses to
save one for backward (`y * W.sum()` saves `y`).
"""

from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def inference_results(results):
    """Use the `no_grad` and `inference_mode` results of `grad_modes` in `y + b` and in `y * W.sum()`."""
    _, W, b = running_example()
    alone = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)
    print("the AutogradFunctionality key inference_mode excludes, alone in a set, prints as", alone)
    outcomes = {}
    for name in ("no_grad", "inference_mode"):
        y = results[name][2]
        added = y + b  # a recorded operation that saves neither input
        (grad_b,) = torch.autograd.grad(added.sum(), b)
        print(f"{name} result in y + b (add saves no input): grad_fn {type(added.grad_fn).__name__},",
              f"backward gives b a gradient of shape {tuple(grad_b.shape)}")
        try:
            (y * W.sum()).sum().backward()  # mul saves y, to compute the gradient of W.sum()
            outcomes[name] = "fine"
        except RuntimeError as err:
            outcomes[name] = f"RuntimeError: {str(err).split('. ')[0]}."
        print(f"{name} result in y * W.sum() (mul saves y): {outcomes[name]}")
    return outcomes
# --8<-- [end:body]
