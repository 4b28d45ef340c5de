"""Every claim lab 00 makes about its outputs, and its runnable deliverables."""

from __future__ import annotations

import contextlib
import io
import json

import torch

from hood.capture.tables import table_rows
from hood.stdout import printed
from hood.capture.common import key_names, localize
from hood.capture.ops import OpLog
from snippets.lab00 import (benchmark, drill, exercises, logging_mode, parts, run, timing_sentence, vmap_count,
                            vmap_keys, vmap_timing, what_a_mode_sees)


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
    assert ("aten::addmm", "[[600], [2, 64], [64, 600], [], []]") in by_name  # the addmm linear calls
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
    text = localize(parts.interpretation(*results), "en")
    assert "decomposed above the Python key into `aten::t`, `aten::addmm`" in text
    assert "logged 2 ops" in text and "as many as" in text and "identical" in text
    assert "records `AddmmBackward0`" in text


def test_drill_hot_ops_are_a_real_share_of_the_time():
    rows, hot, caller = quiet(drill.profile_drill, 3)
    names = {r.name for r in rows}
    assert hot and all(name in names and 0.05 <= share <= 1 for name, share in hot)
    assert sum(share for _, share in hot) <= 1.0 + 1e-9


def test_benchmark_measures_each_batch_size():
    results = quiet(benchmark.benchmark_linear, (2, 8))
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
    assert [(localize(node, "en"), c.op) for node, c in backward] == [
        ("backward(), before any node", "aten::ones_like"),
        ("SumBackward0", "aten::expand"),
        ("AccumulateGrad", "aten::new_empty_strided"),
        ("AccumulateGrad", "aten::copy_"),
    ]
    assert received == {"SumBackward0": (), "AddBackward0": (0, 0), "AccumulateGrad": (0, 0)}
    assert "| x.grad strides: (3, 1)" in localize(out, "en") and "| strides de x.grad: (3, 1)" in localize(out, "es")
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
    assert "same as x * w[:, None]: True" in localize(text, "en")
    assert "igual que x * w[:, None]: True" in localize(text, "es")


REPORT_EN = ("# Lab 00 report: the dispatcher on linear(x, W, b)", ", seed 42.", "## A. Baseline", "## B. Key sets",
             "## C. Logging mode, F.linear(x, W, b)", "## E. Profiler, forward and backward (rows of interest)",
             "## Interpretation", "never reached the dispatch mode as `aten::linear`", "as many as `linear`",
             "records `AddmmBackward0`, then redispatches down to the CPU kernel")
"""Fixed headings and sentences of the English REPORT.md."""

REPORT_ES = ("# Informe del lab 00: el dispatcher en linear(x, W, b)", ", semilla 42.",
             "## A. La llamada de referencia", "## B. Conjuntos de claves",
             "## C. Log del modo de dispatch, F.linear(x, W, b)",
             "## E. Profiler, forward y backward (las filas que interesan)", "## Interpretación",
             "nunca llegó al modo de dispatch como `aten::linear`", "tantos como con `linear`",
             "graba `AddmmBackward0` y después redespacha la llamada hacia el kernel de CPU")
"""The same headings and sentences in the Spanish REPORT.md."""


def test_the_lab_writes_its_deliverables(tmp_path):
    paths = quiet(run.main, ["--out", str(tmp_path)])
    assert sorted(p.name for p in paths) == ["REPORT.md", "manifest.json", "trace.log"]
    trace = (tmp_path / "trace.log").read_text().splitlines()
    assert len(trace) == 2 and trace[0] == "aten::t(f32[600, 64] grad) -> f32[64, 600]"
    assert trace[1].startswith("aten::addmm(f32[600] grad") and trace[1].endswith("-> f32[2, 600]")
    report = (tmp_path / "REPORT.md").read_text()
    for section in ("## A. Baseline", "## B. Key sets", "## C.", "## D.", "## E.", "## Interpretation"):
        assert section in report
    assert all(text in report for text in REPORT_EN) and not any(text in report for text in REPORT_ES)
    assert "\u27e6" not in report  # every words() marker was resolved
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["lab"] == "lab00" and manifest["seed"] == parts.SEED == 42
    assert manifest["torch"].startswith("2.13.0")
    assert manifest["timestamp"] and manifest["code_sha256"]


def test_the_english_report_keeps_the_pages_interpretation(tmp_path):
    """The page quotes `interpretation(...)` under block `report`; the English report has its English paragraph."""
    results = [quiet(p) for p in (parts.part_a_baseline, parts.part_b_key_sets, parts.part_c_linear_ops,
                                  parts.part_d_addmm_directly, parts.part_e_profile)]
    quiet(run.main, ["--out", str(tmp_path)])
    assert localize(parts.interpretation(*results), "en") in (tmp_path / "REPORT.md").read_text()


def test_the_lab_writes_its_report_in_spanish(tmp_path):
    paths = quiet(run.main, ["--out", str(tmp_path), "--lang", "es"])
    assert sorted(p.name for p in paths) == ["REPORT.md", "manifest.json", "trace.log"]
    report = (tmp_path / "REPORT.md").read_text()
    missing = [text for text in REPORT_ES if text not in report]
    english = [text for text in REPORT_EN if text in report]
    assert not missing and not english, (missing, english)
    assert "\u27e6" not in report
    # the data stays as the run printed it: key names, operators, shapes
    assert "claves del tensor  : CPU, ADInplaceOrView, AutogradCPU, AutocastCPU" in report
    assert "aten::addmm(f32[600] grad, f32[2, 64] grad, f32[64, 600] grad) -> f32[2, 600]" in report
    assert "formas de entrada [[2, 64], [600, 64], [600]] y el backward `AddmmBackward0` con [[2, 600]]" in report
    trace = (tmp_path / "trace.log").read_text().splitlines()
    assert len(trace) == 2 and trace[0] == "aten::t(f32[600, 64] grad) -> f32[64, 600]"
    assert trace[1].startswith("aten::addmm(f32[600] grad") and trace[1].endswith("-> f32[2, 600]")


