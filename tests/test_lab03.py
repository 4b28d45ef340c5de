"""Lab 03: the compiled head agrees with eager, the kernel annotation holds, the graphs, modes and deliverables."""

import dataclasses
import json
import re

import pytest
import torch

from hood.capture.compile import InductorOutput
from snippets.compile.aot_graphs import aot_graphs, saved_for_backward
from snippets.compile.heads import TinyHead
from snippets.lab03.compile_head import compile_head
from hood.capture.common import localize
from hood.capture.figure import figure_data
from snippets.lab03.kernel_annotation import (
    ANNOTATION,
    KERNEL,
    Check,
    annotate,
    describe,
    evaluate,
    render_annotation,
)
from tests.sitekit import ROOT


pytestmark = pytest.mark.usefixtures("like_a_block")


@pytest.fixture(scope="module")
def compiled():
    torch.set_num_threads(2)
    return compile_head()


def test_compiled_head_agrees_with_eager_below_1e_6(compiled, capsys):
    head_code, agreement = compiled
    assert agreement.within and agreement.tol == 1e-6
    assert head_code.extern_calls == ["extern_kernels.addmm"] and list(head_code.kernels) == [KERNEL]


def test_every_annotation_check_holds_on_the_real_kernel(compiled):
    head_code, _ = compiled
    results = annotate(head_code)
    failed = [(claim.title, check.pattern) for claim, checks in results for check, ok, _ in checks if not ok]
    assert failed == []
    assert len(results) == len(ANNOTATION) == 8
    text = render_annotation(results)
    assert "FAILED" not in text and text.count("[ok ]") == sum(len(c.checks) for c in ANNOTATION)


def test_the_annotation_fails_when_the_kernel_changes(compiled):
    head_code, _ = compiled
    kernel = head_code.kernels[KERNEL]
    one_pass = kernel.replace("x1<static_cast<int64_t>(600L)", "x1<static_cast<int64_t>(601L)", 1)
    scalar = kernel.replace("x1+=static_cast<int64_t>(8L)", "x1+=static_cast<int64_t>(1L)")
    with_buf2 = head_code.call + "\nbuf2 = empty_strided_cpu((2, 600), (600, 1), torch.float32)"
    for changed in (dataclasses.replace(head_code, kernels={KERNEL: one_pass}),
                    dataclasses.replace(head_code, kernels={KERNEL: scalar}),
                    dataclasses.replace(head_code, call=with_buf2)):
        assert any(not ok for _, checks in annotate(changed) for _, ok, _ in checks)
    failing = render_annotation(annotate(dataclasses.replace(head_code, call=with_buf2)))
    assert "[FAILED]" in localize(failing, "en") and "[FALLO]" in localize(failing, "es")
    assert "FAILED" not in localize(failing, "es")


def test_three_passes_and_a_scratch_array_instead_of_a_buffer(compiled):
    """The warning box: three passes over a row, exp kept in a per-thread array, no (2, 600) buffer for it."""
    head_code, _ = compiled
    loop = r"for\(int64_t x1=static_cast<int64_t>\(0L\); x1<static_cast<int64_t>\(600L\)"
    ok, hits = evaluate(Check("kernel", loop), head_code)
    assert ok and len(hits) == 3
    assert "local_buffer_data_0" in head_code.kernels[KERNEL]
    assert [name for name, _ in head_code.buffers] == ["buf0", "buf1", "buf3", "buf4"]


def test_check_counts_are_exact():
    code = InductorOutput(code="", kernels={KERNEL: "a\na\nb\n"}, call="c\n")
    assert evaluate(Check("kernel", "a", 2), code) == (True, ["a", "a"])
    assert evaluate(Check("kernel", "a", 1), code)[0] is False
    assert evaluate(Check("wrapper", "d", 0), code) == (True, [])
    assert evaluate(Check("wrapper", "c"), code)[0] is True


def test_module_graphs_lift_parameters_and_save_two_tensors():
    torch.manual_seed(42)
    graphs = aot_graphs(TinyHead(), torch.randn(2, 64))
    inputs = [n.target for n in graphs["dynamo"].graph.nodes if n.op == "placeholder"]
    assert inputs == ["L_self_modules_fc_parameters_weight_", "L_self_modules_fc_parameters_bias_", "L_x_"]
    forward_inputs = [n.name for n in graphs["forward"].graph.nodes if n.op == "placeholder"]
    assert forward_inputs[:2] == ["primals_1", "primals_2"]
    assert saved_for_backward(graphs) == [("primals_3", (2, 64)), ("detach_1", (2, 600))]
    (output,) = [n for n in graphs["backward"].graph.nodes if n.op == "output"]
    grads = output.args[0]
    assert len(grads) == 3 and grads[2] is None and all(g is not None for g in grads[:2])


