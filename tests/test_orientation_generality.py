"""Theory 00's general sentences, narrowed where a counterexample broke them: the fallthrough mask, what the build
compares, what the CUDA wheels change, DDP's first bucket, which pages use the running example, which pages have a
lab, fused attention as a native operator, non-differentiable operations, AddmmBackward0 outside eager mode, a
non-contiguous 3-D batch, linear without a bias, a check build under another torch, what serving shows under it,
linear on an Apple GPU, and a tiny compiled matrix product that gets a kernel."""

from __future__ import annotations

import difflib
import os
import re
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hood.capture.dispatch import recording_dispatch
from hood.capture.keys import key_view
from hood.capture.ops import OpLog
from hood.capture.tables import table_rows
from hood.engine import lens
from hood.engine.blocks import executed_blocks, project_snippets_config
from hood.engine.normalize import normalise_text
from hood.engine.traces import trace_body, without_header
from snippets.running_example import running_example

ROOT = Path(__file__).resolve().parents[1]
PAGE = "theory/00-why-open-the-hood.md"
TIMINGS = {"timing", "max-autotune", "drill-profile", "benchmark", "exercise-3-timing"}
"""The blocks whose output the build never compares (`trace="off"`): each prints measurements."""


def test_a_call_starts_at_the_top_key_its_operator_does_not_fall_through():
    """Under autocast, AutocastCPU tops the key set of add.Tensor, yet add's entry there is a fallthrough: the walk
    starts at AutogradCPU, and mm's autograd kernel redispatches straight to CPU (ADInplaceOrView falls through)."""
    x, w = torch.randn(2, 3, requires_grad=True), torch.randn(3, 4, requires_grad=True)
    with torch.autocast("cpu"):
        keys = key_view("x", x).effective  # lowest priority first
        assert keys[-1] == "AutocastCPU"
        assert {row.key: row.fallthrough for row in table_rows("aten::add.Tensor", ("AutocastCPU",))} == {
            "AutocastCPU": True}
        with recording_dispatch() as steps:
            torch.add(x, x)
    assert [(s.op, s.key) for s in steps] == [("aten.add.Tensor", "AutogradCPU"), ("aten.add.Tensor", "CPU")]
    with recording_dispatch() as steps:
        torch.mm(x, w)
    assert [s.key for s in steps if s.op == "aten.mm.default"] == ["AutogradCPU", "CPU"]


def test_only_a_few_timings_go_untraced_and_the_normaliser_hides_times():
    """Every executed block is compared with a trace but the measurements; two timings normalise alike. So only a
    traced block's numbers read the same on every machine, as the build page says."""
    untraced = {options.get("id") for page in (ROOT / "docs" / "en").rglob("*.md")
                for options, _ in executed_blocks(page.read_text(encoding="utf-8")) if options.get("trace") == "off"}
    assert untraced == TIMINGS
    assert normalise_text("eager 12.5 ms (25%) at 0x7f3a2c001234") == normalise_text(
        "eager 80.0 ms (124%) at 0x55d0beef0042")
    assert normalise_text("2 kernels") != normalise_text("3 kernels")
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "The numbers a traced block prints read the same on every machine (measurements are not traced)" in build


def _changed(release: lens.Release, entry: lens.LensEntry) -> list[str]:
    expected = trace_body(ROOT / "traces" / entry.page.removesuffix(".md") / f"{entry.block_id}.txt") or ""
    return [line[1:] for line in difflib.unified_diff(expected.splitlines(), without_header(entry.output).splitlines(),
                                                       lineterm="", n=0)
            if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_the_cuda_wheels_change_only_the_version_string_and_cuda_rows():
    """The release pages ran CUDA wheels: every changed line that names CUDA is the version line or a dispatch-table
    row of a CUDA key. The dump's row count, which also changes, counts the two CUDA keys the CPU build lacks."""
    releases = lens.load(ROOT / "traces" / lens.LENS_DIR)
    versions = {without_header(r.entries[f"{PAGE}#first-look"].output).splitlines()[0] for r in releases}
    assert versions == {"torch: 2.12.1+cu130", "torch: 2.14.1+cu130"}  # the wheels the index offers: CUDA builds
    cuda_lines = [line for release in releases for entry in release.entries.values() if not entry.matched
                  for line in _changed(release, entry) if re.search(r"cuda|\+cu\d+", line, re.IGNORECASE)]
    assert cuda_lines
    for line in cuda_lines:
        assert re.fullmatch(r"torch: 2\.1[24]\.1\+cu130", line) or re.match(r"\| `(Autograd)?CUDA` \|", line), line
    rows = {line.split(":")[0] for line in torch._C._dispatch_dump_table("aten::add.Tensor").splitlines()}
    assert {k for k in torch._C.DispatchKey.__members__ if "CUDA" in k} - rows == {"SparseCUDA", "NestedTensorCUDA"}
    pages = " ".join((ROOT / "docs" / lang / PAGE).read_text(encoding="utf-8") for lang in ("en", "es"))
    assert "cuBLAS" not in pages and "MKL" not in pages


def test_ddp_puts_every_parameter_in_one_bucket_for_the_first_backward_by_default():
    """With the default options DDP's first bucket limit is sys.maxsize (one bucket); asking it to find unused
    parameters keeps the size limits. tests/test_distributed_buckets.py runs the ranks: one all-reduce in step 1,
    two rebuilt buckets from step 2 on."""
    from torch.nn.parallel.distributed import _BucketCapacityConfig

    config = _BucketCapacityConfig.create(bucket_cap_mb=None, bucket_cap_mb_list=None, use_python_reducer=False)
    assert config.compute_bucket_size_limits(static_graph=False, find_unused_parameters=False) == ([sys.maxsize], [])
    limits, _ = config.compute_bucket_size_limits(static_graph=False, find_unused_parameters=True)
    assert limits == [torch.distributed._DEFAULT_FIRST_BUCKET_BYTES, 25 * 1024 * 1024]


def test_ddps_first_buckets_split_by_dtype_and_keep_a_sparse_gradient_apart():
    """Theory 00's DDP sentence: with the first backward's limit (sys.maxsize), the assignment DDP asks for puts a
    bfloat16 layer's gradients in a bucket of their own, and a sparse gradient too (lab 03's survey tests run the
    ranks: a float64 and a float32 layer make two all-reduces on step 1)."""
    weight, bias = torch.randn(600, 64), torch.randn(600)
    assign = torch.distributed._compute_bucket_assignment_by_size
    assert assign([weight, bias], [sys.maxsize], [False, False])[0] == [[0, 1]]
    assert assign([weight, bias, weight.bfloat16(), bias.bfloat16()], [sys.maxsize], [False] * 4)[0] == [
        [0, 1], [2, 3]]
    assert assign([weight, bias, torch.randn(10, 64)], [sys.maxsize], [False, False, True])[0] == [[0, 1], [2]]
    said = {"en": "by default the first backward puts the dense gradients of each dtype in one bucket",
            "es": "por defecto, el primer backward pone los gradientes densos de cada dtype en un único bucket"}
    for language, sentence in said.items():
        assert sentence in " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())


def _included(page: str) -> str:
    from hood.engine.blocks import expand_includes

    return expand_includes((ROOT / "docs" / "en" / page).read_text(encoding="utf-8"), project_snippets_config(ROOT))


def test_the_running_example_is_the_theory_pages_and_labs_with_theory_04_adding_a_block():
    """The reading guide works on `tiny(x, w)`, not on the head; theory 04 keeps the head for DDP and FSDP2 and
    adds `two_layers()`, and four Linear(512, 512) for DDP's buckets."""
    reading = _included("reference/reading-outputs.md")
    assert "def tiny(x, w)" in reading and "running_example" not in reading
    theory04 = _included("theory/04-distributed.md")
    assert "nn.Linear(64, 600)" in theory04  # the head, for DDP and FSDP2
    assert "nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 600))" in theory04
    assert "nn.Linear(512, 512) for _ in range(4)" in theory04


def test_each_of_the_four_pages_in_the_table_has_a_lab():
    """The table lists four theory pages and the sentence after it links four labs, while this page has none."""
    text = (ROOT / "docs" / "en" / PAGE).read_text(encoding="utf-8")
    pieces = text[text.index("{#pieces}"):text.index("{#running-example}")]
    table = re.findall(r"^\| \[(\d\d) ·", pieces, re.MULTILINE)
    labs = re.findall(r"\]\(\.\./labs/(\d\d)-[\w-]+\.md\)", pieces)
    assert table == ["01", "02", "03", "04"] and labs == ["00", "01", "02", "03"]
    assert "this page has none" in text


def test_fused_attention_on_cpu_is_a_native_aten_operator_not_a_custom_one():
    """scaled_dot_product_attention on 4-D CPU tensors calls aten::_scaled_dot_product_flash_attention_for_cpu, an
    operator of the aten namespace with a CPU kernel of its own."""
    q = torch.randn(1, 2, 4, 8)
    with OpLog() as log:
        F.scaled_dot_product_attention(q, q, q)
    assert "aten::_scaled_dot_product_flash_attention_for_cpu" in log.names
    assert torch._C._dispatch_has_kernel_for_dispatch_key("aten::_scaled_dot_product_flash_attention_for_cpu", "CPU")


def test_a_non_differentiable_operation_records_nothing():
    """An input that requires grad, grad mode on, and still no node: argmax and a comparison have no derivative."""
    x, _, _ = running_example()
    assert torch.is_grad_enabled() and x.requires_grad
    for out in (x.argmax(dim=-1), x > 0):
        assert out.grad_fn is None and not out.requires_grad


def test_linear_records_addmm_only_in_eager_mode_with_grad_on():
    """Compiled, the head records one CompiledFunctionBackward node; under no_grad, none."""
    torch._dynamo.reset()
    x, W, b = running_example()
    assert type(F.linear(x, W, b).grad_fn).__name__ == "AddmmBackward0"
    compiled = torch.compile(F.linear, backend="aot_eager")(x, W, b)
    assert type(compiled.grad_fn).__name__ == "CompiledFunctionBackward"
    with torch.no_grad():
        assert F.linear(x, W, b).grad_fn is None
    torch._dynamo.reset()


def test_what_another_release_prints_comes_from_records_not_from_the_build():
    """The home page and the build page: not every output on the pages was printed by the pinned torch while the
    site was built. The lens records hold other releases' outputs of blocks of these pages, shown under them."""
    releases = lens.load(ROOT / "traces" / lens.LENS_DIR)
    shown = {key for release in releases for key, entry in release.entries.items() if not entry.matched}
    assert {r.release for r in releases} == {"2.12.1", "2.14.1"} and torch.__version__.startswith("2.13.0")
    assert {"labs/00-trace-the-dispatcher.md#exercise-1", "reference/reading-outputs.md#inductor-wrapper"} <= shown
    home = (ROOT / "docs" / "en" / "index.md").read_text(encoding="utf-8")
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "The one exception is what another torch release prints" in home
    assert "except what another torch release\nprints" in build


def test_theory_00s_first_look_shows_two_outputs_the_pinned_torch_did_not_print():
    """Theory 00: the boxes under its first look hold the CUDA wheels' version lines, from records of the block's
    current code (the build shows them), so the page's sentences on every output name that exception."""
    expanded = _included(PAGE)
    code = {options.get("id"): code for options, code in executed_blocks(expanded)}["first-look"]
    versions = set()
    for release in lens.load(ROOT / "traces" / lens.LENS_DIR):
        entry = release.entries[f"{PAGE}#first-look"]
        assert not entry.matched and entry.code_hash == lens.code_hash(code.removesuffix("\n"))  # as the fence's body
        versions.add(without_header(entry.output).splitlines()[0])
    assert versions == {"torch: 2.12.1+cu130", "torch: 2.14.1+cu130"} and f"torch: {torch.__version__}" not in versions
    said = {"en": ("The one exception is what another torch release prints, in the collapsed boxes",
                   "except what another release prints in the collapsed boxes (records made beforehand)",
                   "Every output the pinned torch prints on the course pages comes from its CPU build"),
            "es": ("La única excepción es lo que imprime otra versión de torch, en los recuadros plegados",
                   "salvo lo que imprime otra versión en los recuadros plegados (trazas grabadas antes)",
                   "Todas las salidas que imprime el torch fijado en las páginas del curso vienen de su versión")}
    for language, sentences in said.items():
        text = " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())
        assert all(sentence in text for sentence in sentences), language



COMPILE_PROBE = ("import torch\ntorch.hood_probe = lambda t: t + 1\n"
                 "torch.compile(torch.hood_probe, backend='eager')(torch.ones(2))\n")
COUNT_PROBE = ("import torch\nfrom hood.capture.compile import cache_entries\n"
               "print(len(cache_entries(torch.hood_probe)))\n")
"""Two blocks' code: one compiles `torch.hood_probe`, the other prints how many versions Dynamo keeps of it."""


def _run_blocks(tmp_path, blocks) -> list[str]:
    """The outputs of `(id, code, session)` blocks of one page, run in order by one engine without a cache."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-dynamo")
    try:
        return [engine.run(Block("p.md", block_id, code, session)).output for block_id, code, session in blocks]
    finally:
        engine.close()
        del torch.hood_probe
        torch._dynamo.reset()


def test_a_later_block_of_a_session_keeps_what_dynamo_compiled_and_other_blocks_start_reset(tmp_path):
    """The build page, step 3: Dynamo is reset before a block, except a later block of the same session."""
    outputs = _run_blocks(tmp_path, (("a", COMPILE_PROBE + COUNT_PROBE, "s"), ("b", COUNT_PROBE, "s"),
                                     ("c", COUNT_PROBE, "t"), ("d", COMPILE_PROBE, None), ("e", COUNT_PROBE, None)))
    assert outputs == ["1\n", "1\n", "0\n", "", "0\n"]
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "except for a later\n   block of a session, which keeps what the earlier blocks compiled" in build


def test_a_block_outside_the_session_run_in_between_resets_dynamo(tmp_path):
    """The build page, step 3: a block of no session, or of another, between two blocks of a session resets Dynamo,
    so the later one finds nothing compiled."""
    outputs = _run_blocks(tmp_path, (("a", COMPILE_PROBE + COUNT_PROBE, "s"), ("x", "print(1)\n", None),
                                     ("b", COUNT_PROBE, "s"), ("c", COMPILE_PROBE + COUNT_PROBE, "s"),
                                     ("y", "print(2)\n", "t"), ("d", COUNT_PROBE, "s")))
    assert outputs == ["1\n", "1\n", "0\n", "1\n", "2\n", "0\n"]
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "as long as no block outside the session ran\n   between them" in build


def test_a_cached_session_block_runs_again_when_a_later_one_must_run(tmp_path):
    """The build page, step 2: once the memo or the cache answered a session's first block, running the second
    replays the first (its output unused, no execution counted)."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    first = Block("p.md", "a", "import torch\ntorch.hood_runs = getattr(torch, 'hood_runs', 0) + 1\n", "s")
    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-replay")
    try:
        engine.run(first)
        engine.begin_page("p.md")  # the page renders again
        engine.run(first)  # answered by the memo
        engine.run(Block("p.md", "b", "print(torch.hood_runs)\n", "s"))
        runs = torch.hood_runs
    finally:
        engine.close()
        del torch.hood_runs
    assert runs == 2 and engine.executions[("p.md", "a")] == 1
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "block\n   of a session can run once more, its output unused" in build


def test_a_session_block_the_memo_answered_from_an_earlier_page_runs_again(tmp_path):
    """The build page, step 2, without any cache: two pages whose sessions start with the same setup block; the
    second page's setup is answered by the memo, so it replays when the next block must run."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    setup = "import torch\ntorch.hood_runs = getattr(torch, 'hood_runs', 0) + 1\n"
    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-pages")
    try:
        outputs = []
        for page in ("a.md", "b.md"):
            engine.begin_page(page)
            engine.run(Block(page, "setup", setup, "s"))
            outputs.append(engine.run(Block(page, "use", f"print({page!r}, torch.hood_runs)\n", "s")).output)
            engine.end_page(page)
    finally:
        engine.close()
        del torch.hood_runs
    assert outputs == ["a.md 1\n", "b.md 2\n"] and ("b.md", "setup") not in engine.executions
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "or from an earlier page whose session starts with the same code" in build


def test_a_block_of_no_session_leaves_sys_modules_as_soon_as_it_has_run(tmp_path):
    """The build page, step 3: a session's module stays until its page is done; a lone block's goes at once."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-modules")
    probe = "import sys\nprint(__name__ in sys.modules)\n"
    try:
        lone = engine.run(Block("p.md", "lone", probe, None)).output
        engine.run(Block("p.md", "first", "x = 1\n", "s"))
        kept = engine.run(Block("p.md", "later", "import sys\nprint(x, __name__ in sys.modules)\n", "s")).output
        left = [name for name in sys.modules if name.startswith("hood_block_p_md")]
        engine.end_page("p.md")
        after = [name for name in sys.modules if name.startswith("hood_block_p_md")]
    finally:
        engine.close()
    assert lone == "True\n" and kept == "1 True\n" and left == ["hood_block_p_md_s"] and after == []
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "or, for a block of no session, as soon as the block has run" in build


