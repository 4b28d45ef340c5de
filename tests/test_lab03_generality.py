"""Lab 03, beyond its build: the cases a skeptical read tried against its general sentences (one process)."""

import dataclasses
import functools
import inspect
import os
import re
import types
from functools import partial
from types import SimpleNamespace

import pytest
import torch

from hood.capture.compile import artifact_messages, inductor_output
from snippets.compile.heads import TinyHead, inductor_config
from snippets.compile.inductor_code import generated_code
from snippets.lab03.kernel_annotation import ANNOTATION, KERNEL, evaluate
from tests.sitekit import ROOT

pytestmark = pytest.mark.usefixtures("like_a_block")


def head_code(batch=2, threads=2, cpus=None, config=None, **compile_options):
    """The TinyHead compiled as Part A compiles it, under `threads` torch threads, Inductor's `config` and
    `os.cpu_count()` returning `cpus` if given; no cache, so the code is generated under these settings."""
    torch.manual_seed(42)
    torch.set_num_threads(threads)
    torch._dynamo.reset()
    real_cpu_count = os.cpu_count
    if cpus is not None:
        os.cpu_count = lambda: cpus
    try:
        with inductor_config.patch({"force_disable_caches": True, **(config or {})}):
            _, (code,) = generated_code(TinyHead(), torch.randn(batch, 64), **compile_options)
    finally:
        os.cpu_count = real_cpu_count
    return inductor_output(code)


def pragmas(out):
    return re.findall(r"#pragma omp parallel[^\n]*", out.kernels[KERNEL])



def _page(language: str) -> str:
    """Lab 03's Markdown source in `language`."""
    return (ROOT / "docs" / language / "labs" / "03-compile-and-survey.md").read_text()


def test_part_a_needs_a_cpp_compiler_and_the_box_says_so():
    """'You need': without a working C++ compiler, Part A's compile of the head fails."""
    from torch._inductor.exc import InductorError

    with pytest.raises(InductorError, match="InvalidCxxCompiler"):
        head_code(config={"cpp.cxx": (None, "hood-no-such-cxx")})
    torch._dynamo.reset()
    for language, needs in (("en", "Linux machine with AVX2 that can compile C++"),
                            ("es", "Linux x86-64 con AVX2 que pueda compilar C++")):
        assert needs in _page(language), language


def test_without_256_bit_vectors_the_kernel_is_scalar_and_six_claims_fail(monkeypatch):
    """'You need': where the CPU has no 256-bit vectors (here, the list an Arm CPU with NEON alone reports), the
    blocks' `cpp.simdlen = 256` selects none; the kernel is plain loops and six of Part D's eight claims fail."""
    from torch._inductor import cpu_vec_isa

    monkeypatch.setattr(cpu_vec_isa, "valid_vec_isa_list", lambda: [cpu_vec_isa.VecNEON()])
    out = head_code(config={"cpp.threads": 2})
    monkeypatch.undo()
    torch._dynamo.reset()
    assert cpu_vec_isa.VecNEON().bit_width() == 128 and "at::vec::" not in out.kernels[KERNEL]
    failing = [i for i, claim in enumerate(ANNOTATION, 1) if not all(evaluate(c, out)[0] for c in claim.checks)]
    assert failing == [1, 4, 5, 6, 7, 8]
    for language, needs in (("en", "such as an x86-64 one without AVX2 or an Arm\n    one with 128-bit vectors only, "
                                   "it writes plain scalar loops, and six of the eight claims of Part D fail"),
                            ("es", "como una x86-64 sin AVX2 o una Arm\n    con vectores de solo 128 bits, genera "
                                   "bucles escalares sin más, y fallan seis de las ocho afirmaciones de "
                                   "la\n    parte D")):
        assert needs in _page(language), language

@pytest.mark.parametrize("batch, threads, cpus, expected", [
    (2, 1, 2, []),  # one thread: no OpenMP region
    (2, 2, 2, ["#pragma omp parallel"]),  # torch's count equals the CPU count: a bare pragma
    (2, 2, 4, ["#pragma omp parallel num_threads(2)"]),  # another count: num_threads
    (2, 3, 2, []),  # 1,200 values over 3 threads: under cpp.min_chunk_size (512) each, no region
    (256, 3, 2, ["#pragma omp parallel num_threads(3)"]),  # enough work for 3
])
def test_the_default_cpp_threads_pragma(batch, threads, cpus, expected):
    """Parts B and C: with `cpp.threads` at -1, what the pragma reads depends on torch's threads, the CPU count and
    the work per thread."""
    assert inductor_config.cpp.min_chunk_size == 512
    assert pragmas(head_code(batch, threads, cpus, {"cpp.threads": -1})) == expected


