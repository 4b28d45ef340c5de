"""The custom op on the running example: its result, its backward node, fake and meta tensors."""

from hood.capture.common import words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensorMode


def custom_op_tour(scaled_linear):
    """Call the op on real, fake and meta tensors; look at its autograd node."""
    x, W, b = running_example()
    y = scaled_linear(x, W, b, 0.5)
    print(words(en="op:", es="operador:"), torch.ops.hood.scaled_linear.default)
    same = torch.equal(y, F.linear(x, W, b) * 0.5)
    print("y.shape:", tuple(y.shape), "|", words(en="equals", es="igual a"), "F.linear(x, W, b) * 0.5:", same)
    print("y.grad_fn:", type(y.grad_fn).__name__)
    nexts = [f"{type(fn).__name__}({name})" for (fn, _), name in zip(y.grad_fn.next_functions, "xWb")]
    print("next_functions:", nexts)
    print(words(en="saved tensors are x and W:", es="los tensores guardados son x y W:"),
          [t is v for t, v in zip(y.grad_fn.saved_tensors, (x, W))])
    with FakeTensorMode():
        fake = scaled_linear(torch.empty(2, 64), torch.empty(600, 64), torch.empty(600), 0.5)
    print(words(en="under FakeTensorMode:", es="bajo FakeTensorMode:"), fake)
    meta = scaled_linear(*(t.detach().to("meta") for t in (x, W, b)), 0.5)
    print(words(en="on meta tensors:", es="con tensores meta:"), meta)
    return y, fake, meta
# --8<-- [end:body]