def test_max_autotune_keeps_the_kernel_and_the_library_addmm(capsys):
    from snippets.lab03.max_autotune import compare_modes

    results = compare_modes()
    (_, default), (_, tuned) = results["default"], results["max-autotune"]
    assert tuned.kernels == default.kernels
    assert tuned.extern_calls == default.extern_calls == ["extern_kernels.addmm"]
    printed = capsys.readouterr().out
    assert "same generated kernels in every mode: True" in localize(printed, "en")
    assert re.search(r"^     default: compilado en \d+,\d s; ", localize(printed, "es"), re.MULTILINE)


def test_timing_returns_one_row_per_batch_size():
    from snippets.lab03.timing import time_head

    rows = time_head(batches=(2, 8), min_run_time=0.01)
    assert [r.batch for r in rows] == [2, 8]
    assert all(r.eager_us > 0 and r.compiled_us > 0 for r in rows)
    assert torch.get_num_threads() == 2  # restored after timing on one thread


def test_the_timing_sentence_on_time_heads_own_rows_names_no_cause():
    """Part E's sentence, on rows time_head really measured: true of its printed ratios (the property test of
    tests/test_compile_timing.py reads every sentence), and no cause named."""
    from hood.capture.compile_timing import interpret
    from snippets.lab03.timing import time_head
    from tests.test_compile_timing import check_sentences

    rows = time_head(batches=(2, 8), min_run_time=0.01)
    check_sentences(rows, interpret(rows)["en"])


def test_survey_covers_four_patterns_in_both_languages_and_links_the_runs():
    theory = (ROOT / "docs" / "en" / "theory" / "04-distributed.md").read_text()
    anchors = set(re.findall(r"\{#([\w-]+)\}", theory))
    for language in ("en", "es"):
        survey = (ROOT / "snippets" / "lab03" / f"survey_{language}.md").read_text()
        paragraphs = [p for p in survey.split("\n\n") if p.strip()]
        assert len(paragraphs) == 5
        for paragraph, name in zip(paragraphs, ("DDP", "FSDP", "TP", "PP", "MiniGPT")):
            assert name in paragraph.split(".")[0] or name in paragraph.split("?")[0]
        for link in re.findall(r"\(\.\./theory/04-distributed\.md#([\w-]+)\)", survey):
            assert link in anchors
        assert len(re.findall(r"#(ddp|fsdp|tensor-parallel|pipeline)\)", survey)) == 4
        page = (ROOT / "docs" / language / "labs" / "03-compile-and-survey.md").read_text()
        assert f'--8<-- "lab03/survey_{language}.md"' in page
    assert anchors >= {"ddp", "fsdp", "tensor-parallel", "pipeline"}


def test_run_writes_every_deliverable(tmp_path):
    from snippets.lab03 import run

    paths = run.main(["--out", str(tmp_path)], min_run_time=0.01)
    names = sorted(p.name for p in paths)
    assert names == sorted(["REPORT.md", "output_code.py", "kernel.cpp", "KERNEL_ANNOTATION.md", "DISTRIBUTED.md",
                            "manifest.json"])
    report = (tmp_path / "REPORT.md").read_text()
    assert "max abs diff < 1e-06: **True**" in report and "all checks hold: **True**" in report
    assert (tmp_path / "kernel.cpp").read_text().startswith("#include <torch/csrc/inductor/cpp_prefix.h>")
    assert "cpp_fused__softmax_0 = async_compile" in (tmp_path / "output_code.py").read_text()
    assert "FAILED" not in (tmp_path / "KERNEL_ANNOTATION.md").read_text()
    distributed = (tmp_path / "DISTRIBUTED.md").read_text()
    for name in run.PATTERNS:
        assert f"## {name}" in distributed
    assert "## The choice for the MiniGPT" in distributed
    assert distributed.count("gradients equal the mean of the ranks' local gradients: True") == 2
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert meta["lab"] == "lab03" and meta["seed"] == 42 and len(meta["code_sha256"]) == 64


