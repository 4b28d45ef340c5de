"""Theory 03, distributed: what each pattern's two ranks observed, and how the launcher behaves."""

import importlib.util
import os
import time

import pytest

from hood.capture.collectives import LOOPBACK, RankFailure, rank_env, render_ranks, run_ranks


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
        assert rank["weights identical on every rank after wrapping"] is True
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
        assert rank["output equals the unsplit block's"] is True
        assert rank["input gradient equals the unsplit block's"] is True


def test_pipeline_stages_send_and_receive_point_to_point(pp):
    first, last = pp
    assert first["stage"] == "Linear + ReLU" and first["parameter shapes"] == "(128, 64), (128,)"
    assert last["stage"] == "Linear" and last["parameter shapes"] == "(600, 128), (600,)"
    for rank in pp:
        assert rank["step 2, gloo runs"] == {"gloo:recv": 2, "gloo:send": 2}
        step1 = rank["step 1, gloo runs"]
        assert step1["gloo:send"] - 2 == step1["gloo:recv"] - 2 == 3  # three more each way on the first step
        assert rank["gradients equal the unsplit model's"] is True
    assert last["losses (one per micro-batch)"] == 2 and last["losses equal the unsplit model's"] is True
    assert "losses (one per micro-batch)" not in first


def test_the_seed_pipeline_api_is_gone():
    assert importlib.util.find_spec("torch.distributed.pipeline") is None
    assert importlib.util.find_spec("torch.distributed.pipelining") is not None


def test_render_ranks_is_rank_ordered():
    text = render_ranks([{"a": 1}, {"a": 2}])
    assert text.splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 2"]


def test_rank_env_is_loopback_and_makes_the_project_importable():
    env = rank_env(1, 2, 12345, ["/x/src", "/x"])
    assert env["MASTER_ADDR"] == LOOPBACK == "127.0.0.1" and env["GLOO_SOCKET_IFNAME"] == "lo"
    assert (env["RANK"], env["WORLD_SIZE"], env["MASTER_PORT"]) == ("1", "2", "12345")
    assert env["PYTHONPATH"].split(os.pathsep)[:2] == ["/x/src", "/x"]


# Rank functions for the launcher's failure paths (the children import them from this module).

def fails_on_rank_1():
    if os.environ["RANK"] == "1":
        raise ValueError("rank 1 gives up")
    time.sleep(60)
    return {}


def sleeps():
    time.sleep(60)
    return {}


def test_a_failing_rank_stops_the_run_at_once():
    with pytest.raises(RankFailure, match="rank 1 gives up") as failure:
        run_ranks("tests.test_distributed:fails_on_rank_1", timeout=600)
    message = str(failure.value)
    assert "a rank failed" in message
    assert "rank 0 (exit -9)" in message  # the sleeping rank was killed, not waited for
    assert "rank 1 (exit 1)" in message


def test_a_run_past_its_timeout_is_killed():
    with pytest.raises(RankFailure, match="timed out after 3 s") as failure:
        run_ranks("tests.test_distributed:sleeps", timeout=3)
    assert "rank 0 (exit -9)" in str(failure.value) and "rank 1 (exit -9)" in str(failure.value)
