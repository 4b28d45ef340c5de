"""Tensor parallel: one layer's weight split across ranks; a column-wise then a row-wise layer need one all-reduce.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.tensor_parallel`
"""

from hood.capture.common import max_diff
from snippets.distributed.observe import comm_counts, describe, gloo_calls, profiled

# --8<-- [start:body]
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor.debug import CommDebugMode
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module


def tp_rank():
    """A forward and backward of a two-layer block split across the ranks: returns what this rank observed."""
    dist.init_process_group("gloo")
    try:
        mesh = init_device_mesh("cpu", (dist.get_world_size(),))
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 600))
        reference = copy.deepcopy(model)
        parallelize_module(model, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
        # the same input on every rank
        x = torch.randn(4, 64, generator=torch.Generator().manual_seed(7), requires_grad=True)
        forward, backward = CommDebugMode(), CommDebugMode()
        # The all-reduces are asynchronous (functional collectives): using a result waits for it, so each
        # region uses its result before it ends, or the profiler could close before gloo has run the call.
        with profiled() as fwd_prof, forward:
            y = model(x)
            loss = y.sum()
        with profiled() as bwd_prof, backward:
            loss.backward()
            x_grad = x.grad.clone()
        x_ref = x.detach().clone().requires_grad_()
        y_ref = reference(x_ref)
        y_ref.sum().backward()
        return {
            **{name: describe(p) for name, p in model.named_parameters()},
            "forward asks for": comm_counts(forward),
            "forward, gloo runs": gloo_calls(fwd_prof),
            "backward asks for": comm_counts(backward),
            "backward, gloo runs": gloo_calls(bwd_prof),
            "output equals the unsplit block's within 1e-4": max_diff(y, y_ref, 1e-4).within,
            "input gradient equals the unsplit block's within 1e-4": max_diff(x_grad, x_ref.grad, 1e-4).within,
        }
    finally:
        dist.destroy_process_group()
# --8<-- [end:body]


if __name__ == "__main__":
    print(tp_rank())