def test_claim_4_needs_the_kernel_threads_pinned():
    """The tip and Part E: the setup block pins no kernel threads; claim 4 then fails with another thread count,
    and holds with `cpp.threads = 2` whatever torch's count."""
    work_split = ANNOTATION[3]  # claim 4
    assert "Work split" in work_split.title

    def holds(out):
        return all(evaluate(check, out)[0] for check in work_split.checks)

    assert not holds(head_code(threads=4, config={"cpp.threads": -1}))
    assert holds(head_code(threads=4, config={"cpp.threads": 2}))
    assert holds(head_code(threads=1, config={"cpp.threads": 2}))


def test_the_scratch_array_replaces_a_2x600_buffer_not_a_second_exp():
    """The belief box: exp is computed once either way; without the per-thread array, Inductor writes the
    exponentials to a (2, 600) buf2, the buffer the wrapper of the page lacks."""
    from torch._inductor.codegen import cpp

    out = head_code(config={"cpp.threads": 2})
    assert "local_buffer_data_0" in out.kernels[KERNEL] and out.kernels[KERNEL].count(".exp()") == 1
    assert dict(out.buffers) == {"buf0": "(2, 600)", "buf1": "(2, 1)", "buf3": "(2, 1)", "buf4": "(2, 600)"}
    fused = cpp.OuterLoopFusedSchedulerNode
    original = fused.check_outer_fusion_loop_level_attr
    fused.check_outer_fusion_loop_level_attr = lambda *args, **kwargs: False  # no outer-loop fusion, no array
    try:
        planned = head_code(config={"cpp.threads": 2})
    finally:
        fused.check_outer_fusion_loop_level_attr = original
    assert dict(planned.buffers)["buf2"] == "(2, 600)"
    assert "local_buffer_data" not in planned.code and planned.code.count(".exp()") == 1


def test_on_a_cpu_inductor_turns_cuda_graphs_off_and_logs_nothing():
    """The reduce-overhead stretch: the mode asks for CUDA graphs; on a CPU the graph is refused before any
    wrapping (one skip counted, no `cudagraphs` log), and the check that refuses it names no CUDA device."""
    from torch._dynamo.utils import counters
    from torch._inductor.cudagraph_utils import check_multiple_devices_or_any_cpu_nodes

    from hood.capture.compile import artifact_messages

    counters.clear()
    (logged,) = artifact_messages(lambda: head_code(mode="reduce-overhead"), ("cudagraphs",)).values()
    assert counters["inductor"]["cudagraph_skips"] == 1 and logged == []
    for partition in (True, False):
        with inductor_config.patch(graph_partition=partition):
            reason = check_multiple_devices_or_any_cpu_nodes({torch.device("cpu"): SimpleNamespace(name="x", users={})})
        assert reason.startswith("skipping cudagraphs due to"), partition


def test_benchmark_timer_synchronises_only_by_default():
    """The GPU pitfall: Timer's default timer is the module's `timer`, which synchronises the accelerator."""
    from torch.utils.benchmark.utils import timer as module

    assert inspect.signature(module.Timer).parameters["timer"].default is module.timer
    assert "torch.accelerator.synchronize()" in inspect.getsource(module.timer)


def test_max_autotune_tunes_the_product_only_for_a_constant_weight():
    """The C++ GEMM template needs a constant weight: with freezing, max-autotune replaces the library addmm."""
    from torch._inductor import config as inductor_config
    from torch._inductor.utils import run_and_get_code

    model, x, uses_library = TinyHead().eval(), torch.randn(2, 64), {}
    for freezing in (False, True):
        torch._dynamo.reset()
        with torch.no_grad(), inductor_config.patch({"freezing": freezing, "force_disable_caches": True}):
            _, (code,) = run_and_get_code(torch.compile(model, mode="max-autotune"), x)
        uses_library[freezing] = "extern_kernels.addmm" in code
        if freezing:  # the constant weight is packed for the library; autotune keeps the faster of the two
            assert "cpp_fused_addmm" in code or "_mkl_linear" in code
    torch._dynamo.reset()
    assert uses_library == {False: True, True: False}


