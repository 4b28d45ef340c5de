"""Theory 04's general sentences tried against their counterexamples: DDP without init_sync, an explicit cap,
the reducer's bucket buffer, FSDP2's uneven shards, tensor parallel's backward, what DTensor asks for on a CPU mesh,
the loopback the ranks talk over. (DDP's first bucket per dtype is tried in test_lab03_survey_generality: lab 03's
survey says it too.)"""

from __future__ import annotations

import inspect
from functools import partial

import torch
import torch.nn as nn

from hood.capture import collectives
from hood.capture.collectives import run_ranks
from hood.capture.common import localize
from snippets.distributed.ddp_buckets import buckets_rank
from snippets.distributed.observe import bytes_after_adam_step, gloo_calls, observing, profiled
from snippets.distributed.ranks import process_group, same_on_every_rank
from snippets.distributed.workload import two_layers
from tests.sitekit import in_language as english


def test_an_explicit_one_mib_cap_rebuilds_the_four_layers_into_four_buckets():
    step_2 = english(run_ranks(partial(buckets_rank, steps=2, bucket_cap_mb=1))[0])["step 2, gloo runs (bytes each)"]
    assert step_2["gloo:all_reduce"] == [(512 * 512 + 512) * 4] * 4


def wrapping_rank(init_sync: bool) -> dict:
    """DDP wraps a head each rank built from its own seed: the calls gloo ran, and whether the weights then agree."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    with process_group() as (rank, _):
        torch.manual_seed(rank)
        model = nn.Linear(64, 600)
        with profiled() as wrapping:
            DDP(model, init_sync=init_sync)
        return {"calls": gloo_calls(wrapping), "same weights": same_on_every_rank(model.weight)}


def test_ddp_starts_every_rank_from_rank_0s_weights_only_with_init_sync():
    """'unless it is built with init_sync=False: then the head's weights are not broadcast and stay as they were'."""
    synced, unsynced = run_ranks(partial(wrapping_rank, True))[0], run_ranks(partial(wrapping_rank, False))[0]
    assert synced == {"calls": {"gloo:all_gather": [8], "gloo:broadcast": [48, 156000]}, "same weights": True}
    assert unsynced == {"calls": {}, "same weights": False}


def bucket_buffer_rank(gradient_as_bucket_view: bool) -> dict:
    """Three DDP steps of the head: the bucket buffer's bytes, and whether it persists and backs the gradients."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP

    with process_group():
        torch.manual_seed(0)
        model = nn.Linear(64, 600)
        ddp, storages = DDP(model, gradient_as_bucket_view=gradient_as_bucket_view), []

        def hook(state, bucket):
            storages.append(bucket.buffer().untyped_storage())
            return default_hooks.allreduce_hook(state, bucket)

        ddp.register_comm_hook(None, hook)
        for _ in range(3):
            ddp(torch.randn(4, 64)).sum().backward()
        grads = {p.grad.untyped_storage().data_ptr() for p in model.parameters()}
        return {"bytes": storages[-1].nbytes(), "kept": storages[1].data_ptr() == storages[2].data_ptr(),
                "grads in it": storages[-1].data_ptr() in grads}


def test_ddps_reducer_keeps_a_second_copy_of_the_gradients_unless_they_are_views_of_it():
    assert run_ranks(partial(bucket_buffer_rank, False))[0] == {"bytes": 156000, "kept": True, "grads in it": False}
    assert run_ranks(partial(bucket_buffer_rank, True))[0]["grads in it"] is True


def uneven_rank(out_features: int) -> dict:
    from torch.distributed.fsdp import fully_shard

    with process_group():
        torch.manual_seed(0)
        model = nn.Linear(64, out_features)
        fully_shard(model)
        model(torch.randn(4, 64)).sum().backward()
        return {"rows": model.weight.to_local().shape[0], **english(bytes_after_adam_step(model))}


def test_fsdp2_shards_follow_torch_chunk_on_dim_0_so_uneven_rows_give_unequal_shards():
    assert [rank["rows"] for rank in run_ranks(partial(uneven_rank, 601))] == [301, 300]
    assert [rank["rows"] for rank in run_ranks(partial(uneven_rank, 1))] == [1, 0]


def tp_backward_rank(input_requires_grad: bool) -> dict:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    with process_group() as (_, world):
        model = two_layers()
        parallelize_module(model, init_device_mesh("cpu", (world,)), {"0": ColwiseParallel(), "2": RowwiseParallel()})
        x = torch.randn(4, 64, generator=torch.Generator().manual_seed(7), requires_grad=input_requires_grad)
        loss = model(x).sum()
        with observing("backward") as seen:
            loss.backward()
        return english(seen)


def test_tensor_parallels_backward_all_reduces_the_input_gradient_only_when_the_input_requires_grad():
    with_grad, without = run_ranks(partial(tp_backward_rank, True))[0], run_ranks(partial(tp_backward_rank, False))[0]
    assert with_grad["backward, gloo runs (bytes each)"] == {"gloo:all_reduce": [4 * 64 * 4]}
    assert without["backward, gloo runs (bytes each)"] == {} and without["backward asks for"] == {}


def rows_to_columns_rank() -> dict:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard, distribute_tensor

    with process_group() as (_, world):
        mesh = init_device_mesh("cpu", (world,))
        t = distribute_tensor(torch.arange(16.0).reshape(4, 4), mesh, [Shard(0)])
        with observing("redistribute") as seen:
            t.redistribute(mesh, [Shard(1)]).to_local()
        return english(seen)


def test_on_a_cpu_mesh_dtensor_asks_for_an_all_gather_to_move_a_shard_from_rows_to_columns():
    seen = run_ranks(rows_to_columns_rank)[0]
    assert seen["redistribute asks for"] == {"c10d_functional.all_gather_into_tensor": 1}
    from torch.distributed.tensor import _collective_utils

    assert "Gloo does not support alltoall" in inspect.getsource(_collective_utils.shard_dim_alltoall)


def test_the_ranks_keep_gloos_connections_on_loopback():
    assert 'GLOO_SOCKET_IFNAME="lo"' in inspect.getsource(collectives)


def head_order_rank() -> list[str]:
    """Three DDP steps of the head: each gradient as backward computes it, each bucket as DDP hands it over."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    from snippets.distributed.ddp_buckets import record_order

    with process_group():
        torch.manual_seed(0)
        model = nn.Linear(64, 600)
        ddp = DDP(model)
        order, steps = record_order(model, ddp), []
        for _ in range(3):
            order.clear()
            ddp(torch.randn(8, 64)).sum().backward()
            steps.append(localize(" ".join(order), "en"))
        return steps


