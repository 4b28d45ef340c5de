"""A rank's process group, and comparisons of a tensor across the ranks (each rank gathers every copy)."""

from hood.capture.common import all_within

# --8<-- [start:body]
import atexit
from contextlib import contextmanager

import torch
import torch.distributed as dist


@contextmanager
def process_group():
    """Join the gloo process group torchrun describes in the environment; yields (rank, world size).

    The group is left when the process exits, not at the end of the block: the DDP or FSDP objects the block
    made are freed only when the function returns, and destroying the group under them can hang the rank.
    """
    dist.init_process_group("gloo")
    atexit.register(dist.destroy_process_group)
    yield dist.get_rank(), dist.get_world_size()


def gathered(t):
    """Every rank's copy of `t`, in rank order."""
    copies = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(copies, t.detach().contiguous())
    return copies


def mean_over_ranks(t):
    """The mean of `t` across all ranks."""
    return torch.stack(gathered(t)).mean(0)


def same_on_every_rank(t):
    """Whether every rank holds exactly the same values as this one."""
    return all(torch.equal(copy, t) for copy in gathered(t))


def grads_within(model, reference, tol, average=False):
    """Whether `model`'s gradients equal `reference`'s (first averaged over the ranks if `average`) within `tol`."""
    ref = [q.grad for q in reference.parameters()]
    ref = [mean_over_ranks(g) for g in ref] if average else ref  # every rank gathers all of them, then compares
    return all_within(zip((p.grad for p in model.parameters()), ref), tol)
# --8<-- [end:body]