def test_bless_and_lens_builds_are_not_check_builds(tmp_path):
    """The build page (step 5) and theory 00: besides serving and HOOD_CHECK=off, bless and lens do not check."""
    from hood.engine.settings import Settings

    assert Settings.from_options(tmp_path).check
    assert not Settings.from_options(tmp_path, bless="1").check
    assert not Settings.from_options(tmp_path, lens="1").check
    assert not Settings.from_options(tmp_path, check="off").check
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "except `make serve`, `make bless`, `make lens` and an explicit opt-out" in build
    orientation = " ".join((ROOT / "docs" / "en" / PAGE).read_text(encoding="utf-8").split())
    assert "every build but `make serve`, `make bless`, `make lens`," in orientation


def test_an_untraced_block_shows_more_than_times_and_the_glossary_leaves_out_torchs_parts():
    """The home page: a measuring block is untraced whole, kernel names and stack counts included; the glossary
    holds the terms the pages use most, not Dynamo, AOTAutograd or Inductor, which every compile page names."""
    from hood import glossary

    home = (ROOT / "docs" / "en" / "index.md").read_text(encoding="utf-8")
    assert "the few blocks that measure them are shown without a trace" in home
    untraced = {"max-autotune": "lab03/max_autotune.py", "drill-profile": "lab00/drill.py"}
    assert set(untraced) <= TIMINGS
    assert "same generated kernels in every mode:" in (ROOT / "snippets" / untraced["max-autotune"]).read_text()
    assert "carry a stack" in (ROOT / "snippets" / untraced["drill-profile"]).read_text()
    words = {t.word for t in glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]}
    assert not {"Dynamo", "AOTAutograd", "Inductor"} & words
    assert all(name in home for name in ("Dynamo", "AOTAutograd", "Inductor"))
    assert "the terms the pages use most" in home and "(reference/reading-outputs.md)" in home


def test_a_missing_include_stops_the_build_at_its_page_after_earlier_pages_ran(tmp_path):
    """The build page's table of forgotten steps: the includes are checked page by page, so a block of a page
    rendered earlier has run when the build stops at the page whose include is missing."""
    from tests.sitekit import add_page, mini_project
    from tools.sandbox import build_in_process

    project = mini_project(tmp_path, '# Home\n\n```python exec="on" id="first"\nprint("ran")\n```\n')
    lost = '# Later\n\n```python exec="on" id="lost"\n--8<-- "nowhere/missing.py"\n```\n'
    add_page(project, "later.md", "Later", lost)
    result = build_in_process(project, mode="check")
    assert result.returncode != 0 and "page later.md (en) includes snippets that do not exist" in result.output
    ran = [line.split("\t")[1:3] for line in (project / "exec.log").read_text().splitlines()]
    assert ran == [["index.md", "first"]]
    build = (ROOT / "docs" / "en" / "reference" / "build.md").read_text(encoding="utf-8")
    assert "the build stops at the page that includes it, before its blocks run (those of earlier pages have" in build


BUILD_PAGE = ROOT / "docs" / "en" / "reference" / "build.md"


def _typed_lines(code: str) -> list[str]:
    """The lines of a block's fence body that the page types itself: neither an include, a comment nor blank."""
    return [line for line in code.splitlines()
            if line.strip() and not line.strip().startswith("#") and "--8<--" not in line]


def test_a_block_types_a_few_lines_and_takes_the_rest_from_snippets_through_its_session():
    """The build page, step 1: some blocks include nothing and run what an earlier block of their session
    included; what a page types is one line most often, and ten at most."""
    blocks = [(page.relative_to(ROOT / "docs" / "en").as_posix(), options, code)
              for page in (ROOT / "docs" / "en").rglob("*.md")
              for options, code in executed_blocks(page.read_text(encoding="utf-8"))]
    bare = {(page, options.get("id")): options.get("session") for page, options, code in blocks
            if "--8<--" not in code}
    assert bare[("theory/00-why-open-the-hood.md", "predict-no-bias")] == "t00"
    assert bare and all(bare.values())  # each one runs in a session whose earlier blocks included the code
    typed = [len(_typed_lines(code)) for _, _, code in blocks]
    assert max(typed) == 10 and sum(n <= 1 for n in typed) > len(typed) / 2
    text = BUILD_PAGE.read_text(encoding="utf-8")
    assert "Most of its code is not typed into the\n   page" in text and "ten lines at most" in text


def test_what_a_block_changes_in_the_process_stays_for_the_blocks_after_it(tmp_path):
    """The build page, steps 2 and 3: the engine resets seeds, threads and Dynamo, not grad mode or the default
    dtype, and no block's key holds them: on a later page the same code is answered with its earlier output, while
    new code sees both as an earlier block left them. The audit runs pages apart."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings
    from tools.audit import VARIATIONS

    probe = "import torch\nprint(torch.is_grad_enabled(), torch.get_default_dtype())\n"
    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-leak")
    try:
        before = engine.run(Block("a.md", "probe", probe)).output
        engine.run(Block("a.md", "change", "import torch\ntorch.set_grad_enabled(False)\n"
                                           "torch.set_default_dtype(torch.float64)\n"))
        engine.end_page("a.md")
        engine.begin_page("b.md")
        reused = engine.run(Block("b.md", "probe", probe)).output
        after = engine.run(Block("b.md", "probe-again", probe + "# run\n")).output
    finally:
        engine.close()
        torch.set_grad_enabled(True)
        torch.set_default_dtype(torch.float32)
    assert (before, reused, after) == ("True torch.float32\n",) * 2 + ("False torch.float64\n",)
    assert ("b.md", "probe") not in engine.executions
    assert any(variation.per_page and variation.name == "pages-alone" for variation in VARIATIONS)
    text = BUILD_PAGE.read_text(encoding="utf-8")
    assert "Nothing else is reset: what a\n   block changes in the process" in text
    assert "what other blocks left in the process is not part of the key" in text


def test_exact_comparisons_print_torch_equal_and_the_others_go_through_max_diff():
    """The build page, step 6: no snippet judges a tolerance with allclose or isclose (max_diff does), while some
    traced blocks print `torch.equal` of floating-point results, which holds bit for bit."""
    from hood.stdout import printed
    from snippets.lab00 import exercises

    sources = {path: path.read_text(encoding="utf-8") for path in (ROOT / "snippets").rglob("*.py")}
    assert not [path for path, text in sources.items() if re.search(r"allclose|isclose|assert_close", text)]
    exact = [path.relative_to(ROOT).as_posix() for path, text in sources.items() if "torch.equal(" in text]
    assert {"snippets/custom_ops/compiled_call.py", "snippets/distributed/ddp.py"} <= set(exact)
    compiled = trace_body(ROOT / "traces" / "theory" / "02-autograd-and-custom-ops" / "custom-op-compiled.txt")
    assert compiled.rstrip().endswith("compiled equals eager:␟es=compilado igual a eager:⟧ True")
    out, text = printed(exercises.exercise_4_in_dims_out_dims)
    assert out.dtype == torch.float32 and text.rstrip().endswith("True")
    assert "Results that\n   must match bit for bit" in BUILD_PAGE.read_text(encoding="utf-8")
    assert ("Results that must match bit for bit (a custom operator compiled and eager, a copy received from rank 0) "
            "print `torch.equal`") in _readme()


@pytest.mark.usefixtures("like_a_block")
def test_a_compiled_model_may_differ_from_eager_in_its_last_bits_so_only_a_custom_op_prints_torch_equal():
    """README, numbers: lab 03's head compiled by Inductor differs from eager in its last bits (no torch.equal), so
    lab 03 and the head's training step compare through max_diff; the custom op's opaque call prints torch.equal."""
    from snippets.compile.heads import TinyHead

    torch.manual_seed(42)
    model, x = TinyHead(), torch.randn(2, 64)
    with torch.no_grad():
        compiled, eager = torch.compile(model)(x), model(x)
    assert not torch.equal(compiled, eager) and 0 < (compiled - eager).abs().max().item() < 1e-6
    for snippet in ("lab03/compile_head.py", "custom_ops/head.py"):
        text = (ROOT / "snippets" / snippet).read_text(encoding="utf-8")
        assert "max_diff(" in text and "torch.equal(" not in text
    assert "torch.equal(out, eager)" in (ROOT / "snippets" / "custom_ops" / "compiled_call.py").read_text()
    assert "other compiled results may differ from eager in their last bits, so they go through `max_diff`" in (
        _readme())


def test_both_languages_show_one_runs_output_with_its_labels_in_the_pages_language():
    """README, layout: a block's one trace holds both languages' labels; each page shows it with its own, so the
    two pages' outputs hold the same values under different words."""
    from hood.capture.common import localize

    folder = ROOT / "traces" / "theory" / "02-autograd-and-custom-ops"
    body = trace_body(folder / "custom-op-compiled.txt")
    en, es = localize(body, "en"), localize(body, "es")
    assert en.rstrip().endswith("compiled equals eager: True") and es.rstrip().endswith("compilado igual a eager: True")
    assert not list(folder.glob("custom-op-compiled*es*"))
    assert "both pages show one run's output, its labels (`words(en=..., es=...)`) and numbers" in _readme()


