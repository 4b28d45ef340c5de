"""Pipeline parallel: the model cut in depth, one stage per rank, micro-batches flowing through GPipe.

Run it yourself: `torchrun --nproc-per-node 2 -m snippets.distributed.pipeline`
"""

from hood.capture.common import all_within
from snippets.distributed.observe import gloo_calls, loss_of, profiled

# --8<-- [start:body]
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.pipelining import PipelineStage, ScheduleGPipe


def build_model():
    """The whole model, identical on every rank (same seed); each rank keeps only its stage."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 600))


def pp_rank(steps=2, n_microbatches=2):
    """Two GPipe steps over a batch of 8: returns what this rank observed."""
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    try:
        model = build_model()
        stage_module = model[:2] if rank == 0 else model[2:]  # rank 0: Linear(64,128)+ReLU; rank 1: Linear(128,600)
        stage = PipelineStage(stage_module, rank, world, torch.device("cpu"))
        schedule = ScheduleGPipe(stage, n_microbatches=n_microbatches, loss_fn=loss_of)
        gen = torch.Generator().manual_seed(7)
        x, y = torch.randn(8, 64, generator=gen), torch.randint(0, 600, (8,), generator=gen)
        calls, losses = [], []
        for _ in range(steps):
            stage_module.zero_grad()
            with profiled() as prof:
                if rank == 0:
                    schedule.step(x)  # the first stage feeds the inputs
                else:
                    losses = []
                    schedule.step(target=y, losses=losses)  # the last stage computes the loss per micro-batch
            calls.append(gloo_calls(prof))
        # the same step without a pipeline: mean of the micro-batch losses, on the whole model
        reference = build_model()
        ref_losses = [loss_of(reference(xc), yc) for xc, yc in zip(x.chunk(n_microbatches), y.chunk(n_microbatches))]
        (sum(ref_losses) / n_microbatches).backward()
        ref_stage = reference[:2] if rank == 0 else reference[2:]
        result = {
            "stage": " + ".join(type(m).__name__ for m in stage_module),
            "parameter shapes": ", ".join(str(tuple(p.shape)) for p in stage_module.parameters()),
            **{f"step {i + 1}, gloo runs": c for i, c in enumerate(calls)},
            "gradients equal the unsplit model's within 1e-4": all_within(
                zip((p.grad for p in stage_module.parameters()), (q.grad for q in ref_stage.parameters())), 1e-4),
        }
        if rank == world - 1:
            result["losses (one per micro-batch)"] = len(losses)
            result["losses equal the unsplit model's within 1e-4"] = all_within(zip(losses, ref_losses), 1e-4)
        return result
    finally:
        dist.destroy_process_group()
# --8<-- [end:body]


if __name__ == "__main__":
    print(pp_rank())
