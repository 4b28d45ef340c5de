"""Theory 04, distributed: what each pattern's two ranks observed, and how the launcher behaves."""

import atexit
import importlib.util
import os
import time
from pathlib import Path

import pytest

from hood.capture.collectives import (LOOPBACK, RankFailure, launch_command, rank_env, render_distinct_ranks,
                                      render_ranks, run_ranks)


@pytest.fixture(scope="module")
def ddp():
    return run_ranks("snippets.distributed.ddp:ddp_rank")


@pytest.fixture(scope="module")
def fsdp():
    return run_ranks("snippets.distributed.fsdp:fsdp_rank")


@pytest.fixture(scope="module")
def tp():
    return run_ranks("snippets.distributed.tensor_parallel:tp_rank")


@pytest.fixture(scope="module")
def pp():
    return run_ranks("snippets.distributed.pipeline:pp_rank")


def test_ddp_syncs_weights_then_averages_gradients_in_one_all_reduce(ddp):
    for rank in ddp:
        assert rank["weights differ across ranks before wrapping"] is True
        assert rank["weights equal rank 0's initial weights after wrapping"] is True
        assert rank["gloo calls while wrapping"] == {"gloo:all_gather": 1, "gloo:broadcast": 2}
        assert rank["gloo calls in forward + backward"] == {"gloo:all_reduce": 1}
        assert rank["parameters"] == 2  # two parameters, one all-reduce: one bucket
        assert rank["gradients equal the mean of the ranks' local gradients"] is True


def test_ddp_default_bucket_is_25_mib():
    from torch.nn.parallel import distributed

    assert distributed._DEFAULT_BUCKET_CAP_MB == 25


def test_fsdp_shards_rows_gathers_forward_and_reduce_scatters_backward(fsdp):
    for rank in fsdp:
        assert rank["weight"] == "DTensor (Shard(dim=0),), local (300, 64) of (600, 64)"
        assert rank["bias"] == "DTensor (Shard(dim=0),), local (300,) of (600,)"
        assert rank["forward asks for"] == {"c10d._allgather_base_": 1}
        assert rank["forward, gloo runs"] == {"gloo:all_gather": 1}
        assert rank["backward asks for"] == {"c10d._reduce_scatter_base_": 1}
        assert rank["backward, gloo runs"] == {"gloo:all_reduce": 1}  # gloo runs the reduce-scatter as an all-reduce
        assert rank["weight.grad"].startswith("DTensor (Shard(dim=0),), local (300, 64)")
        assert rank["local gradient shard equals this rank's rows of the mean gradient"] is True


def test_fsdp1_class_still_exists_next_to_fully_shard():
    import torch.distributed.fsdp as fsdp

    assert hasattr(fsdp, "FullyShardedDataParallel") and hasattr(fsdp, "fully_shard")


def test_tensor_parallel_splits_columns_then_rows_with_one_all_reduce_each_way(tp):
    for rank in tp:
        assert rank["0.weight"] == "DTensor (Shard(dim=0),), local (64, 64) of (128, 64)"
        assert rank["0.bias"] == "DTensor (Shard(dim=0),), local (64,) of (128,)"
        assert rank["2.weight"] == "DTensor (Shard(dim=1),), local (600, 64) of (600, 128)"
        assert rank["2.bias"] == "DTensor (Replicate(),), local (600,) of (600,)"
        assert rank["forward asks for"] == rank["backward asks for"] == {"c10d_functional.all_reduce": 1}
        assert rank["forward, gloo runs"] == rank["backward, gloo runs"] == {"gloo:all_reduce": 1}
        assert rank["output equals the unsplit block's within 1e-4"] is True
        assert rank["input gradient equals the unsplit block's within 1e-4"] is True


def test_pipeline_stages_send_and_receive_point_to_point(pp):
    first, last = pp
    assert first["stage"] == "Linear + ReLU" and first["parameter shapes"] == "(128, 64), (128,)"
    assert last["stage"] == "Linear" and last["parameter shapes"] == "(600, 128), (600,)"
    for rank in pp:
        assert rank["step 2, gloo runs"] == {"gloo:recv": 2, "gloo:send": 2}  # point to point only: no collective
        assert set(rank["step 1, gloo runs"]) == {"gloo:recv", "gloo:send"}
        step1 = rank["step 1, gloo runs"]
        assert step1["gloo:send"] - 2 == step1["gloo:recv"] - 2 == 3  # three more each way on the first step
        assert rank["gradients equal the unsplit model's within 1e-4"] is True
    assert last["losses (one per micro-batch)"] == 2 and last["losses equal the unsplit model's within 1e-4"] is True
    assert "losses (one per micro-batch)" not in first


