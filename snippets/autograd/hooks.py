"""Hooks on tensors and on graph nodes, and the order in which backward fires them."""

from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def hook_order():
    """Register every kind of backward hook around `F.linear(x, W, b)`; print the firing order."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    addmm = y.grad_fn
    t_node = addmm.next_functions[2][0]  # TBackward0, on the way to W
    fired = []
    y.register_hook(lambda grad: fired.append("tensor hook on y"))
    addmm.register_prehook(lambda grad_outputs: fired.append("prehook of AddmmBackward0"))
    addmm.register_hook(lambda grad_inputs, grad_outputs: fired.append("hook of AddmmBackward0"))
    t_node.register_prehook(lambda grad_outputs: fired.append("prehook of TBackward0"))
    t_node.register_hook(lambda grad_inputs, grad_outputs: fired.append("hook of TBackward0"))
    for name, leaf in (("x", x), ("W", W), ("b", b)):
        leaf.register_hook(lambda grad, name=name: fired.append(f"tensor hook on {name}"))
    W.register_post_accumulate_grad_hook(
        lambda param: fired.append("post-accumulate-grad hook on W"))
    b.register_hook(lambda grad: grad * 2)  # a tensor hook may return a replacement gradient
    y.sum().backward()
    for step, event in enumerate(fired, 1):
        print(f"{step:2d}. {event}")
    print()
    print("b.grad[:3] (2 rows summed, then doubled by the hook):", b.grad[:3].tolist())
    return fired, b.grad
# --8<-- [end:body]