def test_a_cache_hit_drops_inductors_logs_and_debug_files_but_still_logs_the_output_code(tmp_path, monkeypatch):
    """Pitfalls: on the second compile, post_grad_graphs and the debug folder's output_code.py are gone; the
    output_code log is not."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "cache"))
    def gram(a):
        return a @ a.T

    x, seen, files = torch.randn(2, 64), [], []
    for run in range(2):
        debug = tmp_path / f"debug{run}"
        with inductor_config.patch({"trace.enabled": True}), torch._dynamo.config.patch(debug_dir_root=str(debug)):
            torch._dynamo.reset()
            seen.append(artifact_messages(partial(torch.compile(gram), x), ("output_code", "post_grad_graphs")))
        files.append({p.name for p in debug.rglob("*.py")})
    torch._dynamo.reset()
    assert [bool(s.get("post_grad_graphs")) for s in seen] == [True, False]
    assert ["def call(" in "".join(s["output_code"]) for s in seen] == [True, True]
    assert "output_code.py" in files[0] and not files[1]


def test_acceptance_a_check_fails_when_every_line_it_matches_is_broken_not_one_kernel_line():
    """Acceptance: no one-line edit of the kernel fails a wrapper check or claim 1's max check (two lines); editing
    every line a check matches, in the code it reads (a line added, for the check that must match none), fails it."""
    out = head_code(config={"cpp.threads": 2})
    texts = {"kernel": out.kernels[KERNEL], "wrapper": out.call}

    def broken(where, lines):
        text = "\n".join(lines)
        return dataclasses.replace(out, **({"kernels": {KERNEL: text}} if where == "kernel" else {"call": text}))

    kernel = texts["kernel"].splitlines()
    checks = [check for claim in ANNOTATION for check in claim.checks]
    edits = [broken("kernel", kernel[:i] + ["// broken"] + kernel[i + 1:]) for i in range(len(kernel))]
    one_line = [check for check in checks if any(not evaluate(check, edit)[0] for edit in edits)]
    max_check = ANNOTATION[0].checks[1]
    assert "maximum" in max_check.pattern and len(evaluate(max_check, out)[1]) == 2 and max_check not in one_line
    assert [c for c in checks if c not in one_line] == [c for c in checks if c is max_check or c.where == "wrapper"]
    for check in checks:
        lines = texts[check.where].splitlines()
        if check.count == 0:
            lines.append("buf2 = empty_strided_cpu((2, 600), (600, 1), torch.float32)")
        else:
            lines = ["// broken" if re.search(check.pattern, line.strip()) else line for line in lines]
        assert not evaluate(check, broken(check.where, lines))[0], check.pattern
    for language, says in (("en", "One edited line is not always enough: the max check of claim 1 matches two lines"),
                           ("es", "No siempre basta con cambiar una línea: la\n  comprobación del máximo de la "
                                  "afirmación 1 la cumplen dos líneas")):
        assert says in _page(language), language


def test_acceptance_finds_a_failed_claim_in_every_language_the_mark_is_written_in(monkeypatch, capsys):
    """The site's annotation carries the mark as a marker, a Spanish download as the plain word «FALLO»: the
    acceptance line says True for both."""
    from hood.capture import common
    from snippets.lab03.report import acceptance

    def failed_line(language):
        monkeypatch.setattr(common, "PAGE_LANGUAGE", language)
        files = {"REPORT.md": "", "DISTRIBUTED.md": "",
                 "KERNEL_ANNOTATION.md": f"[{common.words(en='FAILED', es='FALLO')}] claim 4"}
        acceptance(files, [])
        return capsys.readouterr().out.splitlines()[-2]

    assert common.localize(failed_line(""), "es") == "FALLO en KERNEL_ANNOTATION.md: True"
    assert failed_line("es") == "FALLO en KERNEL_ANNOTATION.md: True"
    assert failed_line("en") == "FAILED in KERNEL_ANNOTATION.md: True"



@functools.cache
def learner_cells(language):
    """The cells of this lab's learner notebook in `language`, with the solutions filled in."""
    from tools import notebooks

    return notebooks.cells("labs/03-compile-and-survey.md", language, learner=True, filled=True)


