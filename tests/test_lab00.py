"""Every claim lab 00 makes about its outputs, and its runnable deliverables."""

from __future__ import annotations

import contextlib
import io
import json

import torch

from hood.capture.tables import table_rows
from hood.stdout import printed
from snippets.lab00 import drill, exercises, parts, run


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_part_a_grad_fn_is_addmm_backward():
    y = quiet(parts.part_a_baseline)
    assert y.shape == (2, 600) and type(y.grad_fn).__name__ == "AddmmBackward0"


def test_part_b_no_dispatch_key_set_method_and_identical_key_sets():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        views = parts.part_b_key_sets()
    assert "hasattr(x, '_dispatch_key_set'): False" in out.getvalue()
    assert len(views) == 4
    assert all(v.tensor == ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"] for v in views)
    assert not any("Half" in k for v in views for k in v.tensor)


def test_part_c_the_mode_never_sees_linear():
    assert [c.op for c in quiet(parts.part_c_linear_ops)] == ["aten::t", "aten::addmm"]
    # the box: linear's CompositeImplicitAutograd kernel sits at AutogradCPU, above the Python key
    linear = {r.key: r for r in table_rows("aten::linear", ("AutogradCPU",))}["AutogradCPU"]
    assert linear.kind == "math kernel" and linear.source.startswith("RegisterCompositeImplicitAutograd")


def test_part_d_addmm_directly_is_not_shorter():
    direct = quiet(parts.part_d_addmm_directly)
    assert [c.op for c in direct] == ["aten::permute", "aten::addmm"]
    via_linear = quiet(parts.part_c_linear_ops)
    assert len(direct) == len(via_linear)
    assert direct[1] == via_linear[1]  # "both paths end in the same addmm kernel": same call, same arguments


def test_part_e_profiler_rows_and_shapes():
    rows = quiet(parts.part_e_profile)
    by_name = {(r.name, r.shapes): r for r in rows}
    assert ("aten::linear", "[[2, 64], [600, 64], [600]]") in by_name
    assert ("AddmmBackward0", "[[2, 600]]") in by_name
    assert {("aten::mm", "[[2, 600], [600, 64]]"), ("aten::mm", "[[600, 2], [2, 64]]")} <= set(by_name)


def test_stretch_goals():
    fp16 = quiet(parts.stretch_fp16)
    assert [c.op for c in fp16] == ["aten::t", "aten::addmm"] and fp16[1].out == "f16[2, 600]"
    calls, y = quiet(parts.stretch_no_grad)
    assert [c.op for c in calls] == ["aten::t", "aten::addmm"] and y.grad_fn is None
    calls, out = printed(parts.stretch_matmul_plus_bias)
    assert [c.op for c in calls] == ["aten::permute", "aten::mm", "aten::add.Tensor"]
    assert "grad_fn = <AddBackward0 object at" in out


def test_interpretation_follows_from_the_outputs():
    results = [quiet(p) for p in (parts.part_a_baseline, parts.part_b_key_sets, parts.part_c_linear_ops,
                                  parts.part_d_addmm_directly, parts.part_e_profile)]
    text = parts.interpretation(*results)
    assert "decomposed above the Python key into `aten::t`, `aten::addmm`" in text
    assert "logged 2 ops" in text and "as many as" in text and "identical" in text
    assert "records `AddmmBackward0`" in text


def test_drill_hot_ops_are_a_real_share_of_the_time():
    rows, hot = quiet(drill.profile_drill, 3)
    names = {r.name for r in rows}
    assert hot and all(name in names and 0.05 <= share <= 1 for name, share in hot)
    assert sum(share for _, share in hot) <= 1.0 + 1e-9


def test_benchmark_measures_each_batch_size():
    results = quiet(drill.benchmark_linear, (2, 8))
    assert set(results) == {2, 8} and all(m.median > 0 for m in results.values())


def test_exercise_1_cuda_slot_is_a_default_backend_kernel_in_this_build():
    rows = quiet(exercises.exercise_1_cpu_and_cuda_rows)
    for op in ("aten::add.Tensor", "aten::mm"):
        assert rows[op]["CUDA"].kind == "default backend kernel"
        assert rows[op]["CUDA"].source.startswith("RegisterCompositeExplicitAutogradNonFunctional")
        assert rows[op]["AutogradCPU"].source == rows[op]["AutogradCUDA"].source


def test_exercise_2_the_mode_sees_backward_and_which_node_ran_each_op():
    (forward, backward, received), out = printed(exercises.exercise_2_backward_under_a_mode)
    assert [c.op for c in forward] == ["aten::add.Tensor", "aten::sum"]
    # the seed gradient from backward() itself, SumBackward0's expand (a stride-0 view), AddBackward0 with no op,
    # then AccumulateGrad copying that gradient into a new, contiguous x.grad
    assert [(node, c.op) for node, c in backward] == [
        ("backward(), before any node", "aten::ones_like"),
        ("SumBackward0", "aten::expand"),
        ("AccumulateGrad", "aten::new_empty_strided"),
        ("AccumulateGrad", "aten::copy_"),
    ]
    assert received == {"SumBackward0": (), "AddBackward0": (0, 0), "AccumulateGrad": (0, 0)}
    assert "| x.grad strides: (3, 1)" in out
    assert "SumBackward0: aten::expand(f32[], [2, 3]) -> f32[2, 3]" in out


def test_exercise_3_vmap_runs_batched_ops_once():
    looped, vmapped, calls = quiet(exercises.exercise_3_vmap_under_a_mode)
    assert torch.allclose(looped, vmapped)
    assert calls[0].args[0] == "f32[5, 4]"
    ops = [c.op for c in calls]
    assert "aten::mm" not in ops and ops.count("aten::bmm") == 1  # the per-sample t @ t became one bmm
    assert ops.count("aten::exp") == 1  # batched ops run once, not five per-sample calls


def test_exercise_4_in_and_out_dims():
    out, text = printed(exercises.exercise_4_in_dims_out_dims)
    assert out.shape == (3, 5)
    assert "same as x * w[:, None]: True" in text


def test_the_lab_writes_its_deliverables(tmp_path):
    paths = quiet(run.main, ["--out", str(tmp_path)])
    assert sorted(p.name for p in paths) == ["REPORT.md", "manifest.json", "trace.log"]
    assert (tmp_path / "trace.log").read_text().splitlines()[1].startswith("aten::addmm(f32[600] grad")
    report = (tmp_path / "REPORT.md").read_text()
    for section in ("## A. Baseline", "## B. Key sets", "## C.", "## D.", "## E.", "## Interpretation"):
        assert section in report
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["lab"] == "lab00" and manifest["seed"] == parts.SEED and manifest["torch"].startswith("2.13.0")