def test_one_claim_block_prints_its_check_holding(compiled):
    """Part D's short block: claim 3, its one check holds on three lines, said in the page's language."""
    head_code, _ = compiled
    claim = ANNOTATION[2]
    assert localize(claim.title, "en") == "Three passes, not one" and len(claim.checks) == 1
    assert localize(claim.title, "es") == "Tres pasadas, no una"
    ok, lines = evaluate(claim.checks[0], head_code)
    assert ok and len(lines) == 3 == claim.checks[0].count
    said = describe(claim.checks[0], ok, lines)
    assert localize(said, "en").endswith("3 times: True, 3 lines")
    assert localize(said, "es").endswith("3 veces: True, 3 líneas") and "must match" not in localize(said, "es")


def test_the_annotation_is_written_in_each_language(compiled):
    """Every claim has an English and a Spanish title and text; the rendered annotation has no English in Spanish."""
    head_code, _ = compiled
    for claim in ANNOTATION:
        for part in (claim.title, claim.text):
            assert localize(part, "en") != localize(part, "es")
    text = render_annotation(annotate(head_code))
    spanish = localize(text, "es")
    assert "Qué se fusionó" in spanish and "línea(s)" in spanish and "p. ej." in spanish
    assert "line(s)" not in spanish and "e.g." not in spanish and "ninguna línea" in spanish


@pytest.fixture(scope="module")
def placed(compiled):
    import contextlib
    import io

    from snippets.lab03.annotated_kernel import show_annotated_kernel

    head_code, _ = compiled
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        notes = show_annotated_kernel(head_code)
    return head_code, notes, out.getvalue()


def test_annotated_kernel_points_each_note_at_the_lines_the_page_names(placed):
    """Part D's figure: claim 3 at kernel lines 21, 37, 55 (the loops over x1), inside the loop over x0 (16), shared
    by the omp for of 15; claim 8 at 13 (the scratch array), 47 (stored) and 60 (read); wrapper 8 and 15."""
    from snippets.lab03.annotated_kernel import listing

    head_code, notes, _ = placed
    kernel, wrapper = listing(head_code, "kernel"), listing(head_code, "wrapper")
    assert kernel == head_code.kernels[KERNEL].rstrip("\n").splitlines() and kernel[0].startswith("#include")
    by_title = {localize(n.title, "en"): n for n in notes}
    three, eight = by_title["Three passes, not one"], by_title["What is not materialised"]
    assert three.lines == {"wrapper": [], "kernel": [21, 37, 55]}
    assert all(kernel[n - 1].strip().startswith("for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>"
                                                 "(600L)") for n in three.lines["kernel"])
    rows_loop = [i for i, line in enumerate(kernel, 1) if line.strip().startswith("for(int64_t x0=")]
    assert rows_loop == [16] and kernel[14].strip() == "#pragma omp for"
    assert rows_loop[0] < min(three.lines["kernel"])  # the three x1 loops sit inside the loop over the rows
    assert eight.lines["kernel"] == [13, 47, 60]
    assert "std::make_unique<float []>(600L)" in kernel[12]
    assert kernel[46].strip().startswith("tmp4.store(local_buffer_data_0") and "loadu(local_buffer_data_0" in kernel[59]
    assert wrapper[7].startswith("extern_kernels.addmm(") and wrapper[14].startswith(f"{KERNEL}(buf0, ")
    assert by_title["What was not fused"].lines == {"wrapper": [8, 15], "kernel": []}


def test_annotated_kernel_lines_are_the_lines_the_checks_count(placed):
    """Every note points at exactly the lines `evaluate` counts, and every check of every note holds."""
    from snippets.lab03.annotated_kernel import listing, matched_lines

    head_code, notes, _ = placed
    assert len(notes) == len(ANNOTATION) == 8
    for note, claim in zip(notes, ANNOTATION):
        assert note.holding == note.checks == len(claim.checks)
        for check in claim.checks:
            numbers = matched_lines(check, head_code)
            lines = listing(head_code, check.where)
            assert [lines[n - 1].strip() for n in numbers] == evaluate(check, head_code)[1]
            assert set(numbers) <= set(note.lines[check.where])


def test_annotated_kernel_figure_in_both_languages_keeps_its_line_numbers(placed):
    from snippets.lab03.annotated_kernel import spans

    head_code, notes, out = placed
    english, spanish = localize(out, "en"), localize(out, "es")
    assert english != spanish
    label = re.compile(r'aria-label="([^"]*)"')
    assert label.search(english)[1] != label.search(spanish)[1] and "numerados" in label.search(spanish)[1]
    assert "(kernel, lines 21, 37, 55)" in english and "(kernel, líneas 21, 37, 55)" in spanish
    assert "Tres pasadas, no una" in spanish and "Se cumple su única comprobación." in spanish
    assert "Se cumplen sus 5 comprobaciones." in spanish and "All 4 of its checks hold." in english
    assert "Se cumplen sus 2 comprobaciones." in spanish and "Both its checks hold." in english
    assert "Only" not in english and "Solo" not in spanish
    assert english.count('class="hll"') == len({(w, n) for note in notes for w, ns in note.lines.items() for n in ns})
    kept = figure_data(out)  # the trace keeps each title in every language, a notebook prints the page's
    assert "<pre>" not in kept
    assert "3. Three passes, not one: wrapper -, kernel [21, 37, 55]; 1/1 checks hold" in localize(kept, "en")
    assert "3. Tres pasadas, no una: wrapper -, kernel [21, 37, 55]; 1/1 comprobaciones cumplidas" in localize(
        kept, "es")
    assert spans([12, 13, 14, 20]) == "12\u201314, 20"