def notebook_check(language, block, monkeypatch, capsys, namespace, reword=()):
    """Run the learner's notebook (`language`) for `block` in `namespace`: its answer cell, the solution with each
    `(old, new)` of `reword` applied, then its check cell; return what the check printed, line by line."""
    from hood.capture import common

    monkeypatch.setattr(common, "PAGE_LANGUAGE", language)
    cells = learner_cells(language)
    namespace.update(words=common.words, localize=common.localize)
    exec(next(c.source for c in cells if c.role == "checks"), namespace)  # noqa: S102
    answer = next(c.source for c in cells if c.role == "answer" and c.block == block)
    for old, new in reword:
        assert old in answer
        answer = answer.replace(old, new)
    exec(answer, namespace)  # noqa: S102
    capsys.readouterr()
    exec(next(c.source for c in cells if c.role == "check" and c.block == block), namespace)  # noqa: S102
    return capsys.readouterr().out.splitlines()


def test_part_d_notebook_checks_compare_the_claims_word_for_word(monkeypatch, capsys):
    """Part D's task: the notebook's check says right for the page's claims, wrong for the same claim 3 in other
    words (its check still holds); the task says so."""
    from hood.capture.compile import InductorOutput

    out = head_code(config={"cpp.threads": 2})
    reworded = {"en": ('en="Each row is walked three times inside', 'en="The kernel reads each row three times'),
                "es": ('es="El kernel recorre cada fila tres veces', 'es="El kernel lee cada fila tres veces')}
    for language, verdicts in (("en", ("right", "wrong:")), ("es", ("correcto", "incorrecto:"))):
        for reword, verdict in (((), verdicts[0]), ((reworded[language],), verdicts[1])):
            namespace = {"head_code": out, "InductorOutput": InductorOutput}
            printed = notebook_check(language, "one-claim", monkeypatch, capsys, namespace, reword)
            assert any(line.startswith(f"one-claim: {verdict}") for line in printed), (language, printed)
            assert all(evaluate(check, out)[0] for check in namespace["ANNOTATION"][2].checks)
    for language, says in (("en", "an annotation of your own reads `wrong` there even when every one of its checks "
                                  "holds"),
                           ("es", "una anotación escrita por ti sale `incorrecto` aunque se cumplan\ntodas sus "
                                  "comprobaciones")):
        assert says in _page(language), language


def test_part_f_the_notebook_finds_a_paragraph_only_under_its_english_key(monkeypatch, capsys):
    """Part F's task: in the Spanish notebook, a survey keyed by the patterns' Spanish names reads «párrafo escrito:
    False» for those two, and its check says «incorrecto»; the task names the keys."""
    from snippets.lab03 import survey as module

    spanish = (('"Tensor parallel": words(', '"Paralelismo tensorial": words('),
               ('"Pipeline parallel": words(', '"Paralelismo de pipeline": words('))
    for reword, written, verdict in (((), "True", "correcto"), (spanish, "False", "incorrecto:")):
        namespace = {"run_ranks": lambda rank_fn: [None, None],  # no processes: the keys are the point
                     "RANK_FUNCTIONS": module.RANK_FUNCTIONS, "SPANISH_NAMES": module.SPANISH_NAMES,
                     "paragraph": module.paragraph}
        namespace["survey_runs"] = types.FunctionType(module.survey_runs.__code__, namespace)
        printed = notebook_check("es", "survey-runs", monkeypatch, capsys, namespace, reword)
        assert [line.split("párrafo escrito: ")[1].split(";")[0] for line in printed[:4]] == [
            "True", "True", written, written]
        assert printed[5].startswith(f"survey-runs: {verdict}"), printed
    for language, says in (("en", 'under the keys `"DDP"`, `"FSDP2"`, `"Tensor parallel"`, `"Pipeline parallel"`\n'
                                  'and `"MiniGPT"`, written in English whatever your language'),
                           ("es", 'con las claves `"DDP"`, `"FSDP2"`, `"Tensor parallel"`, `"Pipeline parallel"` y '
                                  '`"MiniGPT"`,\nescritas en inglés aunque trabajes en español')):
        assert says in _page(language), language


