"""Theory 04: DDP's buckets over three steps, the sources the page links, tensor parallel's naming, the pipeline's
comparison, and the values of the page's two predict questions."""

import json
from functools import partial
from pathlib import Path

import pytest
import torch

from hood.capture.collectives import run_ranks
from hood.capture.common import localize
from snippets.distributed.ddp_buckets import buckets_rank
from snippets.distributed.observe import gloo_calls, profiled, said
from snippets.distributed.pipeline import pp_rank
from snippets.distributed.ranks import process_group
from snippets.distributed.workload import local_batch, loss_of, two_layers, unsplit_step
from tests.pinned_source import tag_lines

TORCH = Path(torch.__file__).parent
PAGES = [Path(__file__).resolve().parents[1] / "docs" / lang / "theory" / "04-distributed.md" for lang in ("en", "es")]
LAYER, BIAS = 512 * 512 * 4, 512 * 4  # a Linear(512, 512)'s weight (1 MiB) and bias, in float32 bytes


def english(results):
    """The ranks' results with every `words` marker (keys and values) replaced by its English."""
    return json.loads(localize(json.dumps(results, ensure_ascii=False), "en"))


@pytest.fixture(scope="module")
def buckets_results():
    return run_ranks(buckets_rank)


@pytest.fixture(scope="module")
def buckets(buckets_results):
    return english(buckets_results)


def test_the_bucket_lines_read_in_spanish_with_thousands_grouped_by_no_break_spaces(buckets_results):
    spanish = json.loads(localize(json.dumps(buckets_results, ensure_ascii=False), "es"))[0]
    assert spanish["paso 1, en orden"].endswith("[bucket 0: all_reduce de 4\u00a0202\u00a0496 bytes]")
    assert spanish["paso 2, gloo ejecuta (bytes de cada llamada)"]["gloo:broadcast"] == [8, 36]


def test_first_step_all_reduces_every_gradient_in_one_bucket_after_backward(buckets):
    for rank in buckets:
        assert rank["step 1, gloo runs (bytes each)"] == {"gloo:all_reduce": [4 * (LAYER + BIAS)]} == {
            "gloo:all_reduce": [4202496]}
        # the one bucket is handed over after the last gradient: no overlap with backward
        assert rank["step 1, in order"] == ("3.bias 3.weight 2.bias 2.weight 1.bias 1.weight 0.bias 0.weight "
                                            "[bucket 0: all_reduce of 4,202,496 bytes]")


def test_later_steps_use_rebuilt_buckets_the_first_closing_past_1_mib(buckets):
    for rank in buckets:
        # step 2 starts with rank 0 sharing the rebuilt buckets: two small broadcasts
        assert rank["step 2, gloo runs (bytes each)"] == {"gloo:all_reduce": [LAYER + BIAS, 3 * (LAYER + BIAS)],
                                                          "gloo:broadcast": [8, 36]}
        assert rank["step 3, gloo runs (bytes each)"] == {"gloo:all_reduce": [1050624, 3151872]}
        for step in (2, 3):  # the last layer's bucket is handed over with six gradients still to compute
            assert rank[f"step {step}, in order"] == (
                "3.bias 3.weight [bucket 0: all_reduce of 1,050,624 bytes] 2.bias 2.weight 1.bias 1.weight "
                "0.bias 0.weight [bucket 1: all_reduce of 3,151,872 bytes]")
    assert torch.distributed._DEFAULT_FIRST_BUCKET_BYTES == 1024 * 1024 < LAYER + BIAS


def _without_hook(steps=3):
    """The same model and steps with DDP's built-in all-reduce (no communication hook): the calls gloo ran."""
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    with process_group() as (rank, world):
        torch.manual_seed(0)
        ddp = DDP(nn.Sequential(*(nn.Linear(512, 512) for _ in range(4))))
        x = torch.randn(8, 512, generator=torch.Generator().manual_seed(rank))
        seen = {}
        for step in range(1, steps + 1):
            with profiled() as prof:
                ddp(x).sum().backward()
            seen[f"step {step}"] = gloo_calls(prof)
        return seen


def test_the_noting_hook_changes_nothing_gloo_runs(buckets):
    plain = run_ranks(_without_hook)
    for rank, seen in zip(buckets, plain):
        for step in (1, 2, 3):
            assert seen[f"step {step}"] == rank[f"step {step}, gloo runs (bytes each)"]