def test_a_figure_prints_its_data_in_a_comment_that_the_page_leaves_off():
    """README, a figure: the block's output holds the data as plain text inside an HTML comment; the page shows the
    drawing and the caption without it, and the trace keeps the data without the drawing."""
    from hood.capture.figure import figure, figure_data, without_data

    printed = figure('<svg viewBox="0 0 1 1"></svg>', "AutogradCPU: kernel", "a caption")
    assert "<!--hood-figure-data\nAutogradCPU: kernel\n-->" in printed
    page = without_data(printed)
    assert "AutogradCPU" not in page and "<svg" in page and "a caption" in page
    assert figure_data(printed).strip() == "[figure]\nAutogradCPU: kernel"
    assert "in a comment that the page leaves off" in _readme()


def test_the_options_table_lists_every_option_of_the_plugin(tmp_path):
    """The build page's table of options: one row per option of the `hood` plugin, lens included, each with the
    variable mkdocs.yml reads it from; a lens build neither checks nor reads the cache."""
    from hood.engine.settings import Settings
    from hood.mkdocs_plugin import HoodConfig

    text = BUILD_PAGE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \(`(HOOD_\w+)`\) \|", text, re.MULTILINE))
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert list(rows) == [name for name, _ in HoodConfig._schema]
    assert all(f"{name}: !ENV [{variable}," in config for name, variable in rows.items())
    lens_build = Settings.from_options(tmp_path, lens="on")
    assert lens_build.lens and not lens_build.check and not lens_build.use_cache


def test_a_spanish_page_that_names_no_english_version_is_stale_until_marked(tmp_path):
    """The build page's recipe for a page: a new Spanish page without `make translated` names no version of its
    English page, a problem that fails a check build; once marked, none."""
    from hood.engine import build, translations
    from hood.engine.settings import Settings

    english = "# New\n\nA new page.\n"
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "new.md").write_text(english, encoding="utf-8")
    found = []
    for recorded in (None, translations.recorded_hash(translations.mark("# Nueva\n", english))):
        state = build.BuildState.start(Settings.from_options(tmp_path), ["en", "es"])
        state.page, state.language = "new.md", "es"
        build._check_freshness(state, recorded, tmp_path / "docs")
        state.engine.close()
        found.append([p.render() for p in state.report.problems.values()])
    assert found[0] == ["page new.md, block '*': translation stale: docs/es/new.md names no version of "
                        "docs/en/new.md: bring the translation up to date, then run `make translated PAGE=new.md`"]
    assert found[1] == [] and state.settings.check
    assert "run `make translated PAGE=<section>/<page>.md` once\nthe Spanish page is written" in BUILD_PAGE.read_text(
        encoding="utf-8")


def test_inductor_keeps_a_setting_an_earlier_block_assigned_while_aten_threads_are_reset(tmp_path):
    """The build page, step 3: the engine sets ATen's threads before every block, Inductor's vector width and threads
    only when the build starts; a block that assigns them changes them for the blocks after it."""
    from hood.engine import runtime
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    settings = Settings(root=tmp_path, use_cache=False)
    probe = "import torch, torch._inductor.config as c\nprint(c.cpp.simdlen, c.cpp.threads, torch.get_num_threads())\n"
    found = runtime.snapshot()
    runtime.pin_process(settings, str(tmp_path / "inductor"))
    engine = Engine(settings, "fp-pins")
    try:
        before = engine.run(Block("a.md", "probe", probe)).output
        engine.run(Block("a.md", "assign", "import torch, torch._inductor.config as c\nc.cpp.simdlen = 512\n"
                                           "c.cpp.threads = 4\ntorch.set_num_threads(4)\n"))
        after = engine.run(Block("a.md", "probe-again", probe + "# run\n")).output
    finally:
        engine.close()
        runtime.restore(found)
    assert (before, after) == ("256 2 2\n", "512 4 2\n")
    text = BUILD_PAGE.read_text(encoding="utf-8")
    assert "The other pins are set once, when the build starts" in text
    assert "an Inductor setting assigned instead of patched" in text


RAISING = '# Home\n\n```python exec="on" id="ok"\nprint(1)\n```\n\n```python exec="on" id="boom"\n1 / 0\n```\n'


def test_a_warning_stops_the_strict_make_build_before_it_prints_the_report(tmp_path):
    """The build page, step 5: `make build` runs mkdocs with --strict; a raising block's warning stops it before the
    report is printed, which is then in site-report.txt only. A plain (not strict) build prints it."""
    from tests.sitekit import build, mini_project

    project = mini_project(tmp_path, RAISING)
    strict = build(project, mode="check")  # strict, as `make build`
    summary = "1 of 1 traced blocks changed output"
    assert strict.returncode != 0 and "in strict mode" in strict.output and summary not in strict.output
    assert summary in (project / "site-report.txt").read_text()
    plain = build(project, mode="lenient", extra_env={"HOOD_CHECK": "on"})  # a plain `mkdocs build`
    assert plain.returncode != 0 and summary in plain.output
    text = BUILD_PAGE.read_text(encoding="utf-8")
    assert "only\n   there when a warning, such as a raising block's, stops `make build` first" in text


def test_a_lenient_build_still_fails_under_the_strict_make_build(tmp_path):
    """The build page's options: HOOD_CHECK=off shows drift in the page, yet `make build`'s --strict fails on the
    warnings a lenient build logs; without --strict the lenient build succeeds."""
    from hood.engine.traces import render_trace
    from tests.sitekit import build, mini_project

    project = mini_project(tmp_path, '# Home\n\n```python exec="on" id="first"\nprint("now")\n```\n')
    trace = project / "traces" / "index" / "first.txt"
    trace.parent.mkdir(parents=True)
    trace.write_text(render_trace("index.md", "first", "before\n"), encoding="utf-8")
    (project / "traces" / "TORCH.txt").write_text(f"{torch.__version__}\n", encoding="utf-8")
    strict = build(project, mode="check", extra_env={"HOOD_CHECK": "off"})  # HOOD_CHECK=off make build
    assert strict.returncode != 0 and "Aborted with 1 warnings in strict mode" in strict.output
    lenient = build(project, mode="lenient")
    assert lenient.returncode == 0 and "hood-drift" in lenient.page("index.html")
    assert "`make build` still fails: its `--strict`" in BUILD_PAGE.read_text(encoding="utf-8")


README = ROOT / "README.md"


def _served_page(tmp_path):
    """A page's source and its built output in `tmp_path`, the source older than the output."""
    source, output = tmp_path / "docs" / "p.md", tmp_path / "site" / "p" / "index.html"
    source.parent.mkdir()
    output.parent.mkdir(parents=True)
    source.write_text("# P\n", encoding="utf-8")
    output.write_text("<html></html>\n", encoding="utf-8")
    os.utime(source, (1, 1))
    return source, output


def _readme() -> str:
    """The README with its lines joined, so that a sentence reads the same wherever it wraps."""
    return " ".join(README.read_text(encoding="utf-8").split())


def test_capture_modules_import_each_other_above_their_body_and_pages_include_the_body():
    """README, capture: a capture module imports other capture modules above its body markers; its body holds
    torch and the standard library only, and a page includes that body (a module without markers, whole)."""
    includes = {line.split('"')[1] for page in (ROOT / "docs").rglob("*.md")
                for line in page.read_text(encoding="utf-8").splitlines() if '--8<-- "hood/capture/' in line}
    importing = []
    for module in sorted((ROOT / "src" / "hood" / "capture").glob("*.py")):
        text = module.read_text(encoding="utf-8")
        assert "from __future__" not in text
        if "# --8<-- [start:body]" not in text:
            assert not re.search(r"^\s*(from|import) hood\b", text, re.MULTILINE), module.name
            continue
        body = text.split("# --8<-- [start:body]")[1].split("# --8<-- [end:body]")[0]
        assert not re.search(r"^\s*(from|import) hood\b", body, re.MULTILINE), module.name
        if re.search(r"^from hood\.capture\.", text, re.MULTILINE):
            importing.append(module.name)
        assert f"hood/capture/{module.name}" not in includes, module.name  # never included whole
    assert {"keys.py", "autograd.py", "dispatch.py"} <= set(importing)
    assert {"hood/capture/ops.py", "hood/capture/profile.py", "hood/capture/keys.py:body"} <= includes
    assert "Its imports of other capture modules stay above its `# --8<-- [start:body]` marker" in _readme()


def test_a_collapsed_solution_box_may_show_up_to_sixty_lines():
    """README, the shape of a page: 30 lines for an open code box, 60 behind a collapsed one; lab solutions use it."""
    from tests import test_course
    from tools.pages import fences, page_lines, shown_code, shows_code

    assert (test_course.MAX_CODE_LINES, test_course.MAX_COLLAPSED_CODE_LINES) == (30, 60)
    long = [f.option("id") for page in test_course.LABS for f in fences(page_lines("en", page))
            if shows_code(f) and f.container.startswith("??? success") and len(shown_code(f)) > 30]
    assert "report" in long and len(long) > 3
    assert "at most 30 lines once its `--8<--` includes are expanded, 60 inside a collapsed box" in _readme()


def _lens_state(tmp_path, code: str, **options):
    """A build of `p.md#b` (trace `1`) that knows one release, 9.9.9, whose record of the block printed `2` and has
    no sentence; returns the state and the boxes shown under the block's output `2`."""
    from hood.engine import build
    from hood.engine.settings import Settings
    from hood.engine.traces import render_trace

    trace = tmp_path / "traces" / "p" / "b.txt"
    trace.parent.mkdir(parents=True)
    trace.write_text(render_trace("p.md", "b", "1\n"), encoding="utf-8")
    lens.write(tmp_path / "traces" / lens.LENS_DIR, "9.9.9+cpu",
               [lens.LensEntry("p.md", "b", lens.code_hash(code), matched=False, origin="release", output="2\n")])
    state = build.BuildState.start(Settings.from_options(tmp_path, **options), ["en", "es"])
    state.page, state.language, state.held = "p.md", "en", {trace}
    boxes = build._compare_with_trace(state, trace, "b", code, "2\n")
    state.engine.close()
    return state, boxes


def test_a_difference_without_a_sentence_fails_only_where_a_release_page_shows_it(tmp_path):
    """README, upgrading torch: the block's page shows the difference, and the build asks for no sentence; the
    release page's marker is what asks for it."""
    from hood.engine import build

    state, boxes = _lens_state(tmp_path, "print(2)\n")
    assert "hood-lens" in boxes and {p.kind for p in state.report.problems.values()} == {"drift"}
    build._release_page(state, {"release": "9.9.9"})
    assert {p.kind for p in state.report.problems.values()} == {"drift", "lens unexplained"}
    assert "or a difference on the release page has no sentence. That page is written by hand" in _readme()


def test_only_bless_and_lens_builds_are_not_check_builds_and_neither_fails_on_drift(tmp_path):
    """README: every build but bless and lens checks; both leave drift unfailed (bless writes it)."""
    from hood.engine import build

    for options in ({"bless": "1"}, {"lens": "on"}, {}):
        state, _ = _lens_state(tmp_path / (next(iter(options), "check")), "print(2)\n", **options)
        state.blocks = {"en": {"p.md": ["b"]}, "es": {"p.md": ["b"]}}
        assert state.settings.check == (not options) and (build.finish(state) == "") == bool(options)
    assert trace_body(tmp_path / "bless" / "traces" / "p" / "b.txt") == "2\n"  # written, not failed
    assert "Every build but `make serve`, `make bless` and `make lens` (the last two write traces" in _readme()


def test_an_edit_to_a_session_block_runs_the_later_blocks_too(tmp_path):
    """README, make serve: with the authoring cache, editing a session's first block runs the unchanged blocks after
    it again, while a block of no session that did not change comes from the cache."""
    from hood.engine.engine import Block, Engine
    from hood.engine.settings import Settings

    settings = Settings(root=tmp_path, cache_dir=tmp_path / "cache")
    executed = []
    for first in ("x = 1\n", "x = 2\n"):
        engine = Engine(settings, "fp-serve")
        try:
            engine.run(Block("p.md", "first", first, "s"))
            engine.run(Block("p.md", "later", "print(x)\n", "s"))
            engine.run(Block("p.md", "lone", "print(3)\n"))
        finally:
            engine.close()
        executed.append(sorted(block for _, block in engine.executions))
    assert executed == [["first", "later", "lone"], ["first", "later"]]
    assert "runs only the blocks whose code changed, and the blocks after them in their session" in _readme()


def test_the_engine_reads_mkdocs_yml_with_mkdocs_and_compat_patches_mkdocs():
    """README, layout: besides the plugin, `hood.engine.blocks` imports MkDocs' YAML loader and `hood.compat`
    MkDocs' serve command; no other module of `hood` imports MkDocs."""
    import ast

    importing = set()
    for path in (ROOT / "src" / "hood").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name.split(".")[0] == "mkdocs" for name in names):
                importing.add(path.relative_to(ROOT / "src").with_suffix("").as_posix().replace("/", "."))
    assert importing == {"hood.mkdocs_plugin", "hood.engine.blocks", "hood.compat"}
    assert "it builds no site, and takes only MkDocs' YAML loader, to read `mkdocs.yml`" in _readme()


