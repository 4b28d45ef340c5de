"""Tensor parallel: one layer's weight split across ranks; a column-wise then a row-wise layer need one all-reduce.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.tensor_parallel`
"""

from hood.capture.common import max_diff
from snippets.distributed.observe import LocalCalls, bytes_after_adam_step, holdings, labelled, observing
from snippets.distributed.ranks import process_group
from snippets.distributed.workload import two_layers

# --8<-- [start:body]
import torch
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


def tp_rank():
    """A forward and backward of the two-layer block split across the ranks: returns what this rank observed."""
    with process_group() as (rank, world):
        model, reference = two_layers(), two_layers()  # the reference stays unsplit
        parallelize_module(model, init_device_mesh("cpu", (world,)), {"0": ColwiseParallel(), "2": RowwiseParallel()})
        x = torch.randn(4, 64, generator=torch.Generator().manual_seed(7), requires_grad=True)  # same on every rank
        with observing("forward") as forward:
            hidden = model[1](model[0](x))  # the column-wise layer, then ReLU
            with LocalCalls() as local:  # the row-wise layer, seen below DTensor
                y = model[2](hidden)
            loss = y.sum()
        with observing("backward") as backward:
            loss.backward()
            x_grad = x.grad.clone()  # read inside the region: the all-reduce is asynchronous, its result used
        reference(x_ref := x.detach().clone().requires_grad_()).sum().backward()
        return labelled({
            **holdings(model), **forward, **backward,
            "row-wise layer's local calls (views left out)": local.computed(),
            "bias its addmm adds equals b / 2": local.first("aten.addmm").equal(model[2].bias.to_local() / world),
            "output equals the unsplit block's within 1e-4": max_diff(y, reference(x_ref), 1e-4).within,
            "input gradient equals the unsplit block's within 1e-4": max_diff(x_grad, x_ref.grad, 1e-4).within,
            "bytes held after an Adam step": bytes_after_adam_step(model),
        })
# --8<-- [end:body]


if __name__ == "__main__":
    print(tp_rank())