def test_options_change_the_buckets_find_unused_parameters_and_an_explicit_cap():
    unused = english(run_ranks(partial(buckets_rank, steps=2, find_unused_parameters=True)))[0]
    # on step 1 already a bucket closed at 1 MiB and one of up to 25 MiB, plus a small all-reduce of which
    # parameters were used
    assert unused["step 1, gloo runs (bytes each)"]["gloo:all_reduce"] == [32, 1048576, 3153920]
    assert 1048576 + 3153920 == 4 * (LAYER + BIAS)
    capped = english(run_ranks(partial(buckets_rank, steps=2, bucket_cap_mb=25)))[0]
    assert capped["step 1, gloo runs (bytes each)"] == {"gloo:all_reduce": [4202496]}
    assert capped["step 2, gloo runs (bytes each)"]["gloo:all_reduce"] == [4202496]  # first bucket capped at 25 MiB


def _line(relative, number):
    return tag_lines(relative)[number - 1]


def test_the_linked_source_lines_say_what_the_page_says():
    ddp = "nn/parallel/distributed.py"
    assert _line(ddp, 154).strip() == "bucket_size_limits = [sys.maxsize]"
    assert "if static_graph or not find_unused_parameters:" in _line(ddp, 153)
    assert "dist._DEFAULT_FIRST_BUCKET_BYTES if is_using_default" in _line(ddp, 109)
    assert "self.reducer._rebuild_buckets()" in _line(ddp, 1775)
    assert _line(ddp, 31) == "_DEFAULT_BUCKET_CAP_MB = 25"
    assert "void sync_bucket_indices(" in _line("include/torch/csrc/distributed/c10d/reducer.hpp", 303)
    assert "colwise shard weight/bias to Shard(0)" in _line("distributed/tensor/parallel/style.py", 122)
    nccl = "include/torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp"
    assert "CUDA streams used by NCCL kernels" in _line(nccl, 1400) and "ncclStreams_" in _line(nccl, 1401)
    assert "separate streams" in _line("distributed/fsdp/_fully_shard/_fsdp_param_group.py", 123)
    for page in PAGES:
        text = page.read_text()
        for link in ("distributed.py#L154", "distributed.py#L109", "distributed.py#L1775", "reducer.hpp#L303",
                     "style.py#L122", "ProcessGroupNCCL.hpp#L1400", "_fsdp_param_group.py#L123"):
            assert link in text


def test_a_linear_stores_its_weight_out_by_in_so_column_wise_shards_its_rows():
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel  # noqa: F401

    layer = two_layers()[0]
    assert tuple(layer.weight.shape) == (layer.out_features, layer.in_features) == (128, 64)
    for page in PAGES:  # one naming everywhere: column-wise = output features = rows of the stored weight
        text = page.read_text()
        assert "cut by rows" not in text and "se corta por filas, la segunda" not in text


def test_the_pipeline_reference_mean_of_micro_batch_losses_is_the_whole_batch_loss():
    x, y = local_batch(0, rows=8)
    reference, losses = unsplit_step(x, y, 2)
    whole = two_layers()
    loss = loss_of(whole(x), y)
    loss.backward()
    assert [tuple(c.shape) for c in x.chunk(2)] == [(4, 64), (4, 64)]  # two micro-batches of 4 rows
    assert abs(float(sum(losses).detach() / 2) - float(loss.detach())) < 1e-6
    assert all((p.grad - q.grad).abs().max() < 1e-6 for p, q in zip(reference.parameters(), whole.parameters()))


def _ddp_float64_rank():
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    with process_group() as (rank, world):
        ddp = DDP(nn.Linear(64, 600).double())
        x, y = local_batch(rank)
        with profiled() as step:
            loss_of(ddp(x.double()), y).backward()
        return gloo_calls(step)


def test_predict_float64_ddp_step_is_one_all_reduce_of_twice_the_bytes():
    results = run_ranks(_ddp_float64_rank)
    assert results[0]["gloo:all_reduce"] == [312000] == [(600 * 64 + 600) * 8]
    assert results[0] == results[1] == {"gloo:all_reduce": [312000]}


def test_predict_four_micro_batches_rank_0_sends_four_tensors_of_1024_bytes():
    four = run_ranks(lambda: pp_rank(n_microbatches=4))
    assert four[0][said("step {}, gloo runs (bytes each)", 2)]["gloo:send"] == [1024] * 4 == [2 * 128 * 4] * 4


def test_the_predict_blocks_compute_what_the_tests_check():
    for page in PAGES:
        text = page.read_text()
        assert 'predict="float64_all_reduce"' in text and 'predict="sends_of_rank_0"' in text
        assert "ddp = DDP(nn.Linear(64, 600).double())" in text
        assert "four = run_ranks(lambda: pp_rank(n_microbatches=4))" in text
        assert 'sends_of_rank_0 = four[0][said("step {}, gloo runs (bytes each)", 2)]["gloo:send"]' in text
