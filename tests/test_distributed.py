"""Theory 04, distributed: what each pattern's two ranks observed, and how the launcher behaves."""

import contextlib
import importlib.util
import io
import os
import re
import threading
import time
from pathlib import Path

import pytest


from hood.capture import collectives
from hood.capture.common import localize
from hood.capture.figure import figure_data
from tests.sitekit import in_language
from hood.capture.collectives import RankFailure, render_distinct_ranks, render_ranks, run_ranks, show_ranks
from snippets.distributed.ddp import ddp_rank
from snippets.distributed.fsdp import fsdp_rank
from snippets.distributed.pipeline import pp_rank
from snippets.distributed.tensor_parallel import tp_rank

F32 = 4  # bytes per float32 value


@pytest.fixture(scope="module")
def ddp_results():
    return run_ranks(ddp_rank)


@pytest.fixture(scope="module")
def fsdp_results():
    return run_ranks(fsdp_rank)


@pytest.fixture(scope="module")
def tp_results():
    return run_ranks(tp_rank)


@pytest.fixture(scope="module")
def pp_results():
    return run_ranks(pp_rank)


def _english(results: str):
    """A module fixture named after `results` less `_results`: those ranks' results as the English page shows them."""
    @pytest.fixture(scope="module", name=results.removesuffix("_results"))
    def fixture(request):
        return in_language(request.getfixturevalue(results))
    return fixture


ddp_fixture, fsdp_fixture, tp_fixture, pp_fixture = (_english(f"{n}_results") for n in ("ddp", "fsdp", "tp", "pp"))


def test_ddp_syncs_weights_then_averages_gradients_in_one_all_reduce(ddp):
    head_bytes = (600 * 64 + 600) * F32  # the head's 39,000 parameters in float32
    assert head_bytes == 156000
    for rank in ddp:
        assert rank["weights differ across ranks before wrapping"] is True
        assert rank["weights equal rank 0's initial weights after wrapping"] is True
        # one all-gather and two broadcasts; the 156,000-byte broadcast is the parameters, the others 8 and 48 bytes
        assert rank["gloo calls while wrapping (bytes each)"] == {"gloo:all_gather": [8],
                                                                   "gloo:broadcast": [48, head_bytes]}
        assert rank["gloo calls in forward + backward (bytes each)"] == {"gloo:all_reduce": [head_bytes]}
        held = [k for k, v in rank.items() if str(v).startswith("Tensor,") and not k.endswith(".grad")]
        assert held == ["weight", "bias"]  # two parameters, one all-reduce: one bucket
        assert rank["gradients equal the mean of the ranks' local gradients"] is True


def test_every_ddp_rank_holds_the_whole_head_and_its_gradients(ddp):
    for rank in ddp:
        assert rank["weight"] == rank["weight.grad"] == "Tensor, local (600, 64) of (600, 64)"
        assert rank["bias"] == rank["bias.grad"] == "Tensor, local (600,) of (600,)"
        assert rank["bytes held after an Adam step"]["gradients"] == 156000  # all of it went into the all-reduce


def test_ddp_default_bucket_is_25_mib():
    from torch.nn.parallel import distributed

    assert distributed._DEFAULT_BUCKET_CAP_MB == 25


