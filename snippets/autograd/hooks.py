"""Hooks on tensors and on graph nodes, and the order in which backward fires them."""

from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def hook_order():
    """Register every kind of backward hook around `F.linear(x, W, b)`; print the firing order."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    addmm = y.grad_fn
    t_node = addmm.next_functions[2][0]  # TBackward0, on the way to W
    fired, on, of = [], words(en="tensor hook on", es="hook de tensor en"), words(en="of", es="de")
    y.register_hook(lambda grad: fired.append(f"{on} y"))
    addmm.register_prehook(lambda grad_outputs: fired.append(f"prehook {of} AddmmBackward0"))
    addmm.register_hook(lambda grad_inputs, grad_outputs: fired.append(f"hook {of} AddmmBackward0"))
    t_node.register_prehook(lambda grad_outputs: fired.append(f"prehook {of} TBackward0"))
    t_node.register_hook(lambda grad_inputs, grad_outputs: fired.append(f"hook {of} TBackward0"))
    for name, leaf in (("x", x), ("W", W), ("b", b)):
        leaf.register_hook(lambda grad, name=name: fired.append(f"{on} {name}"))
    W.register_post_accumulate_grad_hook(
        lambda param: fired.append(words(en="post-accumulate-grad hook on W", es="hook post-acumulación en W")))
    b.register_hook(lambda grad: grad * 2)  # a tensor hook may return a replacement gradient
    y.sum().backward()
    for step, event in enumerate(fired, 1):
        print(f"{step:2d}. {event}")
    print()
    print(words(en="b.grad[:3] (2 rows summed, then doubled by the hook):",
                es="b.grad[:3] (las 2 filas sumadas y después duplicadas por el hook):"), b.grad[:3].tolist())
    return fired, b.grad
# --8<-- [end:body]
