"""Lab 00, exercises with executed solutions: tables per device, backward under a mode, vmap under a mode."""

from hood.capture.common import max_diff, words
from hood.capture.ops import OpLog, render_calls
from hood.capture.tables import render_tables, table_rows

# --8<-- [start:exercise_1]
import torch


def exercise_1_cpu_and_cuda_rows():
    """1. aten::add's CPU and CUDA slots, read from a CPU-only build (the table has a CUDA slot anyway)."""
    keys = ("CPU", "CUDA", "AutogradCPU", "AutogradCUDA")
    print(render_tables(["aten::add.Tensor", "aten::mm"], keys))
    return {op: {r.key: r for r in table_rows(op, keys)} for op in ("aten::add.Tensor", "aten::mm")}
# --8<-- [end:exercise_1]


# --8<-- [start:exercise_2]
def exercise_2_backward_under_a_mode():
    """2. With requires_grad=True, the mode also sees the backward pass: the ops autograd runs for you.

    A prehook and a hook on each node mark where the node starts and ends: each backward op is printed
    with the node that ran it, and each node with the strides of the gradient it received.
    """
    x = torch.randn(2, 3, requires_grad=True)
    y = torch.randn(2, 3)
    with OpLog() as log:
        out = (x + y).sum()
        forward = len(log.calls)
        spans, received = {}, {}  # node: (its first call, the call after its last); node: strides

        def watch(node, name):
            def before(grad_outputs):
                spans[name] = (len(log.calls), None)
                received[name] = grad_outputs[0].stride()

            def after(grad_inputs, grad_outputs):
                spans[name] = (spans[name][0], len(log.calls))

            node.register_prehook(before)
            node.register_hook(after)

        node = out.grad_fn
        while node is not None:  # SumBackward0, AddBackward0, AccumulateGrad (y needs no gradient)
            watch(node, type(node).__name__)
            node = next((n for n, _ in node.next_functions if n is not None), None)
        out.backward()

    def ran_by(i):
        inside = [name for name, (start, end) in spans.items() if start <= i < end]
        return inside[0] if inside else words(en="backward(), before any node", es="backward(), antes de ningún nodo")

    backward = [(ran_by(i), log.calls[i]) for i in range(forward, len(log.calls))]
    print(words(en=f"forward: {forward} ops, backward: {len(backward)} ops",
                es=f"forward: {forward} operadores, backward: {len(backward)} operadores"))
    print(render_calls(log.calls[:forward]))
    for name, call in backward:
        print(f"{name}: {render_calls([call])}")
    strides = ", ".join(f"{name} {stride}" for name, stride in received.items())
    print(words(en=f"gradient strides received: {strides} | x.grad strides: {x.grad.stride()}",
                es=f"strides del gradiente entrante: {strides} | strides de x.grad: {x.grad.stride()}"))
    return log.calls[:forward], backward, received
# --8<-- [end:exercise_2]


# --8<-- [start:exercise_3]
def per_sample(t):
    """The per-sample function of exercise 3: a few more ops than the original."""
    return (torch.exp(t) * torch.log1p(t * t) + t @ t).sum()


def exercise_3_vmap_under_a_mode():
    """3. vmap against a Python loop, then what the mode sees when vmap runs: batched ops, no loop."""
    batch = torch.randn(5, 4)
    looped = torch.stack([per_sample(row) for row in batch])
    with OpLog() as log:
        vmapped = torch.vmap(per_sample)(batch)
    agree = words(en="loop and vmap agree within 1e-3:",
                  es="el bucle y vmap coinciden con una diferencia menor que 1e-3:")
    print(agree, max_diff(looped, vmapped, 1e-3).within)
    print(render_calls(log.calls))
    return looped, vmapped, log.calls
# --8<-- [end:exercise_3]


# --8<-- [start:exercise_4]
def exercise_4_in_dims_out_dims():
    """4. in_dims picks which argument is batched (and along which dim); out_dims where the batch goes."""
    x = torch.randn(3, 5)          # batch of 5 along dim 1
    w = torch.randn(3)             # shared by every sample
    f = torch.vmap(lambda col, weight: col * weight, in_dims=(1, None), out_dims=1)
    out = f(x, w)
    print(f"x {tuple(x.shape)}, w {tuple(w.shape)} -> out {tuple(out.shape)}")
    print(words(en="same as x * w[:, None]:", es="igual que x * w[:, None]:"), torch.equal(out, x * w[:, None]))
    return out
# --8<-- [end:exercise_4]
