"""A small model on the custom op (define it first): the LM head at a temperature."""

from hood.capture.common import max_diff, words
from hood.capture.custom_ops import wrapper_calls
from snippets.custom_ops.record_ops import RecordOps
from snippets.running_example import running_example

# --8<-- [start:model]
import torch
import torch.nn.functional as F


class TemperatureHead(torch.nn.Module):
    """log_softmax(scaled_linear(x, W, b, 1 / temperature)): next-word log-probabilities."""

    def __init__(self, W, b, temperature=2.0):
        super().__init__()
        self.W = torch.nn.Parameter(W.detach().clone())
        self.b = torch.nn.Parameter(b.detach().clone())
        self.scale = 1.0 / temperature

    def forward(self, x):
        logits = torch.ops.hood.scaled_linear(x, self.W, self.b, self.scale)
        return torch.log_softmax(logits, dim=-1)


def head_trace():
    """The ATen-level ops of one eager forward of the head, as a TorchDispatchMode sees them."""
    x, W, b = running_example()
    head = TemperatureHead(W, b)
    with RecordOps() as rec:
        head(x)
    print(words(en="forward ops:", es="operaciones del forward:"), rec.ops)
    return rec.ops
# --8<-- [end:model]


# --8<-- [start:detach]
from torch.profiler import profile


def who_detaches():
    """Profile one forward of the head with no dispatch mode, then under `RecordOps`: is `aten::detach` called?"""
    x, W, b = running_example()
    head = TemperatureHead(W, b)
    with profile() as prof:
        head(x)
    plain = sum(e.name == "aten::detach" for e in prof.events())
    with RecordOps() as rec, profile() as prof:
        head(x)
    moded = sum(e.name == "aten::detach" for e in prof.events())

    def called(n):
        one = n == 1
        return words(en=f"aten::detach called {n} {'time' if one else 'times'}",
                     es=f"aten::detach se llamó {n} {'vez' if one else 'veces'}")

    print(words(en="profiler, no dispatch mode:", es="profiler, sin modo de dispatch:"), called(plain))
    print(words(en="profiler, under RecordOps: ", es="profiler, bajo RecordOps:      "), called(moded)
          + words(en="; RecordOps saw", es="; RecordOps vio"), rec.ops[-1])
    return plain, moded
# --8<-- [end:detach]


# --8<-- [start:body]
def train_step(model, x, target):
    """One forward and backward; returns the output and the gradients of x, W and b."""
    out = model(x)
    F.nll_loss(out, target).backward()
    return out, x.grad, model.W.grad, model.b.grad


def compiled_head():
    """Compile the head (fullgraph=True), run a training step, show the generated calls, compare."""
    from torch._inductor.utils import run_and_get_code
    x, W, b = running_example()
    target = torch.tensor([3, 17])
    head = TemperatureHead(W, b)
    compiled, codes = run_and_get_code(train_step, torch.compile(head, fullgraph=True), x, target)
    for part, code in zip(("forward", "backward"), codes):
        print(words(en=f"{part} wrapper, kernel calls:", es=f"wrapper del {part}, llamadas a kernels:"))
        for line in wrapper_calls(code):
            print("   ", line)
    x.grad, head.W.grad, head.b.grad = None, None, None
    eager = train_step(head, x, target)
    for name, c, e in zip(("output", "dx", "dW", "db"), compiled, eager):
        es_name = "salida" if name == "output" else name
        print(words(en=f"compiled vs eager {name}: max abs diff",
                    es=f"compilado frente a eager, {es_name}: diferencia absoluta máxima"), max_diff(c, e, 1e-4))
    return codes, compiled, eager
# --8<-- [end:body]