def test_fsdp_shards_rows_gathers_forward_and_reduce_scatters_backward(fsdp):
    shard_values = 300 * 64 + 300  # 300 of the 600 rows of W and of b
    assert shard_values == 19500
    for rank in fsdp:
        assert rank["weight"] == rank["weight.grad"] == "DTensor (Shard(dim=0),), local (300, 64) of (600, 64)"
        assert rank["bias"] == rank["bias.grad"] == "DTensor (Shard(dim=0),), local (300,) of (600,)"
        assert rank["forward asks for"] == {"c10d._allgather_base_": 1}
        assert rank["forward, gloo runs (bytes each)"] == {"gloo:all_gather": [shard_values * F32]}  # 78,000 bytes
        assert rank["backward asks for"] == {"c10d._reduce_scatter_base_": 1}
        # gloo runs the reduce-scatter as an all-reduce of the whole gradient: as many bytes as DDP's
        assert rank["backward, gloo runs (bytes each)"] == {"gloo:all_reduce": [156000]}
        assert 2 * shard_values * F32 == 156000
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
        for name in ("0.weight", "0.bias", "2.weight", "2.bias"):
            assert rank[f"{name}.grad"] == rank[name]  # each gradient has its parameter's placement
        assert rank["forward asks for"] == rank["backward asks for"] == {"c10d_functional.all_reduce": 1}
        # activations, not weights: the (4, 600) partial outputs, then the (4, 64) partial input gradients
        assert rank["forward, gloo runs (bytes each)"] == {"gloo:all_reduce": [4 * 600 * F32]} == {
            "gloo:all_reduce": [9600]}
        assert rank["backward, gloo runs (bytes each)"] == {"gloo:all_reduce": [4 * 64 * F32]} == {
            "gloo:all_reduce": [1024]}
        # DTensor makes the replicated bias Partial: each rank's addmm adds b / 2, before the all-reduce
        assert rank["row-wise layer's local calls (views left out)"] == (
            "aten.div.Tensor aten.addmm.default _c10d_functional.all_reduce.default")
        assert rank["bias its addmm adds equals b / 2"] is True
        assert rank["output equals the unsplit block's within 1e-4"] is True
        assert rank["input gradient equals the unsplit block's within 1e-4"] is True


def test_pipeline_stages_send_and_receive_point_to_point(pp):
    first, last = pp
    assert first["stage"] == "Linear + ReLU" and first["0.weight"] == "Tensor, local (128, 64) of (128, 64)"
    assert first["0.bias"] == "Tensor, local (128,) of (128,)"
    assert last["stage"] == "Linear" and last["2.weight"] == "Tensor, local (600, 128) of (600, 128)"
    assert last["2.bias"] == "Tensor, local (600,) of (600,)"
    assert not any(k.startswith("2.") for k in first) and not any(k.startswith("0.") for k in last)
    micro_batch = 4 * 128 * F32  # a (4, 128) float32 tensor: 8 rows cut into 2 micro-batches, 128 features
    for rank in pp:
        # point to point only, no collective: two sends and two receives of 2,048 bytes
        step2 = rank["step 2, gloo runs (bytes each)"]
        assert step2 == {"gloo:recv": [micro_batch] * 2, "gloo:send": [micro_batch] * 2}
        assert micro_batch == 2048
        step1 = rank["step 1, gloo runs (bytes each)"]
        assert set(step1) == {"gloo:recv", "gloo:send"}
        for call in ("gloo:send", "gloo:recv"):  # three more each way on the first step, none over 200 bytes
            extra = list(step1[call])
            for size in rank["step 2, gloo runs (bytes each)"][call]:
                extra.remove(size)
            assert len(extra) == 3 and max(extra) < 200
        assert rank["gradients equal the unsplit model's for the mean micro-batch loss, within 1e-4"] is True
    assert last["losses (one per micro-batch)"] == 2
    assert last["each loss equals the unsplit model's on the same micro-batch, within 1e-4"] is True
    assert "losses (one per micro-batch)" not in first


def test_each_pipeline_rank_ran_every_forward_before_any_backward_as_gpipe_plans(pp):
    from torch.distributed.pipelining._schedule_visualizer import get_schedule_ops

    planned = get_schedule_ops("GPipe", 2, 2)  # ScheduleGPipe's pipeline_order, per rank
    for rank, result in enumerate(pp):
        assert result["step 1, computations in order"] == result["step 2, computations in order"] == "F0 F1 B0 B1"
        plan = [str(a)[1:] for a in planned[rank] if a is not None and a.computation_type.value in ("F", "B")]
        assert " ".join(plan) == result["step 2, computations in order"]