def test_the_heads_one_bucket_is_handed_over_after_its_last_gradient_at_every_step():
    """'when there is more than one bucket': the head's 156,000 bytes stay one bucket, handed over last, every step."""
    steps = run_ranks(head_order_rank)[0]
    assert len(steps) == 3 and all(step.endswith("[bucket 0: all_reduce of 156,000 bytes]") for step in steps)
    assert all(step.count("[bucket") == 1 for step in steps)


def test_adams_step_count_takes_the_default_dtypes_size():
    """'a float32 scalar, 4 bytes here; 8 when the default dtype is float64'."""
    sizes = []
    for dtype in (torch.float32, torch.float64):
        previous = torch.get_default_dtype()
        torch.set_default_dtype(dtype)
        try:
            p = torch.nn.Parameter(torch.zeros(3, dtype=torch.float32))
            optimizer = torch.optim.Adam([p])
            p.grad = torch.ones(3, dtype=torch.float32)
            optimizer.step()
            sizes.append(optimizer.state[p]["step"].element_size())
        finally:
            torch.set_default_dtype(previous)
    assert sizes == [4, 8]


def fsdp_backward_rank() -> dict:
    """FSDP2 on the head alone, then on a block whose second layer is sharded inside it: what each backward asks
    for, and whether the head still holds its full weight between forward and backward."""
    from torch.distributed.fsdp import fully_shard

    with process_group():
        torch.manual_seed(0)
        head, block = nn.Linear(64, 600), two_layers()
        fully_shard(head)
        fully_shard(block[2])
        fully_shard(block)
        seen = {}
        for name, model in (("head", head), ("block", block)):
            loss = model(torch.randn(4, 64)).sum()
            if name == "head":
                seen["full weight kept"] = type(head.weight) is nn.Parameter and head.weight.shape == (600, 64)
            with observing("backward") as backward:
                loss.backward()
            seen[name] = english(backward)["backward asks for"]
        return seen


def test_fsdp2_gathers_again_in_the_backward_only_what_it_freed_after_the_forward():
    """The root keeps its full parameters from forward to backward; a module sharded inside it frees and regathers."""
    seen = run_ranks(fsdp_backward_rank)[0]
    assert seen["full weight kept"] is True
    assert seen["head"] == {"c10d._reduce_scatter_base_": 1}
    assert seen["block"] == {"c10d._allgather_base_": 1, "c10d._reduce_scatter_base_": 2}


def coalesced_rank() -> dict:
    """One all_reduce_coalesced of two tensors: what the profiler records of its inputs, and what gloo_calls prints."""
    import torch.distributed as dist

    with process_group():
        with profiled() as prof:
            dist.all_reduce_coalesced([torch.ones(10), torch.ones(3)])
        (row,) = [e for e in prof.events() if e.name.startswith("gloo:")]
        return {"shapes": row.input_shapes, "printed": gloo_calls(prof)}


def test_the_profiler_records_every_input_of_a_call_and_gloo_calls_counts_the_first():
    assert run_ranks(coalesced_rank)[0] == {"shapes": [[10], [3]], "printed": {"gloo:all_reduce": [40]}}


