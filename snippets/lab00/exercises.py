"""Lab 00, exercises with executed solutions: tables per device, backward under a mode, vmap under a mode."""

from hood.capture.common import max_diff
from hood.capture.ops import OpLog, render_calls
from hood.capture.tables import render_tables, table_rows

# --8<-- [start:body]
import torch


def exercise_1_cpu_and_cuda_rows():
    """1. aten::add's CPU and CUDA slots, read from a CPU-only build (the table has a CUDA slot anyway)."""
    keys = ("CPU", "CUDA", "AutogradCPU", "AutogradCUDA")
    print(render_tables(["aten::add.Tensor", "aten::mm"], keys))
    return {op: {r.key: r for r in table_rows(op, keys)} for op in ("aten::add.Tensor", "aten::mm")}


def exercise_2_backward_under_a_mode():
    """2. With requires_grad=True, the mode also sees the backward pass: the ops autograd runs for you."""
    x = torch.randn(2, 3, requires_grad=True)
    y = torch.randn(2, 3)
    with OpLog() as log:
        out = (x + y).sum()
        forward = len(log.calls)
        out.backward()
    print(f"forward: {forward} ops, backward: {len(log.calls) - forward} ops")
    print(render_calls(log.calls))
    return log.calls[:forward], log.calls[forward:]


def per_sample(t):
    """The per-sample function of exercise 3: a few more ops than the original."""
    return (torch.exp(t) * torch.log1p(t * t) + t @ t).sum()


def exercise_3_vmap_under_a_mode():
    """3. vmap against a Python loop, then what the mode sees when vmap runs: batched ops, no loop."""
    batch = torch.randn(5, 4)
    looped = torch.stack([per_sample(row) for row in batch])
    with OpLog() as log:
        vmapped = torch.vmap(per_sample)(batch)
    print(f"loop and vmap agree within 1e-3: {max_diff(looped, vmapped, 1e-3).within}")
    print(render_calls(log.calls))
    return looped, vmapped, log.calls


def exercise_4_in_dims_out_dims():
    """4. in_dims picks which argument is batched (and along which dim); out_dims where the batch goes."""
    x = torch.randn(3, 5)          # batch of 5 along dim 1
    w = torch.randn(3)             # shared by every sample
    f = torch.vmap(lambda col, weight: col * weight, in_dims=(1, None), out_dims=1)
    out = f(x, w)
    print(f"x {tuple(x.shape)}, w {tuple(w.shape)} -> out {tuple(out.shape)}")
    print(f"same as x * w[:, None]: {torch.equal(out, x * w[:, None])}")
    return out
# --8<-- [end:body]
