"""Pipeline parallel: the model cut in depth, one stage per rank, micro-batches flowing through GPipe.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.pipeline`
"""

from hood.capture.common import all_within
from snippets.distributed.observe import (bytes_after_adam_step, computations, gloo_calls, holdings, labelled,
                                         profiled, said)
from snippets.distributed.ranks import grads_within, process_group
from snippets.distributed.workload import local_batch, loss_of, stage_of, two_layers, unsplit_step

# --8<-- [start:body]
import torch
from torch.distributed.pipelining import PipelineStage, ScheduleGPipe


def pp_rank(steps=2, n_microbatches=2):
    """Two GPipe steps over a batch of 8: returns what this rank observed."""
    with process_group() as (rank, world):
        layers = stage_of(two_layers(), rank)
        stage = PipelineStage(layers, rank, world, torch.device("cpu"))
        schedule = ScheduleGPipe(stage, n_microbatches=n_microbatches, loss_fn=loss_of)
        x, y = local_batch(0, rows=8)  # one batch for the whole pipeline
        seen = {"stage": " + ".join(type(layer).__name__ for layer in layers)}
        for step in range(1, steps + 1):
            layers.zero_grad()
            losses = []  # the last stage appends one loss per micro-batch
            with profiled() as prof:
                schedule.step(x) if rank == 0 else schedule.step(target=y, losses=losses)  # inputs in, loss out
            seen[said("step {}, gloo runs (bytes each)", step)] = gloo_calls(prof)
            seen[said("step {}, computations in order", step)] = computations(prof)
        reference, ref_losses = unsplit_step(x, y, n_microbatches)
        seen["gradients equal the unsplit model's for the mean micro-batch loss, within 1e-4"] = grads_within(
            layers, stage_of(reference, rank), 1e-4)
        if rank == world - 1:
            seen["losses (one per micro-batch)"] = len(losses)
            seen["each loss equals the unsplit model's on the same micro-batch, within 1e-4"] = all_within(
                zip(losses, ref_losses), 1e-4)
        return labelled({**seen, **holdings(layers), "bytes held after an Adam step": bytes_after_adam_step(layers)})
# --8<-- [end:body]


if __name__ == "__main__":
    print(pp_rank())
