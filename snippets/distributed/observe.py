"""What a rank can observe: the calls gloo ran (profiler), the collectives asked for (CommDebugMode), shards."""

# --8<-- [start:body]
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile


def profiled():
    """A CPU profiler: its rows name what the gloo backend really ran (`gloo:all_reduce`, ...)."""
    return profile(activities=[ProfilerActivity.CPU])


def gloo_calls(prof):
    """Calls the gloo backend executed in a profiled region, by name."""
    return {e.key: e.count for e in sorted(prof.key_averages(), key=lambda e: e.key) if e.key.startswith("gloo:")}


def comm_counts(comm_mode):
    """Collectives a region asked for, by operator, as `torch.distributed.tensor.debug.CommDebugMode` counted them."""
    return {str(op): n for op, n in sorted(comm_mode.get_comm_counts().items(), key=lambda kv: str(kv[0])) if n}


def describe(p):
    """A DTensor parameter: its placement, the shard this rank holds, the whole shape."""
    return f"{type(p).__name__} {p.placements}, local {tuple(p.to_local().shape)} of {tuple(p.shape)}"


def local_batch(rank, rows=4, vocab=600):
    """This rank's own inputs and targets (data parallelism: every rank sees different data)."""
    gen = torch.Generator().manual_seed(100 + rank)
    return torch.randn(rows, 64, generator=gen), torch.randint(0, vocab, (rows,), generator=gen)


def mean_over_ranks(t):
    """The mean of `t` across all ranks, computed by gathering every rank's copy."""
    copies = [torch.zeros_like(t) for _ in range(dist.get_world_size())]
    dist.all_gather(copies, t.contiguous())
    return torch.stack(copies).mean(0)


def loss_of(logits, targets):
    """The training loss of the head: cross-entropy over the vocabulary."""
    return F.cross_entropy(logits, targets)
# --8<-- [end:body]
