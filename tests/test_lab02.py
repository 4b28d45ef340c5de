"""What lab 02 says, asserted on the functions its blocks call, and its deliverables."""

import json
import os
import re
import xml.etree.ElementTree as ET
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from hood.capture.common import localize
from hood.capture.custom_ops import wrapper_calls
from hood.capture.figure import figure_data
from snippets.custom_ops.checks import check_scaled_linear
from snippets.custom_ops.compare_tables import compare_tables, draw_tables
from snippets.custom_ops.head import TemperatureHead, head_trace
from snippets.custom_ops.no_fake import without_fake
from snippets.custom_ops.record_ops import RecordOps
from snippets.custom_ops.redefine import redefine_pitfall
from snippets.custom_ops.reference import against_reference
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def scaled_linear():
    """The op, defined once for the module (a second definition would replace it)."""
    return define_scaled_linear()


def test_the_op_agrees_with_its_reference_within_1e_6(scaled_linear, capsys):
    results = against_reference(scaled_linear)
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "esquema: hood::scaled_linear(" in localize(printed, "es")
    assert "schema: hood::scaled_linear(Tensor x, Tensor W, Tensor b, float scale) -> Tensor" in out
    for label in ("y", "dx", "dW", "db"):
        assert f"{label}: max |custom op - reference| < 1e-06" in out
    for ours, ref in zip(*results.values()):
        assert torch.allclose(ours, ref, rtol=0, atol=1e-7)


def test_checks_pass(scaled_linear):
    first, second, report = check_scaled_linear(scaled_linear)
    assert first is True and second is True
    assert report == {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
                      "test_faketensor": "SUCCESS", "test_aot_dispatch_dynamic": "SUCCESS"}


def test_tables_side_by_side(scaled_linear):
    ours, addmm = compare_tables()
    mine, theirs = {r.key: r for r in ours}, {r.key: r for r in addmm}
    assert mine["AutocastCPU"].fallthrough
    assert theirs["AutocastCPU"].kind == "kernel" and not theirs["AutocastCPU"].fallthrough
    assert theirs["AutogradCPU"].source.endswith("VariableType_0.cpp")
    assert mine["AutogradCPU"].source.endswith("custom_ops.py")
    assert theirs["Meta"].source.endswith("_meta_registrations.py") and mine["Meta"].source.endswith("custom_ops.py")
    assert theirs["CPU"].kind == "kernel" and mine["CPU"].kind == "default backend kernel"
    x, W, b = running_example()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.addmm(b, x, W.t()).dtype == torch.bfloat16  # addmm's autocast kernel casts


