"""DDP: every rank holds the whole head; gradients are averaged by an all-reduce during backward.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.ddp`
"""

from snippets.distributed.observe import bytes_after_adam_step, gloo_calls, holdings, labelled, profiled
from snippets.distributed.ranks import gathered, grads_within, process_group, same_on_every_rank
from snippets.distributed.workload import local_batch, loss_of

# --8<-- [start:body]
import copy

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def ddp_rank():
    """One DDP step on this rank: returns what it observed (`labelled`: each label in every language)."""
    with process_group() as (rank, world):
        torch.manual_seed(rank)  # different initial weights on purpose: DDP must fix that
        model = nn.Linear(64, 600)
        first = gathered(model.weight)[0]  # rank 0's initial weights
        seen = {"weights differ across ranks before wrapping": not same_on_every_rank(model.weight)}
        with profiled() as wrapping:
            ddp = DDP(model)  # makes every rank start from rank 0's parameters
        seen["gloo calls while wrapping (bytes each)"] = gloo_calls(wrapping)
        seen["weights equal rank 0's initial weights after wrapping"] = torch.equal(model.weight, first)
        alone = copy.deepcopy(model)  # the same weights, trained without DDP
        x, y = local_batch(rank)  # each rank its own batch
        loss_of(alone(x), y).backward()
        with profiled() as step:
            loss_of(ddp(x), y).backward()  # DDP all-reduces gradient buckets as backward produces them
        seen["gloo calls in forward + backward (bytes each)"] = gloo_calls(step)
        seen["gradients equal the mean of the ranks' local gradients"] = grads_within(model, alone, 1e-5, average=True)
        return labelled({**seen, **holdings(model), "bytes held after an Adam step": bytes_after_adam_step(model)})
# --8<-- [end:body]


if __name__ == "__main__":
    print(ddp_rank())
