"""FSDP2: each rank stores a shard of every parameter; all-gather for compute, reduce-scatter for gradients.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.fsdp`
"""

from hood.capture.common import max_diff
from snippets.distributed.observe import bytes_after_adam_step, holdings, labelled, observing
from snippets.distributed.ranks import mean_over_ranks, process_group
from snippets.distributed.workload import local_batch, loss_of

# --8<-- [start:body]
import copy

import torch
import torch.nn as nn
from torch.distributed.fsdp import fully_shard


def fsdp_rank():
    """One FSDP2 step on this rank: returns what it observed."""
    with process_group() as (rank, world):
        torch.manual_seed(0)
        model = nn.Linear(64, 600)
        unsharded = copy.deepcopy(model)  # the same weights, kept whole
        fully_shard(model)  # parameters become DTensors, split along dim 0 across the ranks
        x, y = local_batch(rank)
        with observing("forward") as forward:
            loss = loss_of(model(x), y)
        with observing("backward") as backward:
            loss.backward()
        loss_of(unsharded(x), y).backward()
        my_rows = mean_over_ranks(unsharded.weight.grad).chunk(world, dim=0)[rank]
        return labelled({
            **holdings(model), **forward, **backward,
            "local gradient shard equals this rank's rows of the mean gradient":
                max_diff(model.weight.grad.to_local(), my_rows, 1e-5).within,
            "bytes held after an Adam step": bytes_after_adam_step(model),
        })
# --8<-- [end:body]


if __name__ == "__main__":
    print(fsdp_rank())