def bucket_turn_rank() -> str:
    """One DDP step of b then a (a registered first), three buckets of at most 1 MiB for the first step: each
    gradient as backward computes it, each bucket as DDP hands it over."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    from snippets.distributed.ddp_buckets import record_order

    class BThenA(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(600, 600), nn.Linear(600, 600)

        def forward(self, x):
            return self.a(self.b(x))

    with process_group():
        torch.manual_seed(0)
        model = BThenA()
        ddp = DDP(model, bucket_cap_mb_list=[1, 1])
        order = record_order(model, ddp)
        ddp(torch.randn(2, 600)).sum().backward()
        return localize(" ".join(order), "en")


def test_a_ready_bucket_waits_for_every_earlier_bucket():
    """The glossary's bucket: bucket 2 holds a.weight alone (1,440,000 bytes), ready second, yet DDP hands it over
    last, after b.weight completes bucket 1."""
    from hood import glossary
    from tests.sitekit import ROOT

    order = run_ranks(bucket_turn_rank)[0]
    assert order.index("a.weight") < order.index("b.weight") < order.index("[bucket 1:") < order.index("[bucket 2:")
    assert order.endswith("[bucket 2: all_reduce of 1,440,000 bytes]")
    terms = glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]
    assert "every earlier bucket" in next(t.definition for t in terms if t.word == "bucket")


def reductions_rank() -> dict:
    """Each rank's `rank + 1` all-reduced with four of gloo's reduce operations."""
    import torch.distributed as dist

    with process_group() as (rank, _):
        reduced = {}
        for op in ("SUM", "AVG", "MAX", "PRODUCT"):
            t = torch.tensor([float(rank + 1)])
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            reduced[op] = t.item()
        return reduced


def test_an_all_reduce_can_take_the_max_or_product_not_only_a_sum_or_mean():
    """The glossary's all-reduce: on gloo, every rank gets 1 + 2, their mean, max and product alike."""
    from hood import glossary
    from tests.sitekit import ROOT

    assert run_ranks(reductions_rank) == [{"SUM": 3.0, "AVG": 1.5, "MAX": 2.0, "PRODUCT": 2.0}] * 2
    terms = glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]
    assert "(a sum, a mean, a max…)" in next(t.definition for t in terms if t.word == "all-reduce")


def test_gpipes_first_stage_waits_between_its_forwards_and_backwards_the_last_at_both_ends():
    """The glossary's bubble: the page's two ranks laid out in time, and ScheduleGPipe's plan for 3 stages and 4
    micro-batches; the first stage's idle slots sit mid-step, the last stage's at the start and the end."""
    from torch.distributed.pipelining._schedule_visualizer import get_schedule_ops

    from hood import glossary
    from snippets.distributed.pipeline import pp_rank
    from snippets.distributed.schedule_figure import timeline
    from tests.sitekit import ROOT

    def rows(orders):
        slot = timeline(orders)
        row = [["-"] * (max(slot.values()) + 1) for _ in orders]
        for (rank, name), s in slot.items():
            row[rank][s] = name
        return [" ".join(r) for r in row]

    measured = [english(r)["step 2, computations in order"].split() for r in run_ranks(pp_rank)]
    assert rows(measured) == ["F0 F1 - - B0 B1", "- F0 F1 B0 B1 -"]
    planned = [[str(a)[len(str(a.stage_index)):] for a in rank if a.computation_type.value in ("F", "B")]
               for rank in get_schedule_ops("GPipe", 3, 4)]
    first, _, last = rows(planned)
    assert first == "F0 F1 F2 F3 - - - - B0 B1 B2 B3" and last == "- - F0 F1 F2 F3 B0 B1 B2 B3 - -"
    terms = glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]
    assert "the first between its last forward and its first backward" in next(
        t.definition for t in terms if t.word == "bubble")


def mesh_2d_rank() -> dict:
    """A (4, 4) tensor on a 2 x 2 mesh, split by rows on the first mesh dimension and replicated on the second, then
    replicated on both."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor

    with process_group():
        mesh = init_device_mesh("cpu", (2, 2))
        seen = {}
        for name, placements in (("shard, replicate", [Shard(0), Replicate()]),
                                 ("replicate, replicate", [Replicate(), Replicate()])):
            local = distribute_tensor(torch.arange(16.0).reshape(4, 4), mesh, placements).to_local()
            seen[name] = {"shape": list(local.shape), "first row": local[0].tolist()}
        return seen


def test_replicate_on_a_2d_mesh_gives_the_whole_tensor_only_when_both_placements_replicate():
    """The glossary's Replicate: with Shard(0) on the first mesh dimension, ranks 0 and 1 (along the replicated one)
    hold the same rows 0-1, ranks 2 and 3 rows 2-3; with Replicate on both, every rank holds the whole (4, 4)."""
    from hood import glossary
    from tests.sitekit import ROOT

    seen = run_ranks(mesh_2d_rank, world_size=4)
    sharded = [r["shard, replicate"] for r in seen]
    assert [r["shape"] for r in sharded] == [[2, 4]] * 4
    assert [r["first row"][0] for r in sharded] == [0.0, 0.0, 8.0, 8.0]
    assert [r["replicate, replicate"]["shape"] for r in seen] == [[4, 4]] * 4
    terms = {t.word: t.definition for t in glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]}
    assert "the whole tensor when every placement is Replicate, the same piece when another mesh dimension shards it" \
        in terms["Replicate"]
    assert "one per dimension of its device mesh" in terms["DTensor"]
