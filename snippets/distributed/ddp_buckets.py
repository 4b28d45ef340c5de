"""DDP's buckets over three steps: one bucket for everything on the first, rebuilt buckets from the second.

Four `Linear(512, 512)` layers, each weight 1 MiB in float32: large enough that the rebuilt buckets differ from
the first iteration's single bucket.
"""

from hood.capture.common import grouped, words
from snippets.distributed.observe import gloo_calls, profiled, said
from snippets.distributed.ranks import process_group

# --8<-- [start:body]
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def buckets_rank(steps=3, **options):
    """`steps` DDP steps of four Linear(512, 512): per step, the calls gloo ran, and when each bucket was ready.

    `options` go to `DDP` (none on the page: its defaults).
    """
    with process_group() as (rank, world):
        torch.manual_seed(0)
        model = nn.Sequential(*(nn.Linear(512, 512) for _ in range(4)))
        ddp = DDP(model, **options)  # by default: bucket_cap_mb=None (25 MiB), find_unused_parameters=False
        order = record_order(model, ddp)  # each gradient as computed, each bucket as handed to its all-reduce
        x = torch.randn(8, 512, generator=torch.Generator().manual_seed(rank))
        seen = {}
        for step in range(1, steps + 1):
            order.clear()
            with profiled() as prof:
                ddp(x).sum().backward()
            seen[said("step {}, gloo runs (bytes each)", step)] = gloo_calls(prof)
            seen[said("step {}, in order", step)] = " ".join(order)
        return seen
# --8<-- [end:body]


if __name__ == "__main__":
    print(buckets_rank())


# --8<-- [start:record]
def record_order(model, ddp):
    """A list that backward fills: each gradient as it is computed, and each bucket as DDP hands it to its
    all-reduce (DDP's default all-reduce, noted when DDP calls it)."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    order = []
    for name, p in model.named_parameters():
        p.register_hook(lambda grad, name=name: order.append(name))

    def all_reduce(state, bucket):
        buffer = bucket.buffer()  # the bucket's gradients, flattened into one tensor
        nbytes = grouped(buffer.numel() * buffer.element_size())  # 4,202,496 in English, 4 202 496 in Spanish
        order.append(f"[bucket {bucket.index()}: all_reduce {words(en='of', es='de')} {nbytes} bytes]")
        return default_hooks.allreduce_hook(state, bucket)
    ddp.register_comm_hook(None, all_reduce)
    return order
# --8<-- [end:record]