def test_the_seed_pipeline_api_is_gone():
    assert importlib.util.find_spec("torch.distributed.pipeline") is None
    assert importlib.util.find_spec("torch.distributed.pipelining") is not None


def test_render_ranks_is_rank_ordered():
    text = render_ranks([{"a": 1}, {"a": 2}])
    assert text.splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 2"]


def test_render_distinct_ranks_prints_a_rank_equal_to_an_earlier_one_as_one_line():
    assert render_ranks([{"a": 1}, {"a": 1}]).splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 1"]
    text = render_distinct_ranks([{"a": 1}, {"a": 2}, {"a": 1}])
    assert text.splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 2", "rank 2: identical to rank 0"]


def test_every_pattern_but_the_pipeline_prints_rank_1_as_identical_to_rank_0(ddp, fsdp, tp, pp):
    for results in (ddp, fsdp, tp):
        assert results[0] == results[1]
        assert render_distinct_ranks(results).splitlines()[-1] == "rank 1: identical to rank 0"
    assert pp[0] != pp[1] and render_distinct_ranks(pp) == render_ranks(pp)  # the pipeline shows both ranks


def test_this_build_has_no_nccl_and_the_default_backend_is_gloo_on_cpu_nccl_on_cuda():
    import torch.distributed as dist

    assert dist.is_nccl_available() is False and dist.is_gloo_available() is True
    assert dist.Backend.default_device_backend_map["cpu"] == "gloo"
    assert dist.Backend.default_device_backend_map["cuda"] == "nccl"


def test_pipeline_stages_exchange_metadata_with_send_meta_and_recv_meta():
    from torch.distributed.pipelining import PipelineStage

    assert callable(PipelineStage._send_meta) and callable(PipelineStage._recv_meta)


def test_runs_are_launched_with_torchrun_on_loopback():
    command = launch_command("snippets.distributed.ddp:ddp_rank", Path("/out"), 2, 12345)
    assert command[1:3] == ["-m", "torch.distributed.run"]
    assert ["--nproc-per-node", "2"] == command[5:7] and ["--master-addr", LOOPBACK] == command[7:9] == [
        "--master-addr", "127.0.0.1"]
    assert command[-3:] == ["hood.capture.collectives", "snippets.distributed.ddp:ddp_rank", "/out"]
    env = rank_env(["/x/src", "/x"])
    assert env["GLOO_SOCKET_IFNAME"] == "lo" and env["PYTHONPATH"].split(os.pathsep)[:2] == ["/x/src", "/x"]


# Rank functions for the launcher's failure paths (the children import them from this module). Each rank
# writes its pid where the test says, so that the test can check that no rank outlives a failed run.

def _note_pid():
    Path(os.environ["HOOD_TEST_PIDS"], os.environ["RANK"]).write_text(str(os.getpid()))


def fails_on_rank_1():
    _note_pid()
    if os.environ["RANK"] == "1":
        raise ValueError("rank 1 gives up")
    time.sleep(60)
    return {}


def sleeps():
    _note_pid()
    time.sleep(300)
    return {}


def _abort_later():
    time.sleep(3)  # both ranks have written their results by then
    os.abort()


def aborts_at_exit():
    """Returns its result, then dies as a rank can while gloo or profiler threads shut down."""
    atexit.register(_abort_later)
    return {"rank": int(os.environ["RANK"])}


def hangs_at_exit():
    """Returns its result, then never exits."""
    atexit.register(time.sleep, 600)
    return {"rank": int(os.environ["RANK"])}


def _alive(pids_dir: Path) -> list[int]:
    pids = [int(p.read_text()) for p in pids_dir.iterdir()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10  # the kernel reaps the killed processes
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()
                 and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def test_a_failing_rank_stops_the_run_and_no_rank_outlives_it(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOD_TEST_PIDS", str(tmp_path))
    with pytest.raises(RankFailure, match="rank 1 gives up") as failure:
        run_ranks("tests.test_distributed:fails_on_rank_1", timeout=600)
    assert "a rank failed" in str(failure.value)
    assert _alive(tmp_path) == []  # the sleeping rank was stopped, not waited for


def test_a_run_past_its_timeout_is_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOD_TEST_PIDS", str(tmp_path))
    # 30 s: long enough for torchrun to start both ranks on a busy machine, far shorter than their sleep
    with pytest.raises(RankFailure, match="timed out after 30 s"):
        run_ranks("tests.test_distributed:sleeps", timeout=30)
    assert _alive(tmp_path) == []


@pytest.mark.parametrize("target", ["aborts_at_exit", "hangs_at_exit"])
def test_results_written_by_every_rank_stand_when_the_ranks_then_fail_to_exit(target):
    assert run_ranks(f"tests.test_distributed:{target}", timeout=600) == [{"rank": 0}, {"rank": 1}]
