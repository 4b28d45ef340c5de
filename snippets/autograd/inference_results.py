"""The results of no_grad and inference_mode in recorded operations.

An inference tensor can still be the input of a recorded operation (`y + b`); autograd only refuses to
save one for backward (`y * W.sum()` saves `y`).
"""

from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch


def inference_results(results):
    """Use the `no_grad` and `inference_mode` results of `grad_modes` in `y + b` and in `y * W.sum()`."""
    _, W, b = running_example()
    alone = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)
    print(words(en="the AutogradFunctionality key inference_mode excludes, alone in a set, prints as",
                es="la clave AutogradFunctionality, excluida por inference_mode, sola en un conjunto se imprime como"),
          alone)
    outcomes = {}
    for name in ("no_grad", "inference_mode"):
        y = results[name][2]
        added = y + b  # a recorded operation that saves neither input
        (grad_b,) = torch.autograd.grad(added.sum(), b)
        gives = words(en="backward gives b a gradient of shape", es="el backward le da a b un gradiente de forma")
        print(words(en=f"{name} result in y + b (add saves no input):",
                    es=f"resultado de {name} en y + b (add no guarda ninguna entrada):"),
              f"grad_fn {type(added.grad_fn).__name__},", gives, tuple(grad_b.shape))
        try:
            (y * W.sum()).sum().backward()  # mul saves y, to compute the gradient of W.sum()
            outcomes[name] = words(en="fine", es="funciona")
        except RuntimeError as err:
            outcomes[name] = f"RuntimeError: {str(err).split('. ')[0]}."
        print(words(en=f"{name} result in y * W.sum() (mul saves y):",
                    es=f"resultado de {name} en y * W.sum() (mul guarda y):"), outcomes[name])
    return outcomes
# --8<-- [end:body]
