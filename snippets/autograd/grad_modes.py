"""no_grad versus inference_mode, seen in the thread-local dispatch key sets and in the results.

An inference tensor can still be the input of a recorded operation (`y + b`); autograd only refuses to
save one for backward (`y * W.sum()` saves `y`).
"""

from hood.capture.autograd import call_key_set, render_key_changes, tls_keys
from snippets.running_example import running_example

# --8<-- [start:body]
from contextlib import nullcontext

import torch
import torch.nn.functional as F


def grad_modes():
    """Run `F.linear` by default, under `torch.no_grad()` and under `torch.inference_mode()`."""
    x, W, b = running_example()
    default = tls_keys()
    print("default include:", ", ".join(default.include))
    print("default exclude:", ", ".join(default.exclude))
    results = {}
    for name, mode in (("default", nullcontext()), ("no_grad", torch.no_grad()),
                       ("inference_mode", torch.inference_mode())):
        with mode:
            keys, (call_keys, first) = tls_keys(), call_key_set(x, W, b)
            y = F.linear(x, W, b)
            grad_enabled = torch.is_grad_enabled()
        results[name] = (keys, first, y)
        print()
        excluded = keys.autograd_excluded
        print(f"{name}: grad enabled {grad_enabled}; autograd key excluded {excluded}")
        print("  TLS:", render_key_changes(default, keys))
        if excluded:  # excluded too, but a key set holding only that key prints empty
            alone = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)
            print("  the excluded AutogradFunctionality key, alone in a set, prints as", alone)
        print(f"  a call on x, W, b: {', '.join(call_keys)} -> starts at {first}")
        grad_fn = type(y.grad_fn).__name__ if y.grad_fn is not None else None
        print(f"  y.requires_grad {y.requires_grad}, y.grad_fn {grad_fn}, "
              f"y.is_inference() {y.is_inference()}")
        print("  keys of y:", torch._C._dispatch_keys(y))
    print()
    for name in ("no_grad", "inference_mode"):
        y = results[name][2]
        added = y + b  # a recorded operation that saves neither input
        (grad_b,) = torch.autograd.grad(added.sum(), b)
        print(f"{name} result in y + b (add saves no input): grad_fn {type(added.grad_fn).__name__},",
              f"backward gives b a gradient of shape {tuple(grad_b.shape)}")
        try:
            (y * W.sum()).sum().backward()  # mul saves y, to compute the gradient of W.sum()
            outcome = "fine"
        except RuntimeError as err:
            outcome = f"RuntimeError: {str(err).split('. ')[0]}."
        print(f"{name} result in y * W.sum() (mul saves y): {outcome}")
    return results
# --8<-- [end:body]