def test_acceptance_counts_only_the_sections_of_distributed_md_that_hold_a_paragraph(monkeypatch, capsys):
    """Acceptance: a survey with no paragraph, or blank ones, still gives DISTRIBUTED.md its five headings; the last
    block counts only the sections that hold a paragraph, and a section without one says so."""
    from hood.capture import common
    from snippets.lab03.report import acceptance
    from snippets.lab03.survey import RANK_FUNCTIONS, distributed_report, no_paragraph, survey

    full, runs = survey(), dict.fromkeys(RANK_FUNCTIONS, [])
    for language, label in (("en", "sections of DISTRIBUTED.md with your paragraph:"),
                            ("es", "secciones de DISTRIBUTED.md con tu párrafo:")):
        monkeypatch.setattr(common, "PAGE_LANGUAGE", language)
        for written, counted in (({}, 0), (dict.fromkeys(full, "  "), 0), ({"DDP": "x", "MiniGPT": "y"}, 2),
                                 (full, 5)):
            report = distributed_report(written, runs)
            assert sum(line.startswith("## ") for line in report.splitlines()) == 5
            assert report.count(no_paragraph()) == 5 - counted
            acceptance({"REPORT.md": "", "KERNEL_ANNOTATION.md": "", "DISTRIBUTED.md": report}, [])
            assert capsys.readouterr().out.splitlines()[-1] == f"{label} {counted}", (language, written)
    for language, says in (("en", "the last block prints `sections of DISTRIBUTED.md with your paragraph: 5`"),
                           ("es", "el último bloque imprime `secciones de DISTRIBUTED.md con tu párrafo: 5`")):
        assert says in _page(language), language


def test_an_annotation_with_no_claims_passes_both_printed_lines_of_the_acceptance(monkeypatch):
    """Acceptance: with no claims, REPORT.md still reads `all checks hold: **True**` and nothing is FAILED; the
    acceptance asks for a claim on each point of Part D's task."""
    from hood.capture.common import localize, max_diff
    from hood.capture.compile_timing import Timing
    from snippets.lab03 import kernel_annotation
    from snippets.lab03.report import lab03_files

    monkeypatch.setattr(kernel_annotation, "ANNOTATION", ())
    code = SimpleNamespace(code="", call="", kernels={KERNEL: ""})  # no claim reads it
    files = lab03_files(code, max_diff(torch.zeros(1), torch.zeros(1), 1e-6), [Timing(2, 10.0, 9.0)], {}, {})
    assert "all checks hold: **True**" in localize(files["REPORT.md"], "en")
    assert "FAILED" not in localize(files["KERNEL_ANNOTATION.md"], "en")
    for language, says in (("en", "your annotation makes a claim on each point Part D's task lists (an annotation "
                                  "with no claims also reads\n  `all checks hold: **True**`)"),
                           ("es", "tu anotación hace una afirmación sobre cada punto que enumera la tarea de la "
                                  "parte D (una anotación sin ninguna\n  afirmación también dice `todas las "
                                  "comprobaciones se cumplen: **True**`)")):
        assert says in _page(language), language


def test_attention_the_notebook_check_refuses_a_block_written_with_another_mask(monkeypatch, capsys):
    """The attention stretch: the kernels' names follow the operators written; a right block with a `triu` mask
    gets another softmax kernel name and reads wrong in the notebook; the task says how to write the block."""
    import torch.nn as nn

    triu = ("scores.masked_fill(~causal", "scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1)")
    namespace = {"nn": nn, "torch": torch, "generated_code": generated_code, "inductor_output": inductor_output}
    printed = notebook_check("en", "attention", monkeypatch, capsys, namespace, (triu,))
    assert any("_triu_view_1(" in line for line in printed)
    assert any(line.startswith("attention: wrong") for line in printed), printed
    for language, says in (("en", "A block\njust as right with a `triu` mask, or a division by 4, reads `wrong` "
                                  "there."),
                           ("es", "Un bloque igual de correcto con una máscara `triu`, o que divide\nentre 4, sale "
                                  "`incorrecto` ahí.")):
        assert says in _page(language), language


