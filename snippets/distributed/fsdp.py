"""FSDP2: each rank stores a shard of every parameter; all-gather for compute, reduce-scatter for gradients.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.fsdp`
"""

from hood.capture.common import max_diff
from snippets.distributed.observe import (comm_counts, describe, gloo_calls, local_batch, loss_of, mean_over_ranks,
                                         profiled)

# --8<-- [start:body]
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor.debug import CommDebugMode


def fsdp_rank():
    """One FSDP2 step on this rank: returns what it observed."""
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    try:
        torch.manual_seed(0)
        model = nn.Linear(64, 600)
        unsharded = copy.deepcopy(model)
        fully_shard(model)  # parameters become DTensors, split along dim 0 across the ranks
        x, y = local_batch(rank)
        forward, backward = CommDebugMode(), CommDebugMode()
        with profiled() as fwd_prof, forward:
            loss = loss_of(model(x), y)
        with profiled() as bwd_prof, backward:
            loss.backward()
        loss_of(unsharded(x), y).backward()
        my_rows = mean_over_ranks(unsharded.weight.grad).chunk(world, dim=0)[rank]
        same = max_diff(model.weight.grad.to_local(), my_rows, 1e-5).within
        assert same
        return {
            "weight": describe(model.weight),
            "bias": describe(model.bias),
            "forward asks for": comm_counts(forward),
            "forward, gloo runs": gloo_calls(fwd_prof),
            "backward asks for": comm_counts(backward),
            "backward, gloo runs": gloo_calls(bwd_prof),
            "weight.grad": describe(model.weight.grad),
            "local gradient shard equals this rank's rows of the mean gradient": same,
        }
    finally:
        dist.destroy_process_group()
# --8<-- [end:body]


if __name__ == "__main__":
    print(fsdp_rank())
