"""DDP: every rank holds the whole head; gradients are averaged by an all-reduce during backward.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.ddp`
"""

from hood.capture.common import all_within
from snippets.distributed.observe import gloo_calls, local_batch, loss_of, mean_over_ranks, profiled

# --8<-- [start:body]
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def ddp_rank():
    """One DDP step on this rank: returns what it observed."""
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    try:
        torch.manual_seed(rank)  # different initial weights on purpose: DDP must fix that
        model = nn.Linear(64, 600)
        differ_before = not torch.equal(model.weight, mean_over_ranks(model.weight.detach()))
        with profiled() as wrapping:
            ddp = DDP(model)  # makes every rank start from rank 0's parameters
        same_after = torch.equal(model.weight, mean_over_ranks(model.weight.detach()))
        alone = copy.deepcopy(model)  # the same weights, trained without DDP
        x, y = local_batch(rank)
        loss_of(alone(x), y).backward()
        with profiled() as step:
            loss_of(ddp(x), y).backward()  # DDP all-reduces gradient buckets as backward produces them
        pairs = ((p.grad, mean_over_ranks(q.grad)) for p, q in zip(model.parameters(), alone.parameters()))
        same_grads = all_within(pairs, 1e-5)
        assert same_grads
        return {
            "weights differ across ranks before wrapping": differ_before,
            "gloo calls while wrapping": gloo_calls(wrapping),
            "weights identical on every rank after wrapping": same_after,
            "gloo calls in forward + backward": gloo_calls(step),
            "parameters": len(list(model.parameters())),
            "gradients equal the mean of the ranks' local gradients": same_grads,
        }
    finally:
        dist.destroy_process_group()
# --8<-- [end:body]


if __name__ == "__main__":
    print(ddp_rank())