def test_an_untraced_block_has_no_trace_file():
    """README, layout: one trace per traced block; the measuring blocks (`trace="off"`) hold none."""
    held = {path.stem for path in (ROOT / "traces").rglob("*.txt") if "lens" not in path.parts}
    assert TIMINGS and not TIMINGS & held
    assert 'One normalised trace per traced block (a `trace="off"` block has none)' in _readme()


def test_the_package_indexs_linux_wheels_are_cuda_builds_whose_traces_differ_from_the_cpu_wheels():
    """README, two commands: the traces were blessed with the CPU wheel, and the index's wheels the lens ran are CUDA
    builds whose first trace already differs; the Makefile names no index, so pip's configuration must find it."""
    blessed = (ROOT / "traces" / "TORCH.txt").read_text(encoding="utf-8").split()[-1]
    assert blessed == "2.13.0+cpu" and torch.__version__ == blessed
    first = trace_body(ROOT / "traces" / "theory" / "00-why-open-the-hood" / "first-look.txt")
    assert "torch: 2.13.0+cpu" in first
    for release in lens.load(ROOT / "traces" / lens.LENS_DIR):
        assert _changed(release, release.entries[f"{PAGE}#first-look"]) == [
            "torch: 2.13.0+cpu", f"torch: {release.release}+cu130"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "pip install" in makefile and not re.search(r"index-url|find-links", makefile)
    assert "pip must find torch's CPU wheel" in _readme()
    assert "the package index's Linux wheels are CUDA builds (`+cu130`)" in _readme()


def _pages_calling(name: str) -> set[str]:
    """The pages (inside docs/en) one of whose executed blocks, includes expanded, calls `name`."""
    from hood.engine.blocks import expand_includes

    config = project_snippets_config(ROOT)
    return {page.relative_to(ROOT / "docs" / "en").as_posix() for page in (ROOT / "docs" / "en").rglob("*.md")
            if any(f"{name}(" in expand_includes(code, config)
                   for _, code in executed_blocks(page.read_text(encoding="utf-8")))}


def test_the_reading_guides_download_forks_ranks_too_and_the_suite_runs_english_notebooks_only():
    """README, the course without the site: three pages' downloads fork ranks, the reading guide's among them; the
    download tests run English notebooks (a lab's learner notebook, empty and filled), never a script."""
    import inspect

    from hood.capture import collectives
    from tests import test_downloads
    from tools import notebooks

    assert _pages_calling("run_ranks") == {"theory/04-distributed.md", "labs/03-compile-and-survey.md",
                                           "reference/reading-outputs.md"}
    assert 'get_context("fork")' in inspect.getsource(collectives._run_once)
    assert "reference/reading-outputs.md" in notebooks.course_pages()
    assert {(learner, filled) for _, learner, filled in test_downloads.RUNS} == {
        (False, False), (True, True), (True, False)}
    assert inspect.signature(notebooks.run).parameters["language"].default == "en"
    assert ".ipynb" in inspect.getsource(notebooks.run) and "script(" not in inspect.getsource(notebooks.run)
    assert "The downloads of theory 04, lab 03 and the reading guide" in _readme()
    assert "the Spanish downloads hold the same code, and runs no script" in _readme()


def test_make_check_keeps_some_small_site_builds_and_the_reading_guides_ranks():
    """README, make check: the marks go by module, so a small-site build outside the marked modules, the reading
    guide's rank run and lab 03's deliverables, which run each of the four patterns on two ranks, are selected by
    `make check`'s filter."""
    import ast
    import inspect

    from hood.capture import collectives
    from snippets.lab03 import run
    from tests import test_lab03
    from tests.conftest import MARKED_MODULES

    marked = set().union(*MARKED_MODULES.values())
    calls = {}
    for module in ("test_orientation_generality", "test_build_in_process", "test_reading_outputs", "test_lab03"):
        tree = ast.parse((ROOT / "tests" / f"{module}.py").read_text(encoding="utf-8"))
        calls[module] = {node.func.id for node in ast.walk(tree)
                         if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not set(calls) & marked
    assert "mini_project" in calls["test_orientation_generality"] and "build" in calls["test_orientation_generality"]
    assert "build_in_process" in calls["test_build_in_process"] and "run_ranks" in calls["test_reading_outputs"]
    assert "run.main(" in inspect.getsource(test_lab03.test_run_writes_every_deliverable)
    assert "run_ranks(rank_fn) for name, rank_fn in PATTERNS.items()" in inspect.getsource(run.main)
    assert len(run.PATTERNS) == 4 and inspect.signature(collectives.run_ranks).parameters["world_size"].default == 2
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '-m "not site and not build and not audit and not browser and not distributed and not notebooks"' in makefile
    assert ("A few quick small-site builds, the reading guide's two ranks, lab 03's deliverables (which fork two ranks "
            "for each of the four patterns) and two Chromium tests") in _readme()


def test_the_default_linux_wheel_makes_a_download_differ_and_a_right_answer_check_wrong():
    """README, the course without the site: under the index's CUDA wheels (the lens's), theory 00's version line and
    lab 00's first exercise differ by build; that exercise's check compares with the CPU trace, so it says wrong."""
    from tools import notebooks

    exercise = "labs/00-trace-the-dispatcher.md#exercise-1"
    cpu_row = "| `CUDA` | default backend kernel · `RegisterCompositeExplicitAutogradNonFunctional_0.cpp` |"
    for release in lens.load(ROOT / "traces" / lens.LENS_DIR):
        assert release.origin(release.entries[exercise]) in {"build", "both"}
        changed = _changed(release, release.entries[exercise])
        assert any(line.startswith(cpu_row) for line in changed)
        assert any(line.startswith("| `CUDA` | kernel · `RegisterCUDA_0.cpp`") for line in changed)
    checks = [c.source for c in notebooks.cells(exercise.split("#")[0], "en", learner=True)
              if c.role == "check" and c.block == "exercise-1"]
    assert len(checks) == 1 and cpu_row in checks[0]
    assert "so under torch's CPU wheel, in Python 3.11 on an x86-64 Linux CPU with AVX2" in _readme()
    assert "and lab 00's first exercise then checks as *wrong*" in _readme()
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from hood import interface  # every page's downloads line says it too, in both languages

    # with both indexes, pip takes the highest version `==2.13.0` admits: the CPU index's local `+cpu` one
    assert "2.13.0+cpu" in SpecifierSet("==2.13.0") and Version("2.13.0+cpu") > Version("2.13.0")

    for language, said in (("en", "the package index's Linux build is a CUDA one"),
                           ("es", "la del índice de paquetes para Linux es una versión para CUDA")):
        words = interface.words(language, "download")
        for key in ("downloads", "downloads_with"):
            assert "--extra-index-url https://download.pytorch.org/whl/cpu" in words[key] and said in words[key]


def test_make_serve_is_not_a_check_build():
    """README: serving, like bless and lens, is not a check build (it reads the authoring cache)."""
    from hood.engine.settings import Settings

    serving = Settings.from_options(ROOT, serving=True)
    assert not serving.check and serving.use_cache and Settings.from_options(ROOT).check
    assert "Every build but `make serve`, `make bless` and `make lens`" in _readme()


def test_the_figure_preview_takes_the_theme_from_the_last_build_and_the_browser_test_keeps_shots_in_a_temporary_folder(
        tmp_path, monkeypatch):
    """README, a figure: without a build in `site/` the preview links `hood.css` alone, whose colours are the
    theme's variables; the browser test writes its screenshots under pytest's temporary folder, not `shots/`."""
    import inspect

    from tests import test_browser_figures
    from tools import figure_preview

    (tmp_path / "docs" / "assets").mkdir(parents=True)
    (tmp_path / "docs" / "assets" / "hood.css").write_text((ROOT / "docs" / "assets" / "hood.css").read_text())
    monkeypatch.setattr(figure_preview, "ROOT", tmp_path)
    links = re.findall(r'href="([^"]+)"', figure_preview.page_html("<p>x</p>", "en", "slate"))
    assert [Path(link).name for link in links] == ["hood.css"]
    css = (tmp_path / "docs" / "assets" / "hood.css").read_text()
    assert "fill: var(--md-typeset-color)" in css and "--md-typeset-color:" not in css
    source = inspect.getsource(test_browser_figures.test_every_figure_fits_its_column_and_reads)
    assert "tmp_path_factory.mktemp(" in source and "shots/" not in source
    assert "takes the theme's stylesheets from the last build in `site/`" in _readme()
    assert "screenshots every figure of the built site into pytest's temporary folder" in _readme()


def test_the_measuring_blocks_and_other_releases_outputs_are_shown_without_being_compared():
    """README, opening: a profile's operator shares are printed by an untraced block, and the lens boxes show
    outputs another release printed, read from records, not produced by the pinned torch."""
    drill = (ROOT / "snippets" / "lab00" / "drill.py").read_text(encoding="utf-8")
    assert "drill-profile" in TIMINGS and not (ROOT / "traces" / "labs" / "00-trace-the-dispatcher" /
                                               "drill-profile.txt").exists()
    assert "operator rows over" in drill and "of their summed self CPU time" in drill
    shown = [entry for release in lens.load(ROOT / "traces" / lens.LENS_DIR) for entry in release.entries.values()
             if not entry.matched and entry.output]
    assert shown and not torch.__version__.startswith(("2.12.1", "2.14.1"))
    assert "Two kinds of output are not compared: the few blocks that measure time" in _readme()
    assert "what another torch release prints is shown from the records" in _readme()


DIS_HEAD = ("import dis\nimport os as torch\nimport os as F\n\n\ndef head(x, W, b):\n"
            "    return torch.softmax(F.linear(x, W, b), dim=-1)\n\n\n"
            "for ins in dis.get_instructions(head):\n    print(f\"  {ins.opname:<13} {ins.argrepr}\".rstrip())\n")
"""`head`'s bytecode as theory 03's dynamo-graph block prints it, with modules standing in for torch and F."""


def test_a_download_prints_the_pages_bytecode_in_python_3_11_only_and_its_kernels_with_avx2_only():
    """README, the course without the site: theory 03 prints Python 3.11's bytecode (PRECALL, which Python 3.12
    removed), and with simdlen 256 Inductor finds no vector ISA on a Mac or on a CPU without AVX2. Any other
    Python found on this machine prints other bytecode."""
    import dis
    import subprocess
    from unittest import mock

    from torch._inductor import cpu_vec_isa

    trace = trace_body(ROOT / "traces" / "theory" / "03-compile" / "dynamo-graph.txt")
    bytecode = trace.split("\n", 1)[1].split("\u27e6")[0]
    here = subprocess.run([sys.executable, "-c", DIS_HEAD], capture_output=True, text=True, check=True).stdout
    assert here == bytecode and "PRECALL" in bytecode and "PRECALL" in dis.opmap and sys.version_info[:2] == (3, 11)
    others = [*Path("/usr/bin").glob("python3.1[234]"), *Path.home().glob(".pyenv/versions/3.1[234]*/bin/python")]
    for python in others:
        printed = subprocess.run([python, "-c", DIS_HEAD], capture_output=True, text=True, check=True).stdout
        assert printed.startswith("  RESUME") and "PRECALL" not in printed and printed != bytecode, python
    kernel = trace_body(ROOT / "traces" / "theory" / "03-compile" / "inductor-code.txt")
    assert "at::vec::Vectorized" in kernel
    import torch._inductor.config as inductor_config

    with inductor_config.patch({"cpp.simdlen": 256}):
        try:
            for patch in (mock.patch.object(sys, "platform", "darwin"),
                          mock.patch.object(cpu_vec_isa, "x86_isa_checker", lambda: [])):
                cpu_vec_isa.valid_vec_isa_list.cache_clear()
                with patch:
                    assert not cpu_vec_isa.pick_vec_isa()  # scalar loops: tests/test_compile_aot_inductor.py
        finally:
            cpu_vec_isa.valid_vec_isa_list.cache_clear()
    assert "another Python prints other bytecode in theory 03, and a Mac or a CPU without AVX2" in _readme()


def test_theory_01s_cpp_block_raises_without_ninja_which_torch_does_not_install_and_the_project_pins(tmp_path):
    """README, two commands and downloads: with a C++ compiler but no `ninja` on PATH, theory 01's load_inline
    raises before compiling; torch's requirements hold no ninja, so the project pins it, every make target finds
    it first on PATH, and theory 01's downloads ask for it."""
    import importlib.metadata
    import subprocess
    import tomllib

    from tools import notebooks

    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("g++", "c++", "gcc", "cc"):
        (tools / name).symlink_to(f"/usr/bin/{name}")
    env = {"HOME": str(tmp_path), "PATH": str(tools), "TORCH_EXTENSIONS_DIR": str(tmp_path / "ext"),
           "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    run = subprocess.run([sys.executable, "-c", "from snippets.dispatcher.cpp_registration import "
                          "compile_and_register\ncompile_and_register()"], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=False, timeout=60)
    assert run.returncode != 0 and "RuntimeError: Ninja is required to load C++ extensions" in run.stderr
    assert not [r for r in importlib.metadata.requires("torch") or [] if r.lower().startswith("ninja")]
    pins = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert "ninja==1.13.2" in pins
    path = subprocess.run(["make", "-s", "--no-print-directory", "--eval", "path: ; @echo $$PATH", "path"],
                          cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert path.split(":")[0] == str(ROOT / ".venv" / "bin")
    assert notebooks.needs("theory/01-dispatcher-and-aten.md").requires == ("ninja",)
    assert '--8<-- "dispatcher/cpp_registration.py:body"' in (
        ROOT / "docs" / "en" / "theory" / "01-dispatcher-and-aten.md").read_text(encoding="utf-8")
    assert "is pinned too: the Makefile puts `.venv/bin` first on the PATH of every" in _readme()
    assert "Theory 01's also need `ninja`, which its downloads line adds to that `pip" in _readme()
    for language, said in (("en", "`load_inline` also needs `ninja`, which torch does not install"),
                           ("es", "`load_inline` necesita además `ninja`, que torch no instala")):
        page = ROOT / "docs" / language / "theory" / "01-dispatcher-and-aten.md"
        assert said in " ".join(page.read_text(encoding="utf-8").split())


def test_torch_runs_ninja_from_path_and_never_imports_it_so_the_downloads_line_says_uses(tmp_path, monkeypatch):
    """Theory 01's downloads line: the `ninja` package imports here, yet with its program off PATH torch finds no
    ninja; so a page's requirement is one a torch feature uses (numpy is imported, ninja is run), not imports."""
    import importlib.util
    import inspect

    from hood.engine import download
    from torch.utils import cpp_extension
    from tools import notebooks

    venv_bin = Path(sys.executable).parent
    assert importlib.util.find_spec("ninja") is not None and (venv_bin / "ninja").exists()
    monkeypatch.setenv("PATH", str(tmp_path))
    assert not cpp_extension.is_ninja_available()
    monkeypatch.setenv("PATH", str(venv_bin))
    assert cpp_extension.is_ninja_available()
    assert "subprocess.check_output(['ninja', '--version'])" in inspect.getsource(cpp_extension.is_ninja_available)
    assert not re.search(r"^\s*(import|from) ninja\b", inspect.getsource(cpp_extension), re.MULTILINE)
    page = "theory/01-dispatcher-and-aten.md"
    for language, said in (("en", "torch 2.13.0 and ninja, which a torch feature of this page uses"),
                           ("es", "y con ninja, del que depende una función de torch que usa esta página")):
        line = download.links_paragraph(notebooks.downloads(page, language), language, "2.13.0")
        assert said in line and "import" not in line


def test_make_check_runs_the_search_indexs_chromium_tests_and_does_not_install_chromium():
    """README, make check: the search index's module is not marked `browser`, yet two of its tests take the
    Chromium fixture; the `check` target, unlike `test`, does not depend on `browser`, which installs it alone."""
    import inspect
    import subprocess

    from tests import test_browser, test_search_index
    from tests.conftest import MARKED_MODULES

    assert "test_search_index" not in set().union(*MARKED_MODULES.values())
    chromium = [name for name, test in vars(test_search_index).items() if name.startswith("test_")
                and "browser" in inspect.signature(test).parameters]
    assert len(chromium) == 2 and test_search_index.browser is test_browser.browser
    assert "executable_path=CHROMIUM" in inspect.getsource(test_browser.browser) and test_browser.CHROMIUM == (
        "/usr/bin/chromium")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^check: \$\(STAMP\)$", makefile, re.MULTILINE)
    assert re.search(r"^test: \$\(STAMP\) browser$", makefile, re.MULTILINE)
    browser = subprocess.run(["make", "-n", "--no-print-directory", "browser"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout  # `make browser` alone installs it too
    assert "test -x /usr/bin/chromium ||" in browser and "apt-get install -y -qq chromium" in browser
    assert ("so `make check` needs `/usr/bin/chromium` too, which `make test` installs (`make browser` is that step "
            "alone)") in _readme()


def test_the_suites_parallel_parts_run_one_process_per_cpu_but_lab_02s_two_languages_run_together():
    """README, make test: the audit and the notebooks size their pools by the CPUs; lab 02's fixture starts its two
    languages' runs at once, whatever the CPUs, and labs 00 and 01 run their Spanish deliverables in-process."""
    import inspect

    from tests import test_downloads, test_lab00, test_lab01, test_lab02
    from tools import audit

    pool = inspect.getsource(test_downloads.ran.__wrapped__)
    assert "ThreadPoolExecutor(max_workers=os.cpu_count() or 1)" in pool
    assert "default=os.cpu_count() or 1" in inspect.getsource(audit.main)
    runs = inspect.getsource(test_lab02.runs.__wrapped__)
    assert "start_lab(out" in runs and "cpu_count" not in runs and "Popen" in inspect.getsource(test_lab02.start_lab)
    assert '"--lang", "es"' in inspect.getsource(test_lab00) and '"--lang", "es"' in inspect.getsource(test_lab01)
    assert "Popen" not in inspect.getsource(test_lab00) + inspect.getsource(test_lab01)
    assert ("course's notebooks) they run one process per CPU at a time, and lab 02's two languages run side by side "
            "whatever the CPUs") in _readme()


HEADERLESS = ("import sys, sysconfig\nfound = sysconfig.get_path\n"
              "sysconfig.get_path = lambda name, *a, **k: sys.argv[1] if name == 'include' else found(name, *a, **k)\n"
              "from snippets.dispatcher.cpp_registration import compile_and_register\ncompile_and_register()\n")
"""Theory 01's C++ block in a Python whose headers torch cannot find (the folder `sys.argv[1]` holds no Python.h)."""


def test_the_cpp_builds_need_pythons_headers_and_debian_ships_them_and_venv_in_their_own_packages(tmp_path):
    """README, two commands and downloads: load_inline compiles torch/extension.h, which includes Python.h, and
    Inductor's CPU kernels come with Python bindings that include it too; on Debian, Python.h and ensurepip (which
    `python3.11 -m venv` runs) are not in the python3.11 package."""
    import shutil
    import subprocess

    from torch._inductor.codecache import CppPythonBindingsCodeCache

    (tmp_path / "include").mkdir()
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp_path / "ext"), "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    run = subprocess.run([sys.executable, "-c", HEADERLESS, str(tmp_path / "include")], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode != 0 and "Python.h: No such file or directory" in run.stdout + run.stderr
    assert "#include <Python.h>" in CppPythonBindingsCodeCache.suffix_template
    assert "async_compile.cpp_pybinding(" in trace_body(ROOT / "traces" / "theory" / "03-compile" / "torch-logs.txt")
    header = Path("/usr/include/python3.11/Python.h")
    if shutil.which("dpkg") and header.exists():  # a Debian machine with the headers installed
        owner = subprocess.run(["dpkg", "-S", str(header)], capture_output=True, text=True, check=True).stdout
        assert owner.startswith("libpython3.11-dev:")
        depends = subprocess.run(["dpkg", "-s", "python3.11-dev"], capture_output=True, text=True).stdout
        assert "libpython3.11-dev " in depends
        ensurepip = subprocess.run(["dpkg", "-S", "/usr/lib/python3.11/ensurepip/__init__.py"], capture_output=True,
                                   text=True, check=True).stdout
        assert ensurepip.startswith("python3.11-venv:")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(PYTHON) -m venv $(VENV)" in makefile
    assert "(Debian's `python3.11-venv` and `python3.11-dev`" in _readme()
    assert "a C++ compiler and Python's headers (`Python.h`, which torch compiles extensions and Inductor's" in (
        _readme())


def test_make_benchs_builds_are_not_check_builds(tmp_path):
    """README and theory 00: `make bench` times lenient builds (HOOD_CHECK=off) and one with execution off, which
    runs no block and so compares no trace; neither fails on drift."""
    import ast

    from hood.engine.settings import Settings
    from tools import bench
    from tools.sandbox import build_env

    tree = ast.parse(Path(bench.__file__).read_text(encoding="utf-8"))
    modes = {keyword.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             for keyword in node.keywords if keyword.arg == "mode"}
    assert modes == {"lenient", "no-exec"}
    assert build_env(tmp_path, mode="lenient", cache=True)["HOOD_CHECK"] == "off"
    assert not Settings.from_options(tmp_path, check="off").check
    assert build_env(tmp_path, mode="no-exec", cache=False)["HOOD_EXECUTE"] == "off"
    from hood.engine import build

    state = build.BuildState.start(Settings.from_options(tmp_path, execute="off"), ["en"])
    state.page, state.language = "p.md", "en"
    assert build.run_block("print(1)\n", id="b", state=state, traced=True, boxes=[]) == "" and not state.checks
    state.engine.close()
    assert "and those `make bench` times (with `HOOD_CHECK=off`, or no block run), is a check build" in _readme()
    said = {"en": "`make lens`, the builds `make bench` times and any build with `HOOD_CHECK=off`) a difference",
            "es": "`make lens`, las que cronometra `make bench` y cualquiera con `HOOD_CHECK=off`), una diferencia"}
    for language, sentence in said.items():
        assert sentence in " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())


def test_the_course_checks_ask_for_prose_after_an_output_but_not_for_what_it_says(monkeypatch):
    """README, the shape of a page: theory 00 with the prose after its first output cut up to the next heading
    fails tests/test_course.py's reading check, as it does with a question there; with that prose swapped for a
    sentence about something else, every check of the module passes."""
    from tests import test_course
    from tools.pages import fences

    lines = test_course.page_lines("en", PAGE)
    end = next(f.fence.end for f in fences(lines) if f.option("id") == "first-look")
    heading = next(i for i in range(end + 1, len(lines)) if lines[i].startswith("#"))
    assert any(line.strip() and not line.startswith(("#", "```")) for line in lines[end + 1:heading])
    for prose, read in (([], False), (['??? question "Why?"', "    Because.", ""], False),
                        (["The weather was fine that day.", ""], True)):
        page = [*lines[:end + 1], "", *prose, *lines[heading:]]
        monkeypatch.setattr(test_course, "page_lines", lambda language, name, page=page: page)
        test_course.test_a_theory_page_opens_with_its_frame("en", PAGE)
        test_course.test_a_theory_page_ends_with_a_summary_questions_and_reading("en", PAGE)
        test_course.test_every_code_box_a_reader_sees_is_at_most_thirty_lines(PAGE)
        test_course.test_no_file_is_included_twice_on_a_page(PAGE)
        test_course.test_an_output_over_forty_lines_is_collapsed_behind_a_summary("en", PAGE)
        if read:
            test_course.test_every_output_is_read_before_the_next_heading_or_block("en", PAGE)
        else:
            with pytest.raises(AssertionError, match="first-look"):
                test_course.test_every_output_is_read_before_the_next_heading_or_block("en", PAGE)
    assert "and that prose or a box (not a heading, another block or a question) follows each output" in _readme()
    assert "No test reads what that prose says: that is the author's to keep." in _readme()


@pytest.mark.parametrize(("page", "block"), [("theory/02-autograd-and-custom-ops.md", "diagram-linear"),
                                             ("theory/01-dispatcher-and-aten.md", "tables")])
def test_the_reading_check_covers_a_figure_and_a_markdown_output(monkeypatch, page, block):
    """README, the shape of a page: "each output" includes a figure (`html="on"`) and a block printed as Markdown
    (no `result`); with the prose after one cut up to the next heading, the reading check fails on that block."""
    from tests import test_course
    from tools.pages import fences

    lines = test_course.page_lines("en", page)
    fence = next(f for f in fences(lines) if f.option("id") == block)
    assert not fence.option("result")
    end = fence.fence.end
    heading = next(i for i in range(end + 1, len(lines)) if lines[i].startswith("#"))
    cut = [*lines[:end + 1], "", *lines[heading:]]
    monkeypatch.setattr(test_course, "page_lines", lambda language, name: cut)
    with pytest.raises(AssertionError, match=block):
        test_course.test_every_output_is_read_before_the_next_heading_or_block("en", page)
    assert "and that prose or a box (not a heading, another block or a question) follows each output" in _readme()


def test_make_serve_sees_no_template_edit_and_renders_no_unchanged_page_after_a_config_edit(tmp_path):
    """README, make serve: the server watches no `overrides/` (no `--watch-theme`), and its dirty rebuild after an
    edit of `mkdocs.yml` (or a template) leaves a page whose source and includes are older than its output as it was."""
    import inspect

    from mkdocs.structure.files import File

    from hood import mkdocs_plugin
    from hood.engine.build import remove_stale_outputs
    from tools import serve

    args = serve.mkdocs_args(ROOT, "127.0.0.1:8000")
    assert "--dirty" in args and "--watch-theme" not in args
    assert not [arg for arg in args if "overrides" in arg]
    assert "[_root(config) / glossary.GLOSSARY_FILE]" in inspect.getsource(mkdocs_plugin.HoodPlugin.on_files)
    source, output = _served_page(tmp_path)
    for edited in (tmp_path / "mkdocs.yml", tmp_path / "overrides" / "theme" / "main.html"):
        edited.parent.mkdir(parents=True, exist_ok=True)
        edited.write_text("edited\n", encoding="utf-8")
    remove_stale_outputs([(source, output)], [tmp_path / "glossary.yml"], [tmp_path / "snippets"])
    assert output.is_file()
    assert not File("p.md", str(source.parent), str(tmp_path / "site"), use_directory_urls=True).is_modified()
    assert "It does not watch `overrides/`, and after an edit of `mkdocs.yml` it renders no page" in _readme()


def test_a_snippet_body_needs_what_its_page_includes_before_it():
    """README, snippets: most bodies use a name their module imports from `hood` or `snippets` above the markers, so
    theory 02's version-counter body, run alone in a fresh namespace, stops at `running_example`; its page's setup
    includes the running example and the helper the body calls."""
    import ast

    bodies = used = 0
    for path in (ROOT / "snippets").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "# --8<-- [start:body]" not in text:
            continue
        head, rest = text.split("# --8<-- [start:body]")
        imported = {alias.asname or alias.name for node in ast.parse(head).body if isinstance(node, ast.ImportFrom)
                    and (node.module or "").split(".")[0] in {"hood", "snippets"} for alias in node.names}
        names = {node.id for node in ast.walk(ast.parse(rest.split("# --8<-- [end:body]")[0]))
                 if isinstance(node, ast.Name)}
        bodies, used = bodies + 1, used + bool(imported & names)
    assert used > bodies / 2
    from hood.engine.blocks import expand_includes

    body = expand_includes('--8<-- "autograd/inplace.py:body"', project_snippets_config(ROOT))
    namespace: dict = {}
    exec(body, namespace)  # noqa: S102 - a snippet's body, as a learner pastes it
    with pytest.raises(NameError, match="running_example"):
        namespace["version_counter"]()
    setup = (ROOT / "docs" / "en" / "theory" / "02-autograd-and-custom-ops.md").read_text(encoding="utf-8")
    setup = setup[:setup.index("{#forward-records-backward-traverses}")]
    assert '--8<-- "running_example.py"' in setup and '--8<-- "autograd/inplace.py:leaf"' in setup
    assert "once what the page includes before it has run (most often its `setup.py`)" in _readme()


def test_a_lens_record_marks_a_difference_as_the_builds_the_releases_or_both():
    """README, upgrading torch: `origin` is `both` when some changed lines name CUDA and some do not; the records
    hold all three."""
    assert lens.origin("a\n", "b\n") == "release"
    assert lens.origin("a\n", "a\n| `CUDA` |\n") == "build"
    assert lens.origin("a\n", "b\n| `CUDA` |\n") == "both"
    origins = {entry.origin for release in lens.load(ROOT / "traces" / lens.LENS_DIR)
               for entry in release.entries.values() if not entry.matched}
    assert origins == {"build", "release", "both"}
    assert "marked as the build's (CUDA rows), the release's or both" in _readme()


def test_a_downloads_first_cell_is_the_pages_prose_and_its_first_code_cell_sets_the_state():
    """README, the course without the site: a notebook opens with the page's title and prose; the state (language,
    pins, seeds) comes in the first code cell."""
    from tools import notebooks

    cells = notebooks.cells("theory/01-dispatcher-and-aten.md", "es", learner=False)
    assert cells[0].kind == "markdown" and cells[0].source.startswith("# 01 ·")
    code = next(cell for cell in cells if cell.kind == "code")
    assert code.role == "state" and 'PAGE_LANGUAGE = "es"' in code.source and "torch.manual_seed(0)" in code.source
    assert "Their first code cell sets the page's language and the state the site's blocks ran from" in _readme()


def test_every_setup_block_includes_the_capture_modules_and_three_leave_out_the_running_example():
    """README, setup blocks: each page's setup includes `hood/capture/common.py`'s body; theory 04, lab 03 and the
    reading guide's include no running example, and every block of a page with a setup joins its session."""
    from tools.pages import fences, page_lines

    without = set()
    for page in (ROOT / "docs" / "en").rglob("*.md"):
        name = page.relative_to(ROOT / "docs" / "en").as_posix()
        found = [f for f in fences(page_lines("en", name)) if "exec=" in f.info]
        setups = [f for f in found if f.option("id") == "setup"]
        if not setups:
            continue
        (setup,) = setups
        assert setup.container.startswith('??? example "Setup block')
        assert {f.option("session") for f in found} == {setup.option("session")}, name
        lines = "\n".join(setup.fence.lines)
        assert '--8<-- "hood/capture/common.py:body"' in lines, name
        if '--8<-- "running_example.py"' not in lines:
            without.add(name)
    assert without == {"theory/04-distributed.md", "labs/03-compile-and-survey.md", "reference/reading-outputs.md"}
    assert "that includes the capture modules and what the page's blocks share (most often the running example;" in (
        _readme())


def test_linear_on_a_non_contiguous_3d_batch_records_add_not_a_view_of_addmm():
    """Theory 00's 3-D prediction: the contiguous batch is viewed around addmm; a transposed view or an expanded
    input of the same shape goes through matmul and a separate add, so the node is AddBackward0."""
    _, W, b = running_example()
    contiguous = torch.randn(3, 2, 64, requires_grad=True)
    assert type(F.linear(contiguous, W, b).grad_fn).__name__ == "ViewBackward0"
    for x3 in (torch.randn(2, 3, 64, requires_grad=True).transpose(0, 1),
               torch.randn(1, 2, 64, requires_grad=True).expand(3, 2, 64)):
        assert x3.shape == (3, 2, 64) and not x3.is_contiguous()
        with OpLog() as log:
            y3 = F.linear(x3, W, b)
        assert "aten::addmm" not in log.names and log.names[-2:] == ["aten::_unsafe_view", "aten::add.Tensor"]
        assert type(y3.grad_fn).__name__ == "AddBackward0"
    said = {"en": "A non-contiguous `x` of the same shape (a transposed view, for instance) takes another path",
            "es": "Un `x` no contiguo de la misma forma (una vista transpuesta, por ejemplo) sigue otro camino"}
    for language, sentence in said.items():
        assert sentence in " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())



def test_linear_without_a_bias_calls_matmul_which_runs_mm():
    """Theory 00's no-bias prediction: linear has no mm branch of its own; it dispatches aten::matmul, and matmul
    runs aten::mm on two 2-D tensors, so the node is MmBackward0."""
    x, W, _ = running_example()
    with recording_dispatch() as steps:
        y = F.linear(x, W)
    ops = [s.op for s in steps]
    assert "aten.matmul.default" in ops and ops.index("aten.matmul.default") < ops.index("aten.mm.default")
    assert "aten.addmm.default" not in ops and type(y.grad_fn).__name__ == "MmBackward0"
    _page_says({"en": ("so `linear` calls `matmul` on `x` and `W`'s transpose, which runs `mm` for two 2-D tensors",),
                "es": ("así que `linear` llama a `matmul` con `x` y la transpuesta de `W`, y con dos tensores de dos "
                       "dimensiones `matmul` ejecuta `mm`",)})

TIMED_PAGE = ('# Home\n\n```python exec="on" id="same"\nprint(1)\n```\n\nRead.\n\n'
              '```python exec="on" id="timing" trace="off"\nimport time\nprint(time.time())\n```\n')
"""A page with a traced block whose output never changes and an untraced timing whose output always does."""


def test_a_check_build_under_another_torch_fails_even_if_only_a_timing_changed(tmp_path):
    """Theory 00's check-yourself answer: with traces blessed under another torch, a check build fails on
    traces/TORCH.txt alone, no traced block changed; under the same torch the timing's change fails nothing."""
    from hood.engine.traces import render_trace
    from tests.sitekit import build, mini_project

    outcomes = {}
    for blessed in (torch.__version__, "2.12.1+cpu"):
        project = mini_project(tmp_path / blessed, TIMED_PAGE)
        (project / "traces" / "index").mkdir(parents=True)
        (project / "traces" / "index" / "same.txt").write_text(render_trace("index.md", "same", "1\n"),
                                                                encoding="utf-8")
        (project / "traces" / "TORCH.txt").write_text(f"{blessed}\n", encoding="utf-8")
        result = build(project, mode="check")
        outcomes[blessed] = (result.returncode != 0, "0 of 1 traced blocks changed output" in result.output,
                             "torch version: the traces were blessed with torch 2.12.1+cpu" in result.output)
    assert outcomes == {torch.__version__: (False, False, False), "2.12.1+cpu": (True, True, True)}
    said = {"en": "so a build under another torch fails on that alone, even if only a timing",
            "es": "así que una construcción con otro torch falla ya por eso, aunque únicamente haya cambiado"}
    for language, sentence in said.items():
        assert sentence in " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())


def test_serving_under_another_torch_boxes_only_a_traced_blocks_difference_and_logs_the_torch(tmp_path):
    """Theory 00's check-yourself answer: a lenient build (as `make serve` is) fails on nothing; a timing's change
    and the torch change get no box, the torch change a line in the log; a traced block's drift gets a box."""
    from hood.engine.settings import Settings
    from hood.engine.traces import render_trace
    from tests.sitekit import build, mini_project

    serving = Settings.from_options(tmp_path, serving=True)
    assert not serving.check and not serving.bless
    seen = []
    for traced in ("1\n", "0\n"):
        project = mini_project(tmp_path / traced.strip(), TIMED_PAGE)
        (project / "traces" / "index").mkdir(parents=True)
        (project / "traces" / "index" / "same.txt").write_text(render_trace("index.md", "same", traced),
                                                                encoding="utf-8")
        (project / "traces" / "TORCH.txt").write_text("2.12.1+cpu\n", encoding="utf-8")
        result = build(project, mode="lenient")
        seen.append((result.returncode, "hood-drift" in result.page("index.html"),
                     "torch version: the traces were blessed with torch 2.12.1+cpu" in result.output))
    assert seen == [(0, False, True), (0, True, True)]
    _page_says({"en": ("`make serve` fails on none of it: it shows a traced block's difference in a box, and the "
                       "torch change only in its log.",),
                "es": ("`make serve` no falla por nada de esto: muestra en un recuadro la diferencia de un bloque con "
                       "traza, y el cambio de torch solo en su log.",)})


def test_linear_records_addmm_on_cpu_but_linear_backward_where_mps_has_its_own_kernel():
    """Theory 00's summary: an MPS kernel for aten::linear (the MPS build registers `_mps_linear`) moves AutogradMPS
    from the CompositeImplicitAutograd kernel to the autograd kernel, the one that records LinearBackward0 (as it
    does for a nested CPU tensor, whose backend has a kernel too)."""
    from tests.pinned_source import TORCH

    yaml = (TORCH.parent / "torchgen" / "packaged" / "ATen" / "native" / "native_functions.yaml").read_text()
    assert yaml.splitlines()[3291].strip() == "MPS: _mps_linear"  # L3292, the line the pages link
    x, W, b = running_example()
    assert type(F.linear(x, W, b).grad_fn).__name__ == "AddmmBackward0"
    assert table_rows("aten::linear", ("AutogradMPS",))[0].kind == "math kernel"
    library = torch.library.Library("aten", "IMPL")
    try:
        library.impl("linear", lambda x, w, b=None: x, "MPS")  # a stand-in for the MPS build's kernel
        (row,) = table_rows("aten::linear", ("AutogradMPS",))
        assert (row.kind, row.source.startswith("VariableType")) == ("autograd kernel", True)
    finally:
        library._destroy()
    assert table_rows("aten::linear", ("AutogradMPS",))[0].kind == "math kernel"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors are a prototype
        nested = torch.nested.nested_tensor([torch.randn(2, 64), torch.randn(3, 64)], requires_grad=True)
    assert type(F.linear(nested, W, b).grad_fn).__name__ == "LinearBackward0"
    said = {"en": "`linear` on a CPU tensor records `AddmmBackward0`", "es": "`linear` sobre un tensor de CPU graba"}
    for language, sentence in said.items():
        text = " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())
        assert sentence in text and "native_functions.yaml#L3287-L3292" in text and "LinearBackward0" in text


def test_a_timings_check_cell_says_only_that_it_ran():
    """README, the course without the site: the five timings (no trace) are lab tasks; their check cells pass no
    expected text, and such a check prints that the block ran, neither right nor wrong."""
    import contextlib
    import io

    from hood.engine import download
    from tools import notebooks

    unchecked = {c.block for page in ("labs/00-trace-the-dispatcher.md", "labs/03-compile-and-survey.md")
                 for c in notebooks.cells(page, "en", learner=True)
                 if c.role == "check" and c.source.rstrip().endswith("expected=None)")}
    assert unchecked == TIMINGS
    namespace: dict = {}
    exec(download.checks_cell("en", "2.13.0", "def normalise_text(t):\n    return t\n"), namespace)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace["check_answer"]("timing", "print('12.5 us')", expected=None)
    assert out.getvalue().splitlines()[-1] == (
        "timing: ran (a timing: compare it with the page by eye, it is not checked)")
    assert "a timing has no trace, so its check cell only says that it ran" in _readme()


def test_a_page_includes_several_sections_of_one_file_but_no_include_twice(monkeypatch):
    """README, the shape of a page: theory 02 includes two sections of `autograd/inplace.py` and passes the
    repeated-include check; with one of those includes doubled, the check fails on it."""
    from tests import test_course
    from tools.pages import fences, included

    page = "theory/02-autograd-and-custom-ops.md"
    lines = test_course.page_lines("en", page)
    targets = [target for f in fences(lines) for target in included(f)]
    assert {"autograd/inplace.py:leaf", "autograd/inplace.py:body"} <= set(targets)
    test_course.test_no_file_is_included_twice_on_a_page(page)
    at = lines.index('--8<-- "autograd/inplace.py:body"')
    doubled = [*lines[:at + 1], *lines[at:]]
    monkeypatch.setattr(test_course, "page_lines", lambda language, name: doubled)
    with pytest.raises(AssertionError, match="autograd/inplace.py:body"):
        test_course.test_no_file_is_included_twice_on_a_page(page)
    assert "No include (a file, or one section of it) is repeated on a page, though several sections of one file" in (
        _readme())


def test_inside_inference_mode_enable_grad_turns_grad_mode_on_and_linear_records_nothing():
    """Theory 00's autograd item and summary: grad mode on, inputs requiring grad, a differentiable operation, and
    still no node inside inference_mode; outside it, no input requiring grad records nothing either."""
    x, W, b = running_example()
    with torch.inference_mode(), torch.enable_grad():
        assert torch.is_grad_enabled()
        y = F.linear(x, W, b)
    assert y.grad_fn is None and y.is_inference()
    assert F.linear(x.detach(), W.detach(), b.detach()).grad_fn is None
    assert type(F.linear(x.detach(), W, b.detach()).grad_fn).__name__ == "AddmmBackward0"
    said = {"en": ("inside `torch.inference_mode()`, even `torch.enable_grad()` records nothing",
                   "In eager mode with grad on, outside `torch.inference_mode()`, with a 2-D `x`, a bias and an input "
                   "that requires grad, `linear` on a CPU tensor records `AddmmBackward0`"),
            "es": ("dentro de `torch.inference_mode()`, ni siquiera `torch.enable_grad()` graba nada",
                   "fuera de `torch.inference_mode()`, con un `x` de dos dimensiones, un sesgo y alguna entrada que "
                   "requiera gradiente, `linear` sobre un tensor de CPU graba `AddmmBackward0`")}
    for language, sentences in said.items():
        text = " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())
        assert all(sentence in text for sentence in sentences), language


def test_the_pages_link_c_plus_plus_sources_only_to_back_a_claim():
    """Theory 00: the course reads the machinery from the user's side, yet three theory pages link C++ headers at
    v2.13.0 where a line of them backs a claim, so the page says so."""
    linked = {page.relative_to(ROOT / "docs" / "en").as_posix() for page in (ROOT / "docs" / "en").rglob("*.md")
              if re.search(r"blob/v2\.13\.0/\S+\.(?:h|hpp|cuh|cpp)\b", page.read_text(encoding="utf-8"))}
    assert {"theory/01-dispatcher-and-aten.md", "theory/02-autograd-and-custom-ops.md",
            "theory/04-distributed.md"} <= linked
    said = {"en": "not from its C++ sources, which the pages only link where a line of them backs a claim",
            "es": "no desde su código fuente en C++, que las páginas solo enlazan cuando una línea suya respalda"}
    for language, sentence in said.items():
        assert sentence in " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())


def test_make_installs_the_pins_exactly_and_what_they_need_at_the_constraints():
    """README, two commands: torch asks for sympy (whose printer writes Inductor's kernel indexing) by a lower bound
    only; `constraints.txt` fixes its version, and the Makefile and the notebooks' virtualenvs install with it."""
    import importlib.metadata
    import inspect

    from sympy.printing.str import StrPrinter
    from torch.utils._sympy.printers import ExprPrinter

    from tools import notebooks

    assert issubclass(ExprPrinter, StrPrinter)
    sympy = [r for r in importlib.metadata.requires("torch") if re.match(r"sympy\b", r) and "extra" not in r]
    assert sympy and "==" not in sympy[0]
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    assert f"sympy=={importlib.metadata.version('sympy')}" in lines
    install = next(line for line in (ROOT / "Makefile").read_text().splitlines() if "pip install" in line)
    assert "-c constraints.txt -e '.[test,reader]'" in install
    assert '"-c",' in inspect.getsource(notebooks.reader_python)
    assert "at the versions of `constraints.txt` (torch's `sympy`" in " ".join(_readme().split())


def test_the_spanish_page_groups_a_numbers_thousands_its_own_way():
    """README, layout: a number printed through `grouped` is a marker too, so the two pages show its digits grouped
    differently (theory 04's DDP buckets)."""
    from hood.capture.common import localize

    body = trace_body(ROOT / "traces" / "theory" / "04-distributed" / "ddp-buckets.txt")
    assert "4,202,496 bytes" in localize(body, "en") and "4\u00a0202\u00a0496 bytes" in localize(body, "es")
    assert "and numbers (`decimal`, `grouped`: `4,202,496` reads `4 202 496`) in the page's language" in _readme()


def test_the_suite_holds_many_browser_tests_the_audit_notebooks_and_ranks():
    """README, layout: `tests/` has more than one browser test, and modules of its own for the audit, the downloads'
    notebooks and the distributed ranks."""
    import ast

    from tests.conftest import MARKED_MODULES

    tests = ROOT / "tests"
    browser = sum(1 for name in MARKED_MODULES["browser"]
                  for node in ast.parse((tests / f"{name}.py").read_text(encoding="utf-8")).body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))
    assert browser > 1
    assert (tests / "test_audit.py").is_file() and (tests / "test_downloads.py").is_file()
    assert all((tests / f"{name}.py").is_file() for name in MARKED_MODULES["distributed"])
    assert ("broken-input builds, the browser tests, the fragility audit, the downloads' notebooks and the "
            "distributed patterns' ranks") in _readme()


def test_serve_watches_no_traces_so_a_bless_or_lens_note_shows_after_a_restart(tmp_path):
    """README, make serve: `traces/` is not watched, and a page's output is stale only when its source, an included
    file or the glossary is newer, so a blessed trace or an edited lens note leaves the served page as it was."""
    from hood.engine.build import remove_stale_outputs
    from tools import serve

    assert not [arg for arg in serve.mkdocs_args(ROOT, "127.0.0.1:8000") if "traces" in arg]
    source, output = _served_page(tmp_path)
    notes = tmp_path / "traces" / "lens" / "notes-2.14.1.yml"
    notes.parent.mkdir(parents=True)
    notes.write_text("edited\n", encoding="utf-8")
    remove_stale_outputs([(source, output)], [tmp_path / "glossary.yml"], [tmp_path / "snippets"])
    assert output.is_file()
    assert ("Nor does it watch `traces/`: a page keeps the drift box or the lens notes it was rendered with, so "
            "restart it after a `make bless` or an edit of `traces/lens/`") in _readme()


def _page_says(said: dict[str, tuple[str, ...]]) -> None:
    """Each language's page holds its sentences, wherever they wrap."""
    for language, sentences in said.items():
        text = " ".join((ROOT / "docs" / language / PAGE).read_text(encoding="utf-8").split())
        assert all(sentence in text for sentence in sentences), language


def test_metadata_operators_called_from_python_skip_the_dispatcher():
    """Theory 00's table lookup: aten::numel, aten::size.int, aten::dim and aten::requires_grad_ (which sets a flag,
    not only reads one) are operators, yet called from Python they reach no dispatch key (their bindings are
    written by hand); through torch.ops, numel dispatches."""
    x, frozen = torch.randn(2, 3, requires_grad=True), torch.randn(2, 3)
    for name, call in (("aten::numel", lambda: torch.numel(x)), ("aten::size.int", lambda: x.size(0)),
                       ("aten::dim", lambda: x.dim()), ("aten::requires_grad_", lambda: frozen.requires_grad_())):
        assert torch._C._dispatch_has_kernel(name)
        with recording_dispatch() as steps, OpLog() as log:
            call()
        assert steps == [] and log.names == [], name
    assert frozen.requires_grad
    with recording_dispatch() as steps:
        torch.ops.aten.numel.default(x)
    assert [s.op for s in steps][:1] == ["aten.numel.default"]
    _page_says({"en": ("that only read or set a tensor's metadata (`torch.numel(x)`, `x.size(0)`, "
                       "`x.requires_grad_()`) skip the dispatcher when you call them from Python",
                       "a table lookup at the highest-priority key whose entry is not a fallthrough"),
                "es": ("que solo leen o cambian los metadatos de un tensor (`torch.numel(x)`, `x.size(0)`, "
                       "`x.requires_grad_()`) se saltan el dispatcher cuando los llamas desde",
                       "en la clave de mayor prioridad cuya entrada no es un fallthrough")})


def test_contiguous_on_a_contiguous_tensor_returns_it_without_a_lookup():
    """Theory 00's table lookup: aten::contiguous is no metadata operator (it copies a transposed tensor, through
    the dispatcher), yet on a tensor already contiguous it returns the tensor itself and reaches no key."""
    x = torch.randn(2, 3, requires_grad=True)
    with recording_dispatch() as steps, OpLog() as log:
        same = x.contiguous()
    assert same is x and steps == [] and log.names == []
    with recording_dispatch() as steps, OpLog() as log:
        x.t().contiguous()
    assert "aten.contiguous.default" in [s.op for s in steps] and "aten::clone" in log.names
    _page_says({"en": ("`x.contiguous()` on a tensor that is already contiguous: it returns `x` itself before any",),
                "es": ("`x.contiguous()` sobre un tensor que ya es contiguo: devuelve el propio `x` antes de",)})


def test_autograd_grad_calls_only_the_nodes_on_a_path_to_the_inputs_it_names():
    """Theory 00's autograd item: `.backward()` runs TBackward0 on its way to W; autograd.grad for x alone, or
    backward(inputs=[x]), runs AddmmBackward0 only and leaves W's gradient empty."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    ran = []
    y.grad_fn.register_prehook(lambda grads: ran.append("AddmmBackward0"))
    y.grad_fn.next_functions[2][0].register_prehook(lambda grads: ran.append("TBackward0"))
    torch.autograd.grad(y.sum(), x, retain_graph=True)
    y.sum().backward(inputs=[x], retain_graph=True)
    assert ran == ["AddmmBackward0", "AddmmBackward0"] and W.grad is None
    y.sum().backward()
    assert ran[2:] == ["AddmmBackward0", "TBackward0"] and W.grad is not None
    _page_says({"en": ("the backward formula of each node that leads to a tensor whose gradient you asked for",),
                "es": ("llama a la fórmula de backward de cada nodo que lleva a un tensor cuyo gradiente has pedido",)})


def test_compiled_alone_the_head_generates_no_kernel_only_an_extern_addmm():
    """Theory 00's compile item: on this CPU build Inductor hands the head's matrix product to extern_kernels.addmm
    and generates no C++ kernel (theory 03's tests show a softmax after it getting one)."""
    from hood.capture.compile import inductor_output
    from snippets.compile.inductor_code import generated_code

    torch._dynamo.reset()
    x, W, b = (t.detach() for t in running_example())
    try:
        _, (code,) = generated_code(F.linear, x, W, b)
        head = inductor_output(code)
    finally:
        torch._dynamo.reset()
    assert head.extern_calls == ["extern_kernels.addmm"] and head.kernels == {}
    _page_says({"en": ("compiled alone, `F.linear(x, W, b)`'s forward is one `extern_kernels.addmm` call and no "
                       "generated kernel",),
                "es": ("compilado solo, el forward de `F.linear(x, W, b)` es una llamada a `extern_kernels.addmm` y "
                       "ningún kernel generado",)})


def test_the_compiled_heads_backward_generates_the_sum_that_makes_bs_gradient():
    """Theory 00's compile item: with the running example's inputs, which require grad, the forward still calls
    extern_kernels.addmm alone, while the backward's two products go to extern_kernels.mm and the sum over the
    batch that makes b's gradient gets a generated C++ kernel. With a frozen b (x and W requiring grad), the
    backward is the two products and generates nothing."""
    from torch._inductor.utils import run_and_get_code

    from hood.capture.compile import inductor_output

    def compiled_codes(x, W, b):
        torch._dynamo.reset()
        try:
            return [inductor_output(code) for code in
                    run_and_get_code(lambda: torch.compile(F.linear)(x, W, b).sum().backward())[1]]
        finally:
            torch._dynamo.reset()

    x, W, b = running_example()
    forward, backward = compiled_codes(x, W, b)
    assert (forward.extern_calls, forward.kernels) == (["extern_kernels.addmm"], {})
    assert backward.extern_calls == ["extern_kernels.mm"] * 2 and sorted(backward.kernels) == ["cpp_fused_sum_0"]
    _, frozen_bias = compiled_codes(x, W, b.detach())
    assert (frozen_bias.extern_calls, frozen_bias.kernels) == (["extern_kernels.mm"] * 2, {})
    _page_says({"en": ("its backward, when `b` requires grad, generates one, the sum that makes `b`'s gradient.",),
                "es": ("su backward, cuando `b` requiere gradiente, genera uno, la suma que da el "
                       "gradiente de `b`.",)})


def test_a_single_row_through_a_tiny_or_one_output_layer_gets_a_generated_kernel_on_this_cpu_build():
    """Theory 00's compile item: one row through a 16-by-16 layer, or through a one-output layer with 38,400 inputs
    (as many multiply-adds as the head's product), is decomposed into a C++ kernel; one row through the head (64 to
    600), or two rows through the one-output layer, is still handed to extern_kernels.addmm."""
    from hood.capture.compile import inductor_output
    from snippets.compile.inductor_code import generated_code

    seen = {}
    try:
        for rows, inputs, outputs in ((1, 16, 16), (1, 38400, 1), (1, 64, 600), (2, 38400, 1)):
            torch._dynamo.reset()
            _, (code,) = generated_code(F.linear, torch.randn(rows, inputs), torch.randn(outputs, inputs),
                                        torch.randn(outputs))
            head = inductor_output(code)
            seen[rows, inputs, outputs] = (head.extern_calls, sorted(head.kernels))
    finally:
        torch._dynamo.reset()
    generated, extern = ([], ["cpp_fused_addmm_t_0"]), (["extern_kernels.addmm"], [])
    assert seen == {(1, 16, 16): generated, (1, 38400, 1): generated, (1, 64, 600): extern, (2, 38400, 1): extern}
    _page_says({"en": ("Whether a product is generated or handed to the library depends on its shapes: a single row "
                       "through a very small layer, for one, becomes a generated loop.",),
                "es": ("Que un producto se genere o se deje a la biblioteca depende de sus formas: una sola fila que "
                       "pasa por una capa muy pequeña, por ejemplo, se convierte en un bucle generado.",)})


def test_the_summary_names_the_running_example_and_theory_04s_extra_block():
    """Theory 00's summary: theory 04 works on a two-layer block besides the head, so the bullet says so; the first
    look's sentence names the boxes of other releases under its output."""
    assert "nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 600))" in _included("theory/04-distributed.md")
    _page_says({"en": ("share one running example", "theory 04 adds a two-layer block.",
                       "the two collapsed boxes after that output hold what two other releases print"),
                "es": ("comparten el ejemplo que nos acompaña", "la teoría 04 añade un bloque de dos capas.",
                       "los dos recuadros plegados que siguen a esa salida muestran lo que imprimen otras dos")})


def test_aot_autograd_captures_a_backward_only_when_one_may_be_needed():
    """Theory 00's table: AOTAutograd makes one inference graph under no_grad or when no input requires grad, and
    a forward graph plus a backward graph only when the head's output requires grad."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    seen = []

    def compiler(name):
        return lambda gm, inputs: seen.append(name) or make_boxed_func(gm.forward)

    backend = aot_autograd(fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                           inference_compiler=compiler("inference"))
    x, W, b = running_example()
    runs = []
    try:
        for grad_on, inputs in ((False, (x, W, b)), (True, (x.detach(), W.detach(), b.detach())), (True, (x, W, b))):
            torch._dynamo.reset()
            seen.clear()
            with torch.set_grad_enabled(grad_on):
                y = torch.compile(F.linear, backend=backend)(*inputs)
            if y.requires_grad:
                y.sum().backward()
            runs.append(list(seen))
    finally:
        torch._dynamo.reset()
    assert runs == [["inference"], ["inference"], ["forward", "backward"]]
    _page_says({"en": ("AOTAutograd (forward and backward captured together when a backward may be needed)",),
                "es": ("AOTAutograd (forward y backward capturados juntos cuando puede hacer falta un backward)",)})


def test_the_constraints_hold_the_setuptools_torch_needs_which_a_plain_pip_freeze_leaves_out():
    """README, two commands: torch needs setuptools (its C++ extension module, theory 01's, imports it); a plain
    `pip freeze` leaves it out, so the constraints read `pip freeze --all` and fix its version too."""
    import importlib.metadata
    import inspect
    import subprocess

    import torch.utils.cpp_extension

    from tools import constraints

    assert any(re.match(r"setuptools\b", r) for r in importlib.metadata.requires("torch"))
    assert re.search(r"^import setuptools$", inspect.getsource(torch.utils.cpp_extension), re.MULTILINE)
    plain = subprocess.run([sys.executable, "-m", "pip", "freeze"], check=True, capture_output=True, text=True)
    pinned = f"setuptools=={importlib.metadata.version('setuptools')}"
    assert pinned not in plain.stdout.splitlines() and pinned in constraints.freeze()
    assert pinned in constraints.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    assert "the `setuptools` that `torch.utils.cpp_extension` imports, and the notebook runner's IPython" in _readme()


def test_a_moved_pin_fails_the_constraints_test_though_the_virtualenv_still_matches_the_file(monkeypatch):
    """README, two commands and upgrading torch: the Makefile installs a moved pin with the old constraints, so the
    virtualenv still matches the file; only the hash of the pins it names tells that `make constraints` is due."""
    from tools import constraints

    lines = constraints.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    written = [line for line in lines if line and not line.startswith("#")]
    frozen = constraints.freeze()
    assert constraints.written_for() in lines and written == constraints.unpinned(frozen)
    moved = [re.sub(r"^torch==.*", "torch==2.14.1", pin) for pin in constraints.pins()]
    monkeypatch.setattr(constraints, "pins", lambda: moved)
    assert written == constraints.unpinned(frozen)  # the versions the virtualenv holds would not tell
    assert constraints.written_for() not in lines
    assert "with a hash of the pins it was written for; a test fails while that hash names other pins" in _readme()
    assert "run `make constraints`, then `make bless`" in _readme()


def test_answer_none_gives_the_learner_a_solution_block_whole():
    """README, downloads: a block in a `??? success` box with `answer="none"` (lab 02's figure and its detach
    survey) gets no stub; its code is the check cell's, definitions included."""
    from hood.engine import download

    text = (ROOT / "docs" / "en" / "labs" / "02-custom-op.md").read_text(encoding="utf-8")
    items = download.read_page(text, project_snippets_config(ROOT))
    cells = download.page_cells(items, language="en", pins=download.Pins(), torch_version="2.13.0",
                                normaliser="", expected=lambda block: None, learner=True, where="lab 02")
    given = [item for item in items if isinstance(item, download.Code) and item.options.get("answer") == "none"]
    assert {item.id for item in given} == {"tables-figure", "who-detaches"}
    assert all(download.split_answer(item.code, None, "w")[0] for item in given)  # each defines something
    for item in given:
        assert not [c for c in cells if c.block == item.id and c.role == "answer"], item.id
        check = next(c for c in cells if c.block == item.id and c.role == "check")
        assert "def " in check.source, item.id
    assert '(`answer="none"` to none: a demonstration the learner gets whole)' in _readme()


def test_a_changed_english_page_leaves_its_spanish_page_stale_until_make_translated(tmp_path):
    """README, writing a page: the Spanish page names the version of the English page it translates; adding a
    block to the English page makes a check build report `translation stale`, which bless does not clear."""
    from types import SimpleNamespace

    from hood.engine import translations
    from hood.engine.build import _check_freshness
    from hood.engine.report import Kind, Report

    english = (ROOT / "docs" / "en" / PAGE).read_text(encoding="utf-8")
    recorded = translations.recorded_hash((ROOT / "docs" / "es" / PAGE).read_text(encoding="utf-8"))
    assert recorded == translations.english_hash(english)
    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "p.md").write_text(english + '\n```python exec="on" id="new"\nprint(1)\n```\n',
                                          encoding="utf-8")
    state = SimpleNamespace(page="p.md", language="es", languages=("en", "es"), report=Report(check=True),
                            settings=SimpleNamespace(root=tmp_path, check=True, bless=False))
    _check_freshness(state, recorded, tmp_path)
    assert [p.kind for p in state.report.problems.values()] == [Kind.TRANSLATION_STALE]
    assert not Kind.TRANSLATION_STALE.blocks_bless
    assert "make translated PAGE=p.md" in state.report.render()
    assert "run `make translated PAGE=<section>/<page>.md` (a check build fails while a Spanish page" in _readme()


def test_the_constraints_fix_the_notebook_runners_needs_for_the_suite_but_a_readers_install_takes_none():
    """README, two commands: `.venv` holds the `reader` extra, so `constraints.txt` fixes IPython and the rest of
    what ipykernel needs; the suite's notebooks install with it, while the downloads line's `pip install` has no
    `-c`."""
    import importlib.util
    import inspect

    from hood.engine.download import TEXT
    from tools import constraints, notebooks

    assert all(importlib.util.find_spec(module) for module in ("ipykernel", "IPython", "jupyter_client"))
    assert "[test,reader]" in inspect.getsource(constraints.main)
    written = {constraints.name(line) for line in constraints.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
               if line and not line.startswith("#")}
    assert {"ipython", "jupyter-client", "setuptools", "sympy"} <= written
    assert '"-c",' in inspect.getsource(notebooks.reader_python)
    lines = [words[kind] for words in TEXT.values() for kind in ("downloads", "downloads_with")]
    assert all("pip install" in line and " -c " not in line for line in lines)
    assert "The suite runs the downloads' notebooks with the same constraints (a reader's `pip install` has none)" in (
        _readme())


def test_make_lens_sets_up_venv_first_and_installs_the_other_torch_elsewhere(monkeypatch, tmp_path):
    """README, upgrading torch: `make lens` depends on the setup stamp, so it may create `.venv` (with the pinned
    torch); the release it records goes into a virtualenv of its own under `.cache/lens/`."""
    import subprocess

    from tools import lens

    assert re.search(r"^lens: \$\(STAMP\)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.MULTILINE)
    runs = []
    (tmp_path / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    monkeypatch.setattr(lens, "ROOT", tmp_path)
    monkeypatch.setattr(subprocess, "run", lambda args, **kwargs: runs.append([str(a) for a in args]))
    python = lens.lens_python("2.14.1")
    assert python == tmp_path / ".cache" / "lens" / "venv-2.14.1" / "bin" / "python"
    installs = [args for args in runs if "install" in args]
    assert installs and all(args[0] == str(python) for args in installs)
    assert "torch==2.14.1" in installs[0] and not [a for a in installs[0] if a.startswith("torch==2.13")]
    assert "(under `.cache/lens/`; `.venv` keeps the pinned torch;" in _readme()


def _body_and_head(path: Path) -> tuple[str, str]:
    """A module's text above its body markers, and its body (the whole text for a module without markers)."""
    text = path.read_text(encoding="utf-8")
    if "# --8<-- [start:body]" not in text:
        return "", text
    head, rest = text.split("# --8<-- [start:body]", 1)
    return head, rest.split("# --8<-- [end:body]", 1)[0]


def test_a_page_includes_the_snippet_modules_an_included_snippet_imports_though_not_always_first():
    """README, snippets: every snippet module that an included snippet imports above its markers is included on
    the page too; not always first: theory 02 includes `autograd/diagrams.py:body` before `autograd/mlp.py:body`,
    which it imports (its call comes after both)."""
    import ast

    from tools.pages import fences, included, page_lines

    missing, later = [], []
    for page in sorted((ROOT / "docs" / "en").rglob("*.md")):
        name = str(page.relative_to(ROOT / "docs" / "en"))
        targets = [t.split(":")[0] for f in fences(page_lines("en", name)) for t in included(f)]
        for at, target in enumerate(targets):
            path = ROOT / "snippets" / target
            if not path.is_file() or not path.suffix == ".py":
                continue
            head, _ = _body_and_head(path)
            for node in ast.parse(head).body:
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("snippets."):
                    module = node.module.removeprefix("snippets.").replace(".", "/") + ".py"
                    if module not in targets:
                        missing.append((name, target, module))
                    elif module not in targets[:at]:
                        later.append((name, target, module))
    assert missing == []
    assert ("theory/02-autograd-and-custom-ops.md", "autograd/diagrams.py", "autograd/mlp.py") in later
    assert "the page includes those modules too, before a block uses them." in _readme()


def test_a_capture_body_needs_only_torch_and_the_standard_library():
    """README, capture: a capture module's body imports torch and the standard library, but for one optional
    import: `figure.py` displays a drawing with IPython when a notebook has it, and writes a file without it."""
    import ast

    optional, required = set(), set()
    for path in sorted((ROOT / "src" / "hood" / "capture").glob("*.py")):
        tree = ast.parse(_body_and_head(path)[1])
        guarded = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.Try)
                   and any(ast.unparse(h.type or ast.Name("")) in {"ImportError", "ModuleNotFoundError"}
                           for h in node.handlers)
                   for statement in node.body for inner in ast.walk(statement)}
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for top in {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"torch"}:
                (optional if id(node) in guarded else required).add((path.name, top))
    assert required == set() and optional == {("figure.py", "IPython")}
    assert "A capture module's body needs only torch and the standard library (no `from __future__`)" in _readme()