def test_annotated_kernel_says_so_when_a_check_fails(placed):
    from snippets.lab03.annotated_kernel import annotated_kernel_html, place_notes

    head_code, _, _ = placed
    kernel = head_code.kernels[KERNEL].replace("x1<static_cast<int64_t>(600L)", "x1<static_cast<int64_t>(601L)", 1)
    changed = dataclasses.replace(head_code, kernels={KERNEL: kernel})
    notes = place_notes(changed)
    assert (notes[2].holding, notes[2].lines["kernel"]) == (0, [37, 55])
    html = annotated_kernel_html(changed, notes)
    assert "Only 0 of its 1 checks hold." in localize(html, "en")
    assert "No se cumple su única comprobación." in localize(html, "es")


def test_attention_fuses_mask_scale_and_softmax_into_one_kernel(capsys):
    """Stretch: 4 library calls (addmm, bmm, bmm, addmm) and 3 kernels; the second fuses mul, the mask, softmax."""
    from snippets.lab03.attention import compile_attention

    out = compile_attention()
    assert out.extern_calls == ["extern_kernels.addmm", "extern_kernels.bmm", "extern_kernels.bmm",
                                "extern_kernels.addmm"]
    assert len(out.kernels) == 3 and out.kernel_calls == list(out.kernels)
    first, softmax, last = out.kernel_calls
    for op in ("_softmax", "mul", "ones", "tril", "bitwise_not", "masked_fill"):
        assert op in softmax, op
    assert "softmax" not in first + last and "transpose" in first and "transpose" in last
    assert "generated kernels: 3" in localize(capsys.readouterr().out, "en")


def test_export_gives_one_aten_graph_with_parameters_as_inputs(capsys):
    """Stretch: aten.linear and aten.softmax (not t/addmm/_softmax), parameters and the user input named."""
    from snippets.lab03.export_head import export_head

    exported = export_head()
    targets = [str(n.target) for n in exported.graph.nodes if n.op == "call_function"]
    assert targets == ["aten.linear.default", "aten.softmax.int"]
    out = capsys.readouterr().out
    for text in ("p_fc_weight: PARAMETER target='fc.weight'", "p_fc_bias: PARAMETER target='fc.bias'",
                 "x: USER_INPUT"):
        assert text in out, text
    assert "backward" not in out


def test_reduce_overhead_on_cpu_keeps_the_code_and_drops_the_input_asserts(compiled, capsys):
    """Stretch: same kernel and library call, no CUDA graph, only the assert_size_stride lines differ."""
    from snippets.lab03.reduce_overhead import reduce_overhead

    head_code, _ = compiled
    capsys.readouterr()
    out = reduce_overhead(head_code)
    assert out.kernels == head_code.kernels and out.extern_calls == head_code.extern_calls
    assert "cudagraph" not in out.code.lower()
    only_default = [x for x in head_code.call.splitlines() if x not in out.call.splitlines()]
    assert len(only_default) == 3 and all(x.startswith("assert_size_stride(") for x in only_default)
    assert all(x in head_code.call.splitlines() for x in out.call.splitlines())
    text = localize(capsys.readouterr().out, "en")
    assert "same kernels as the default mode: True" in text and "CUDA graphs in the code: False" in text


def test_a_spanish_page_prints_the_patterns_under_their_spanish_names():
    from snippets.lab03.survey import RANK_FUNCTIONS, distributed_report, survey

    report = distributed_report(survey(), dict.fromkeys(RANK_FUNCTIONS, []))
    spanish = [line for line in localize(report, "es").splitlines() if line.startswith("## ")]
    assert spanish == ["## DDP", "## FSDP2", "## Paralelismo tensorial", "## Paralelismo de pipeline",
                       "## La elección para el MiniGPT"]
    assert "## Tensor parallel" in localize(report, "en")
