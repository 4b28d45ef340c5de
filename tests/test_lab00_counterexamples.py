"""Lab 00's general sentences tried against counterexamples, and the lab as a notebook: each task's answer in its
own solution, the deliverables written by the page's last block from the learner's functions."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from torch.utils import benchmark as torch_benchmark

from hood.capture.common import localize
from hood.capture.ops import OpLog
from hood.capture.tables import table_rows
from hood.stdout import printed
from snippets.lab00 import device_names, drill, logging_mode, parts, run, vmap_fallback
from snippets.running_example import running_example

ROOT = Path(__file__).resolve().parents[1]
PAGE = "labs/00-trace-the-dispatcher.md"
TORCH = Path(torch.__file__).parent


def page(language: str) -> str:
    return (ROOT / "docs" / language / PAGE).read_text(encoding="utf-8")


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_under_inference_mode_the_mode_sees_linear_and_matmul():
    """Block part-c-inference: the counterexample to 'a mode only sees what linear decomposed into'."""
    x, W, b = running_example(parts.SEED)
    with torch.inference_mode(), logging_mode.LoggingMode() as mode:
        F.linear(x, W, b)
        torch.matmul(x, W.t())
    assert mode.names == ["aten::linear", "aten::t", "aten::matmul"]


def test_linear_is_one_composite_kernel_in_both_slots():
    rows = {r.key: r for r in table_rows("aten::linear", ("AutogradCPU", "CPU"))}
    for key in ("AutogradCPU", "CPU"):
        assert rows[key].kind == "math kernel" and rows[key].source.startswith("RegisterCompositeImplicitAutograd")


def test_not_every_tensor_carries_autograd_cpu():
    with torch.inference_mode():
        made_inside = torch.ones(2)
    assert str(torch._C._dispatch_keys(made_inside)) == "DispatchKeySet(CPU, AutocastCPU)"
    z = torch.ones(2, dtype=torch.complex64)
    assert "Conjugate" in str(torch._C._dispatch_keys(z.conj()))


def test_drill_profiler_stacks_are_empty_and_a_mode_finds_the_caller():
    rows, hot, caller = quiet(drill.profile_drill, 2)
    assert [f.name for f in caller][-2:] == ["profile_drill", "training_step"]
    assert caller[-1].line == "F.linear(x, W, b).sum().backward()"
    _, out = printed(drill.profile_drill, 2)
    assert "with_stack=True: 0 of 2 aten::addmm events carry a stack" in localize(out, "en")
    assert "with_stack=True: 0 de 2 eventos aten::addmm llevan pila" in localize(out, "es")


def test_without_clearing_grad_later_steps_accumulate():
    x, W, b = running_example()
    steps = []
    for _ in range(2):
        with OpLog() as log:
            F.linear(x, W, b).sum().backward()
        steps.append(log.names)
    assert steps[0].count("aten::detach") == 3 and "aten::add_.Tensor" not in steps[0]
    assert steps[1].count("aten::add_.Tensor") == 3 and "aten::detach" not in steps[1]
    for t in (x, W, b):
        t.grad = None
    with OpLog() as cleared:
        drill.training_step(x, W, b)
    assert cleared.names == steps[0]  # clearing .grad, as training_step does, gives the first step again


def test_blocked_autorange_stops_on_time_not_on_stability():
    source = (TORCH / "utils/benchmark/utils/timer.py").read_text().splitlines()
    assert source[369].strip().startswith("def stop_hook") and source[370].strip() == "return True"
    assert source[18].strip() == "torch.accelerator.synchronize()"  # the default timer, linked from the page
    m = torch_benchmark.Timer("pass").blocked_autorange(min_run_time=0.05)
    assert sum(m.raw_times) >= 0.05


def test_an_operator_without_a_batching_rule_runs_once_per_sample():
    calls, message = quiet(vmap_fallback.vmap_without_a_batching_rule)
    assert [c.args[0] for c in calls if c.op == "aten::histc"] == ["f32[4]"] * 5
    assert "batching rule for aten::histc" in message
    ops = [c.op for c in calls]
    assert ops.count("aten::select.int") == 5 and "aten::stack" in ops and ops.index("aten::stack") > ops.index(
        "aten::histc")


def test_attention_logs_a_cpu_named_operator():
    assert quiet(device_names.attention_on_cpu) == ["aten::_scaled_dot_product_flash_attention_for_cpu"]


def test_default_backend_kernel_source_line():
    lines = (TORCH / "include/c10/core/DispatchKey.h").read_text().splitlines()
    assert lines[460].strip().startswith("CompositeExplicitAutogradNonFunctional,")


def test_the_last_block_writes_the_deliverables_from_the_learners_functions(tmp_path):
    paths, out = printed(run.write_lab00, tmp_path)
    assert sorted(p.name for p in paths) == ["REPORT.md", "manifest.json", "trace.log"]
    assert "trace.log:\naten::t(f32[600, 64] grad) -> f32[64, 600]\naten::addmm(" in out
    assert "manifest.json: lab lab00, torch 2.13.0, seed 42" in localize(out, "en")
    assert "manifest.json: lab lab00, torch 2.13.0, semilla 42" in localize(out, "es")
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert meta["lab"] == "lab00" and meta["seed"] == 42 and meta["code_sha256"]
    # the body finds the parts by name when it runs: a learner's own function replaces the reference one
    original = run.part_c_linear_ops
    try:
        run.part_c_linear_ops = lambda: parts.log_ops(lambda: torch.ones(1) + 1)
        files = quiet(run.lab00_files)
        assert files["trace.log"].startswith("aten::ones(")
    finally:
        run.part_c_linear_ops = original


def test_the_page_is_a_notebook_of_its_own():
    for language in ("en", "es"):
        text = page(language)
        setup = text[text.index('id="setup"'):text.index("```", text.index('id="setup"'))]
        assert "lab00/parts.py:helpers" in setup and "lab00/parts.py:part_" not in setup
        assert "exercises.py" not in setup and "hood/labkit.py:body" in setup
        assert "snippets.lab00.run" not in text and "clone" not in text.lower()
        blocks = re.findall(r'```python exec="on" id="([^"]+)"', text)
        assert blocks[-1] == "deliverables"
        for section in ("part_a", "part_b", "part_c", "part_d", "part_e", "part_f", "stretch_fp16",
                        "stretch_no_grad", "stretch_matmul"):
            assert text.count(f'--8<-- "lab00/parts.py:{section}"') == 1, section
        for n in range(1, 5):
            assert text.count(f'--8<-- "lab00/exercises.py:exercise_{n}"') == 1


def test_in_this_lab_box_counts_the_tasks():
    en, es = page("en"), page("es")
    assert en.count("**Task.**") == es.count("**Tarea.**") == 17
    assert '!!! abstract "In this lab"' in en and "**Time:** about 240 min: seventeen tasks" in en
    assert '!!! abstract "En este lab"' in es and "**Tiempo:** unos 240 min: diecisiete tareas" in es


def test_no_sentence_says_names_do_not_change_with_the_device():
    for text in (page("en"), page("es")):
        assert "names stay the same" not in text and "do not change with the device" not in text
        assert "son los mismos;" not in text and "no cambian con el dispositivo" not in text
        assert "enough blocks to be stable" not in text and "para que la medida sea estable" not in text
        assert "registered at `AutogradCPU`" not in text and "registrado en `AutogradCPU`" not in text


def test_vmap_warning_is_a_user_warning_from_vmap():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.vmap(lambda t: torch.histc(t, bins=4))(torch.randn(3, 4))
    assert any("batching rule" in str(w.message) for w in caught)