def test_tables_drawn_side_by_side(scaled_linear, capsys):
    ours, addmm = compare_tables()
    capsys.readouterr()
    differ = draw_tables(ours, addmm)
    out = capsys.readouterr().out
    # "each of the three rows the operators share becomes one box across both columns"; four keys differ
    assert differ == ["AutocastCPU", "AutogradCPU", "Meta", "CPU"]
    shared = [a.key for a, b in zip(ours, addmm) if a == b]
    assert shared == ["ADInplaceOrView", "Functionalize", "Python"]
    root = ET.fromstring(re.search(r"<svg\b.*?</svg>", localize(out, "en"), re.DOTALL).group(0))
    rects = [r.get("class") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert rects.count("muted") == len(shared) and rects.count("accent") == 2 * len(differ)
    svg_rects = list(root.iter("{http://www.w3.org/2000/svg}rect"))
    widths = {css: {float(r.get("width")) for r in svg_rects if r.get("class") == css} for css in ("muted", "accent")}
    assert len(widths["muted"]) == len(widths["accent"]) == 1 and min(widths["muted"]) > 2 * min(widths["accent"])
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[:2] == ["hood::scaled_linear", "aten::addmm"] and "default backend kernel" in texts
    assert localize(out, "en") != localize(out, "es")
    data = figure_data(out)
    assert "\u27e6" not in data and "<svg" not in data
    assert "AutocastCPU: fallthrough backend fallback (autocast_mode.cpp) | kernel (autocast_mode.cpp)" in data
    assert data.strip().endswith("differ: AutocastCPU, AutogradCPU, Meta, CPU")


def test_one_op_then_log_softmax_then_detach(scaled_linear):
    assert head_trace() == ["hood.scaled_linear.default", "aten._log_softmax.default", "aten.detach.default"]


@pytest.mark.parametrize(("op", "saves_output"), [
    (torch.relu, True), (torch.exp, True), (lambda t: torch.log_softmax(t, -1), True), (torch.sin, False)])
def test_detach_appears_when_an_op_saves_its_output(op, saves_output):
    with RecordOps() as tracked:
        op(torch.randn(4, requires_grad=True))
    with RecordOps() as untracked:
        op(torch.randn(4))
    assert ("aten.detach.default" in tracked.ops) == saves_output
    assert "aten.detach.default" not in untracked.ops


def test_log_probabilities_reach_29_where_a_float32_step_is_1_9e_6(scaled_linear):
    x, W, b = running_example()
    with torch.no_grad():
        out = TemperatureHead(W, b)(x)
    assert 25 < out.abs().max().item() < 35
    assert np.spacing(np.float32(29)) == pytest.approx(1.9073486e-06)


def test_without_fake(capsys):
    errors = without_fake()
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "tensores meta: RuntimeError: There was no fake impl registered" in localize(printed, "es")
    assert "eager on real tensors: (2, 600)" in out
    assert type(errors["meta tensors"]).__name__ == "RuntimeError"
    assert type(errors["torch.compile"]).__name__ == "TorchRuntimeError"
    assert type(errors["opcheck"]).__name__ == "OpCheckError"
    assert "test_faketensor failed" in str(errors["opcheck"])
    for err in errors.values():
        assert "There was no fake impl registered for <CustomOpDef(hood::scaled_linear_nofake)>" in str(err)
    assert "which wraps RuntimeError: There was no fake impl registered" in out


def test_redefinition_replaces_silently(capsys):
    err = redefine_pitfall()
    out = localize(capsys.readouterr().out, "en")
    assert "the registry's entry is now the second: True" in out
    assert "the first definition's library was destroyed: True" in out
    assert "no autograd formula was registered" in str(err)


def test_a_parameter_without_type_hint_is_a_value_error():
    def untyped(x):
        return x
    with pytest.raises(ValueError, match="must have a type annotation"):
        torch.library.custom_op("hood::untyped", untyped, mutates_args=())


def start_lab(out: Path, *args: str) -> subprocess.Popen:
    """Start `python -m snippets.lab02.run --out DIR [args]`, as a reader would, with its own Inductor cache."""
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor"), "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    return subprocess.Popen([sys.executable, "-m", "snippets.lab02.run", "--out", str(out), *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """The deliverables of an English run (the default) and of `--lang es`, the two run side by side."""
    outs = {"en": tmp_path_factory.mktemp("lab02"), "es": tmp_path_factory.mktemp("lab02-es")}
    started = {lang: start_lab(out, *(["--lang", "es"] if lang == "es" else [])) for lang, out in outs.items()}
    for lang, proc in started.items():
        _, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{lang}: {stderr[-3000:]}"
    return outs


@pytest.fixture(scope="module")
def deliverables(runs) -> Path:
    return runs["en"]


@pytest.fixture(scope="module")
def deliverables_es(runs) -> Path:
    return runs["es"]


REPORT_EN = ("# Lab 02 · A custom op end to end: report", "Objective: register `hood::scaled_linear",
             "Every block below was printed by torch", "## 1. The op against its reference",
             "## 3. The dispatch table, next to aten::addmm", "for the custom op, `AutocastCPU` falls through.",
             "## 4. What a TorchDispatchMode sees", "## 5. Compiled with fullgraph=True",
             "the backward wrapper has no call to the op", "## 6. Without register_fake",
             "Real tensors never need the fake kernel.", "## 7. Pitfall: one name, two definitions",
             "Define each op once, in a module imported once.")
"""Fixed headings and sentences of the English REPORT.md."""

REPORT_ES = ("# Lab 02 · Un operador propio de punta a punta: informe", "Objetivo: registrar `hood::scaled_linear",
             "Todos los bloques de abajo los imprimió torch", "## 1. El operador frente a su referencia",
             "## 3. La tabla de dispatch, junto a la de aten::addmm",
             "para el operador propio, la entrada `AutocastCPU` deja pasar la llamada.",
             "## 4. Lo que ve un TorchDispatchMode", "## 5. Compilado con fullgraph=True",
             "el wrapper del backward no llama al operador", "## 6. Sin register_fake",
             "Los tensores reales nunca necesitan el kernel fake.", "## 7. Trampa: un nombre, dos definiciones",
             "Define cada operador una sola vez, en un módulo que se importe una sola vez.")
"""The same headings and sentences in the Spanish REPORT.md."""


def test_deliverable_files(deliverables):
    for name in ("REPORT.md", "opcheck.json", "generated_forward.py", "generated_backward.py", "manifest.json"):
        assert (deliverables / name).is_file(), name
    assert set(json.loads((deliverables / "opcheck.json").read_text()).values()) == {"SUCCESS"}
    meta = json.loads((deliverables / "manifest.json").read_text())
    assert meta["lab"] == "lab02-custom-op" and meta["seed"] == 42


def test_compiled_forward_calls_the_op_and_backward_does_not(deliverables):
    forward = wrapper_calls((deliverables / "generated_forward.py").read_text())
    backward = wrapper_calls((deliverables / "generated_backward.py").read_text())
    assert any(line.startswith("buf0 = torch.ops.hood.scaled_linear.default(") for line in forward)
    assert any(line.startswith("cpp_fused__log_softmax_0(") for line in forward)
    assert not any("hood." in line for line in backward)
    assert sum(line.startswith("extern_kernels.mm(") for line in backward) == 2
    assert any(line.startswith("cpp_fused__log_softmax_backward_data_mul_0(") for line in backward)
    assert any(line.startswith("cpp_fused_sum_1(") for line in backward)


def test_compiled_agrees_with_eager(deliverables):
    report = (deliverables / "REPORT.md").read_text()
    bounds = dict(line.split(": max abs diff ") for line in report.splitlines() if line.startswith("compiled vs eager"))
    for what in ("output", "dx", "dW", "db"):  # the page says: within 1e-4
        assert bounds[f"compiled vs eager {what}"] == "< 1e-04", what
    for title in ("## 1. The op against its reference", "## 5. Compiled with fullgraph=True",
                  "## 6. Without register_fake", "## 7. Pitfall: one name, two definitions"):
        assert title in report
    assert all(text in report for text in REPORT_EN) and not any(text in report for text in REPORT_ES)
    assert "\u27e6" not in report  # every words() marker was resolved


def test_the_report_in_spanish(deliverables_es):
    report = (deliverables_es / "REPORT.md").read_text()
    missing = [text for text in REPORT_ES if text not in report]
    english = [text for text in REPORT_EN if text in report]
    assert not missing and not english, (missing, english)
    assert "\u27e6" not in report
    # the outputs' own words are in Spanish; torch's stay as the run printed them
    bounds = dict(line.split(": diferencia absoluta máxima ") for line in report.splitlines()
                  if line.startswith("compilado frente a eager"))
    assert {bounds[f"compilado frente a eager, {what}"] for what in ("salida", "dx", "dW", "db")} == {"< 1e-04"}
    assert "hood.scaled_linear.default" in report
    assert set(json.loads((deliverables_es / "opcheck.json").read_text()).values()) == {"SUCCESS"}


def test_setup_context_saves_x_w_and_scale(scaled_linear):
    """The page: `setup_context` saves `x`, `W` and `scale` (the tensors for backward, the float on the context)."""
    x, W, b = running_example()
    node = scaled_linear(x, W, b, 0.5).grad_fn
    assert [t is s for t, s in zip(node.saved_tensors, (x, W))] == [True, True] and len(node.saved_tensors) == 2
    assert node.scale == 0.5
