"""What the ranks train: the head's loss, each rank's batch, and the two-layer block split by TP and PP."""

# --8<-- [start:body]
import torch
import torch.nn as nn
import torch.nn.functional as F


def loss_of(logits, targets):
    """The training loss of the head: cross-entropy over the vocabulary."""
    return F.cross_entropy(logits, targets)


def local_batch(rank, rows=4, vocab=600):
    """This rank's own inputs and targets (data parallelism: every rank sees different data)."""
    gen = torch.Generator().manual_seed(100 + rank)
    return torch.randn(rows, 64, generator=gen), torch.randint(0, vocab, (rows,), generator=gen)


def two_layers():
    """A hidden layer before the head, identical on every rank (same seed)."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 600))


def stage_of(model, rank):
    """The layers a pipeline rank holds: rank 0 the hidden layer and its ReLU, rank 1 the head."""
    return model[:2] if rank == 0 else model[2:]


def unsplit_step(x, y, n_microbatches):
    """The pipeline's step without a pipeline: the whole model, the mean of the micro-batch losses."""
    model = two_layers()
    losses = [loss_of(model(xc), yc) for xc, yc in zip(x.chunk(n_microbatches), y.chunk(n_microbatches))]
    (sum(losses) / n_microbatches).backward()
    return model, losses
# --8<-- [end:body]