def drawn(draw, *args):
    """What a figure function returned, and what it printed."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        data = draw(*args)
    return data, printed.getvalue()


def assert_bilingual_figure(output):
    assert output.startswith('<figure class="hood-figure">') and "<svg" in output
    assert localize(output, "en") != localize(output, "es")
    assert "\u27e6" not in figure_data(output)  # the data a trace keeps holds no words marker


def test_ddp_figure_draws_whole_tensors_on_both_ranks_and_the_calls_with_their_bytes(ddp_results):
    from snippets.distributed.holdings_figure import Transfer, draw_holdings

    data, output = drawn(draw_holdings, "ddp", ddp_results)
    assert_bilingual_figure(output)
    for held in data["held"]:
        assert [(p.name, p.placement, p.local, g.local) for p, g in held.values()] == [
            ("weight", "whole", (600, 64), (600, 64)), ("bias", "whole", (600,), (600,))]
    assert data["moved"] == [
        Transfer("gloo calls while wrapping", "gloo:all_gather", 8, -1, -1),
        Transfer("gloo calls while wrapping", "gloo:broadcast", 48, 0, 1),
        Transfer("gloo calls while wrapping", "gloo:broadcast", 156000, 0, 1),
        Transfer("gloo calls in forward + backward", "gloo:all_reduce", 156000, -1, -1)]
    assert "gloo calls in forward + backward: gloo:all_reduce 156000 B, every rank" in figure_data(output)


def test_fsdp_figure_draws_row_shards_a_gather_and_a_whole_gradient_all_reduce(fsdp_results):
    from snippets.distributed.holdings_figure import Transfer, draw_holdings

    data, output = drawn(draw_holdings, "fsdp", fsdp_results)
    assert_bilingual_figure(output)
    for held in data["held"]:
        assert [(p.placement, p.local, p.whole, g.placement, g.local) for p, g in held.values()] == [
            ("Shard(dim=0)", (300, 64), (600, 64), "Shard(dim=0)", (300, 64)),
            ("Shard(dim=0)", (300,), (600,), "Shard(dim=0)", (300,))]
    assert data["moved"] == [Transfer("forward", "gloo:all_gather", 78000, -1, -1),
                             Transfer("backward", "gloo:all_reduce", 156000, -1, -1)]
    assert "c10d._reduce_scatter_base_" in output  # what the backward asked for, next to what gloo ran
    assert "pide c10d._reduce_scatter_base_" in localize(output, "es")


def test_tensor_parallel_figure_draws_rows_then_columns_and_a_replicated_bias(tp_results):
    from snippets.distributed.holdings_figure import Transfer, draw_holdings

    data, output = drawn(draw_holdings, "tp", tp_results)
    assert_bilingual_figure(output)
    for held in data["held"]:
        assert {name: (p.placement, p.local) for name, (p, _) in held.items()} == {
            "0.weight": ("Shard(dim=0)", (64, 64)), "0.bias": ("Shard(dim=0)", (64,)),
            "2.weight": ("Shard(dim=1)", (600, 64)), "2.bias": ("Replicate()", (600,))}
    assert data["moved"] == [Transfer("forward", "gloo:all_reduce", 9600, -1, -1),
                             Transfer("backward", "gloo:all_reduce", 1024, -1, -1)]


def test_pipeline_figure_draws_whole_layers_and_sends_both_ways(pp_results):
    from snippets.distributed.holdings_figure import Transfer, draw_holdings

    data, output = drawn(draw_holdings, "pp", pp_results)
    assert_bilingual_figure(output)
    first, last = data["held"]
    assert list(first) == ["0.weight", "0.bias"] and list(last) == ["2.weight", "2.bias"]
    assert all(p.placement == "whole" and p.local == p.whole for held in (first, last) for p, _ in held.values())
    assert data["moved"] == [Transfer("step 2", "gloo:send", 2048, 0, 1)] * 2 + [
        Transfer("step 2", "gloo:send", 2048, 1, 0)] * 2  # rank 0 sends activations, rank 1 gradients back
    assert "rank 1: no 0.weight" in figure_data(output) and "rank 0: no 2.weight" in figure_data(output)


def test_schedule_figure_shows_each_rank_idle_two_of_six_slots(pp_results):
    from snippets.distributed.schedule_figure import draw_schedule

    data, output = drawn(draw_schedule, pp_results)
    assert_bilingual_figure(output)
    assert data["rows"] == [["F0", "F1", "-", "-", "B0", "B1"], ["-", "F0", "F1", "B0", "B1", "-"]]
    assert data["idle"] == [2, 2] and data["slots"] == 6  # a third of the step: the bubble
    assert "idle slots: rank 0 2 of 6, rank 1 2 of 6" in figure_data(output)


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("micro_batches", [2, 4, 8])
def test_gpipe_laid_out_idles_2_p_minus_1_of_2_m_plus_p_minus_1_slots_per_rank(stages, micro_batches):
    from torch.distributed.pipelining._schedule_visualizer import get_schedule_ops

    from snippets.distributed.schedule_figure import timeline

    orders = [[str(a)[len(str(a.stage_index)):] for a in rank if a.computation_type.value in ("F", "B")]
              for rank in get_schedule_ops("GPipe", stages, micro_batches)]
    slot = timeline(orders)
    slots = max(slot.values()) + 1
    assert slots == 2 * (micro_batches + stages - 1)
    for order in orders:
        assert slots - len(order) == 2 * (stages - 1)
    if (stages, micro_batches) == (2, 8):
        assert (2 * (stages - 1), slots) == (2, 18)


def test_timeline_refuses_orders_that_wait_on_each_other():
    from snippets.distributed.schedule_figure import timeline

    with pytest.raises(ValueError, match="wait on each other"):
        timeline([["B0", "F0"], ["F0", "B0"]])  # rank 0's backward waits for rank 1's, which waits for rank 0


def test_memory_figure_bytes_per_rank_next_to_one_process(ddp_results, fsdp_results, tp_results, pp_results):
    from snippets.distributed.memory_figure import draw_memory

    held, output = drawn(draw_memory, {"ddp": ddp_results, "fsdp": fsdp_results, "tp": tp_results, "pp": pp_results})
    assert_bilingual_figure(output)
    total = {pattern: {row: sum(parts.values()) for row, parts in rows.items()} for pattern, rows in held.items()}
    for rows in held.values():
        for parts in rows.values():  # Adam: two running averages per parameter, a 4-byte step count per parameter
            assert parts["gradients"] == parts["parameters"]
            assert parts["optimizer state"] - 2 * parts["parameters"] in (8, 16)
    assert held["ddp"]["one process"] == held["ddp"]["rank 0"] == held["ddp"]["rank 1"]
    assert held["ddp"]["rank 0"]["optimizer state"] == 2 * held["ddp"]["rank 0"]["parameters"] + 2 * 4
    assert total["ddp"]["rank 0"] == 624008
    assert total["fsdp"]["rank 0"] == total["fsdp"]["rank 1"] == 312008 == (624008 - 8) // 2 + 8
    assert total["tp"]["one process"] == total["pp"]["one process"] == 1371536
    assert total["tp"]["rank 0"] == total["tp"]["rank 1"] == 690576
    assert 690576 - 1371536 // 2 == 600 * F32 * 4 // 2 + 8  # the replicated bias, its gradient and state; steps
    assert (total["pp"]["rank 0"], total["pp"]["rank 1"]) == (133128, 1238408)
    assert total["pp"]["rank 0"] + total["pp"]["rank 1"] == total["pp"]["one process"]


def test_memory_figure_reference_models_are_the_ones_the_ranks_split(ddp, fsdp, tp, pp):
    from snippets.distributed.holdings_figure import holdings_of
    from snippets.distributed.memory_figure import UNSPLIT

    for pattern, results in {"ddp": ddp, "fsdp": fsdp, "tp": tp, "pp": pp}.items():
        whole = {name: p.whole for result in results for name, (p, _) in holdings_of(result).items()}
        assert whole == {name: tuple(q.shape) for name, q in UNSPLIT[pattern]().named_parameters()}
    # the head for DDP and FSDP2, the two-layer block of two_layers() for tensor and pipeline parallelism
    head = {"weight": (600, 64), "bias": (600,)}
    block = {"0.weight": (128, 64), "0.bias": (128,), "2.weight": (600, 128), "2.bias": (600,)}
    for pattern, shapes in {"ddp": head, "fsdp": head, "tp": block, "pp": block}.items():
        assert {name: tuple(q.shape) for name, q in UNSPLIT[pattern]().named_parameters()} == shapes
    assert [type(m).__name__ for m in UNSPLIT["tp"]()] == ["Linear", "ReLU", "Linear"]


def test_the_page_reads_four_runs_and_six_drawings():
    page = (Path(__file__).resolve().parents[1] / "docs" / "en" / "theory" / "04-distributed.md").read_text()
    assert page.count("= show_ranks(") == 5 and page.count('html="on"') == 6
    assert "five runs and six drawings to read, and seven questions" in page
    assert page.count("??? question") + page.count("!!! question") == 7 and page.count('predict="') == 2


def test_show_ranks_prints_the_results_and_returns_them(monkeypatch, capsys):
    monkeypatch.setattr(collectives, "run_ranks", lambda rank_fn, world_size: [{"a": 1}, {"a": 1}])
    assert show_ranks(dict) == [{"a": 1}, {"a": 1}]
    assert localize(capsys.readouterr().out, "en").splitlines() == ["rank 0", "  a: 1", "rank 1: identical to rank 0"]


def test_the_seed_pipeline_api_is_gone():
    assert importlib.util.find_spec("torch.distributed.pipeline") is None
    assert importlib.util.find_spec("torch.distributed.pipelining") is not None


def test_render_ranks_is_rank_ordered():
    text = render_ranks([{"a": 1}, {"a": 2}])
    assert text.splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 2"]


def test_render_distinct_ranks_prints_a_rank_equal_to_an_earlier_one_as_one_line():
    assert render_ranks([{"a": 1}, {"a": 1}]).splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 1"]
    text = render_distinct_ranks([{"a": 1}, {"a": 2}, {"a": 1}])
    assert localize(text, "en").splitlines() == ["rank 0", "  a: 1", "rank 1", "  a: 2", "rank 2: identical to rank 0"]
    assert localize(text, "es").splitlines()[-1] == "rank 2: idéntico al rank 0"


def test_every_pattern_but_the_pipeline_prints_rank_1_as_identical_to_rank_0(ddp, fsdp, tp, pp):
    for results in (ddp, fsdp, tp):
        assert results[0] == results[1]
        assert localize(render_distinct_ranks(results), "en").splitlines()[-1] == "rank 1: identical to rank 0"
        assert localize(render_distinct_ranks(results), "es").splitlines()[-1] == "rank 1: idéntico al rank 0"
    assert pp[0] != pp[1] and render_distinct_ranks(pp) == render_ranks(pp)  # the pipeline shows both ranks


PARAMETER_NAME = re.compile(r"(\d+\.)?(weight|bias)(\.grad)?")


def test_every_label_a_rank_reports_reads_in_spanish(ddp_results, fsdp_results, tp_results, pp_results):
    """Each key of every result is a label in every language, or a parameter's name; so are the bytes' parts."""
    for results in (ddp_results, fsdp_results, tp_results, pp_results):
        for english, spanish in zip(in_language(results), in_language(results, "es")):
            for en, es in zip(english, spanish):
                assert (en == es) == bool(PARAMETER_NAME.fullmatch(en)), (en, es)
            held, tenido = english["bytes held after an Adam step"], spanish["bytes que guarda tras un paso de Adam"]
            assert list(held) == ["parameters", "gradients", "optimizer state"]
            assert list(tenido) == ["parámetros", "gradientes", "estado del optimizador"]
            for name in filter(PARAMETER_NAME.fullmatch, english):  # "local (300, 64) of (600, 64)": "de" in Spanish
                assert spanish[name] == english[name].replace(") of (", ") de (") != english[name]


def test_this_build_has_no_nccl_and_the_default_backend_is_gloo_on_cpu_nccl_on_cuda():
    import torch.distributed as dist

    assert dist.is_nccl_available() is False and dist.is_gloo_available() is True
    assert dist.Backend.default_device_backend_map["cpu"] == "gloo"
    assert dist.Backend.default_device_backend_map["cuda"] == "nccl"


def test_pipeline_stages_exchange_metadata_with_send_meta_and_recv_meta():
    from torch.distributed.pipelining import PipelineStage

    assert callable(PipelineStage._send_meta) and callable(PipelineStage._recv_meta)


def _environment():
    keys = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "GLOO_SOCKET_IFNAME", "OMP_NUM_THREADS")
    import torch
    return {**{key: os.environ[key] for key in keys}, "threads": torch.get_num_threads()}


def test_each_rank_gets_torchruns_environment_on_loopback_and_one_thread():
    results = run_ranks(_environment)
    assert [r["RANK"] for r in results] == ["0", "1"] == [r["LOCAL_RANK"] for r in results]
    assert {(r["WORLD_SIZE"], r["MASTER_ADDR"], r["GLOO_SOCKET_IFNAME"], r["OMP_NUM_THREADS"], r["threads"])
            for r in results} == {("2", "127.0.0.1", "lo", "1", 1)}


def _prints_then_returns():
    print("a rank's own output")
    return {}


def test_what_a_rank_prints_does_not_reach_the_caller(capfd):
    assert run_ranks(_prints_then_returns) == [{}, {}]
    assert "a rank's own output" not in capfd.readouterr().out


# Rank functions for the launcher's failure paths. Each rank
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
    threading.Thread(target=_abort_later).start()
    return {"rank": int(os.environ["RANK"])}


def hangs_at_exit():
    """Returns its result, then never exits (a process waits for its threads)."""
    threading.Thread(target=time.sleep, args=(600,)).start()
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
        run_ranks(fails_on_rank_1, timeout=600, tries=1)
    assert "a rank failed" in str(failure.value)
    assert _alive(tmp_path) == []  # the sleeping rank was stopped, not waited for


def test_a_run_past_its_timeout_is_killed(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOD_TEST_PIDS", str(tmp_path))
    # 10 s: long enough to fork both ranks on a busy machine, far shorter than their sleep; one try, not two
    with pytest.raises(RankFailure, match="timed out after 10 s"):
        run_ranks(sleeps, timeout=10, tries=1)
    assert _alive(tmp_path) == []


@pytest.mark.parametrize("rank_fn", [aborts_at_exit, hangs_at_exit])
def test_results_written_by_every_rank_stand_when_the_ranks_then_fail_to_exit(rank_fn):
    assert run_ranks(rank_fn, timeout=600, grace=2) == [{"rank": 0}, {"rank": 1}]



def fails_the_first_time():
    """Rank 1 fails on the first try only (a file marks that it has)."""
    tried = Path(os.environ["HOOD_TEST_PIDS"], "tried")
    if os.environ["RANK"] == "1" and not tried.exists():
        tried.write_text("once")
        raise ValueError("first try")
    return {"rank": int(os.environ["RANK"])}


def test_a_failed_run_is_tried_again(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOD_TEST_PIDS", str(tmp_path))
    with pytest.raises(RankFailure, match="first try"):
        run_ranks(fails_the_first_time, timeout=60, tries=1)
    (tmp_path / "tried").unlink()
    assert run_ranks(fails_the_first_time, timeout=60, tries=2) == [{"rank": 0}, {"rank": 1}]