def test_part_c_the_short_logging_mode_logs_t_and_addmm():
    x, W, b = parts.running_example(parts.SEED)
    with logging_mode.LoggingMode() as mode:
        torch.nn.functional.linear(x, W, b)
    assert mode.names == ["aten::t", "aten::addmm"] == [c.op for c in quiet(parts.part_c_linear_ops)]
    # the pitfall: without parentheses, a bound method
    assert str(torch.ops.aten.add.Tensor.name).startswith("<bound method OpOverload.name")


def test_a_logging_mode_sees_operators_not_routes():
    (names, z, w), out = printed(what_a_mode_sees.log_add_and_mm)
    assert names == ["aten::add.Tensor", "aten::mm"]
    assert type(z.grad_fn).__name__ == "AddBackward0" and type(w.grad_fn).__name__ == "MmBackward0"
    assert "grad_fn of x + y: AddBackward0, of torch.mm(x, y): MmBackward0" in out


def test_fp16_inputs_log_no_cast_but_autocast_does():
    fp16 = quiet(parts.stretch_fp16)
    assert not any("_to_copy" in c.op for c in fp16)
    x, W, b = parts.running_example(parts.SEED)
    with torch.autocast("cpu", dtype=torch.bfloat16), OpLog() as log:
        torch.nn.functional.linear(x, W, b)
    assert log.names.count("aten::_to_copy") == 3


def test_vmap_adds_func_torch_batched_to_the_key_set():
    direct, inside = (key_names(k) for k in quiet(vmap_keys.keys_inside_vmap))
    assert "FuncTorchBatched" not in direct and inside == direct + ("FuncTorchBatched",)


def test_a_loop_makes_one_call_per_sample_and_op_vmap_one_per_op():
    loop, vmapped = quiet(vmap_count.count_loop_and_vmap)
    assert len(loop) == 22 == 1 + 5 * 4 + 1  # unbind, four ops per sample, stack
    assert [c.op for c in loop][0] == "aten::unbind.int" and loop[-1].op == "aten::stack"
    assert [c.op for c in vmapped] == ["aten::mul.Tensor", "aten::sin", "aten::add.Tensor", "aten::sum.dim_IntList"]
    assert all(c.args[0] == "f32[5, 4]" for c in vmapped)  # each on the whole batch


def test_the_timing_sentence_follows_the_numbers():
    both = [localize(timing_sentence.read_timing(rows), lang) for rows in
            ([(8, 300.0, 100.0), (512, 9000.0, 100.0)], [(8, 100.0, 200.0), (512, 9000.0, 100.0)],
             [(8, 100.0, 200.0), (512, 100.0, 200.0)]) for lang in ("en", "es")]
    assert "vmap was faster at every batch size, 3.0x at batch 8 and 90.0x at batch 512." in both[0]
    assert ("vmap fue más rápido en todos los tamaños de lote: 3,0 veces con lote 8 y 90,0 veces con lote 512."
            in both[1])
    assert "vmap fue más rápido a partir del lote 512 (90,0 veces más rápido con lote 512), no antes." in both[3]
    assert "vmap was not faster than the loop by more than 5 % at any batch size" in both[4]
    rows = quiet(vmap_timing.time_loop_and_vmap, (4,), 0.01)
    assert [n for n, _, _ in rows] == [4] and all(t > 0 for _, *times in rows for t in times)


def test_every_timing_sentence_is_true_of_the_numbers_beside_it_in_every_order():
    """'from batch N on' only when the faster sizes are the largest ones; otherwise the faster sizes are listed."""
    import itertools
    import re

    for speedups in itertools.product((0.5, 1.02, 1.2, 6.0), repeat=3):
        rows = [(n, 100.0 * s, 100.0) for n, s in zip((8, 64, 512), speedups)]
        for order in itertools.permutations(rows):
            text = localize(timing_sentence.read_timing(list(order)), "en").splitlines()[-1]
            faster = {n for n, s in zip((8, 64, 512), speedups) if s > 1.05}
            if m := re.search(r"from batch (\d+) on \((\S+)x at batch 512\)", text):
                assert faster == {n for n in (8, 64, 512) if n >= int(m[1])} and 0 < len(faster) < 3
                assert float(m[2]) == round(speedups[2], 1)
            elif m := re.search(r"only at batch ([\d, ]+), not", text):
                assert faster == {int(n) for n in m[1].split(", ")}
            elif "at every batch size" in text:
                assert faster == {8, 64, 512}
            else:
                assert "not faster" in text and not faster


def test_pitfalls_factories_are_logged_and_a_mode_must_return_the_result():
    with OpLog() as log:
        torch.randn(2, 3)
    assert log.names == ["aten::randn"]

    class Forgets(logging_mode.LoggingMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(func.name())

    x = torch.ones(2)
    with Forgets():
        assert torch.ones(2) is None and x + x is None  # every call under it returns None


def test_vmap_count_agrees_within_its_tolerance():
    _, out = printed(vmap_count.count_loop_and_vmap)
    english = localize(out, "en")
    assert "loop over 5 samples: 22 operator calls" in english and "one vmap call: 4 operator calls" in english
    assert "bucle sobre 5 muestras: 22 llamadas a operadores" in localize(out, "es")
    assert "max |diff| < 1e-04" in english and "diferencia máxima < 1e-04" in localize(out, "es")