def test_parts_a_and_e_later_checks_read_what_the_functions_return(monkeypatch, capsys):
    """Parts A and E: the kernel's check reads `head_code.kernels`, the timing's `Timing` rows; the module as a string,
    or rows as tuples, make them raise. The tasks say what to return."""
    from hood.capture import common
    from hood.capture.compile_timing import render_html

    monkeypatch.setattr(common, "PAGE_LANGUAGE", "en")
    cells = learner_cells("en")
    namespace = {"words": common.words, "localize": common.localize, "render_html": render_html,
                 "head_code": "the generated module, as a string", "time_head": lambda: [(2, 10.0, 9.0)]}
    exec(next(c.source for c in cells if c.role == "checks"), namespace)  # noqa: S102
    capsys.readouterr()
    for block in ("kernel", "timing"):
        exec(next(c.source for c in cells if c.role == "check" and c.block == block), namespace)  # noqa: S102
    printed = capsys.readouterr().out.splitlines()
    assert "kernel: wrong: it raised AttributeError: 'str' object has no attribute 'kernels'" in printed
    assert "timing: wrong: it raised AttributeError: 'tuple' object has no attribute 'batch'" in printed
    for language, says in (("en", ("Return the generated code as\nan `InductorOutput`",
                                   "Return one `Timing(batch, eager_us, compiled_us)`")),
                           ("es", ("Devuelve el\ncódigo generado como un `InductorOutput`",
                                   "Devuelve\nun `Timing(batch, eager_us, compiled_us)`"))):
        page = _page(language)
        assert all(text in page for text in says), language


def test_the_graphs_check_reads_the_dicts_keys_and_readables_text(monkeypatch, capsys):
    """The graphs behind the kernel: the check reads `graphs["dynamo"]` and prints `readable`; other keys, or the
    text of `print_readable` with its closing blank line, read wrong. The task names both."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    import linecache

    from snippets.compile import heads

    block = "<labs/03-compile-and-survey.md#setup>"  # the head defined in a block, as the page and notebook do
    source = inspect.getsource(heads)
    linecache.cache[block] = (len(source), None, source.splitlines(keepends=True), block)
    exec(compile(source, block, "exec"), defined := {})  # noqa: S102

    def verdict(reword):
        namespace = {"TinyHead": defined["TinyHead"], "torch": torch, "make_boxed_func": make_boxed_func,
                     "aot_autograd": aot_autograd,
                     "min_cut_rematerialization_partition": min_cut_rematerialization_partition}
        printed = notebook_check("en", "head-graphs", monkeypatch, capsys, namespace, reword)
        return next(line for line in printed if line.startswith("head-graphs: "))

    try:
        assert verdict(()) == "head-graphs: right"
        renamed = verdict((('graphs["dynamo"] = gm', 'graphs["captured"] = gm'),))
        assert renamed == "head-graphs: wrong: it raised KeyError: 'dynamo'"
        assert verdict(((".strip()", ""),)).startswith("head-graphs: wrong: what it printed differs")
    finally:
        linecache.cache.pop(block, None)
    for language, says in (("en", 'dict under `"dynamo"`, `"joint"`, `"forward"` and `"backward"`'),
                           ("es", 'dict con las claves `"dynamo"`, `"joint"`, `"forward"` y `"backward"`')):
        assert says in _page(language), language


def test_the_timing_charts_caption_holds_for_a_learners_own_run(monkeypatch, capsys, tmp_path):
    """Part E: in a download the chart draws the learner's own timings, so its caption says nothing of the site."""
    from hood.capture import common, figure
    from hood.capture.compile_timing import Timing, render_html

    monkeypatch.chdir(tmp_path)  # a script writes the drawing to figure-N.svg and its caption to stderr
    monkeypatch.setattr(figure, "SHOWN", [])
    for language, says, site in (("en", "on one thread", "site"), ("es", "en un hilo", "sitio")):
        monkeypatch.setattr(common, "PAGE_LANGUAGE", language)
        monkeypatch.setattr(figure, "PAGE_LANGUAGE", language, raising=False)
        render_html([Timing(2, 10.0, 12.0), Timing(64, 50.0, 40.0)])
        caption = capsys.readouterr().err
        assert says in caption and site not in caption, caption
