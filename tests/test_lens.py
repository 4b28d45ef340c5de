"""The version lens: records of other torch releases shown under outputs, and a stale record failing the build."""

from __future__ import annotations

import re

import pytest

from hood.engine import lens
from hood.engine.blocks import expand_includes
from tests.sitekit import ROOT, build, mini_project

PAGE = ('# Home\n\n```python exec="on" id="table" result="text"\n--8<-- "table.py"\n```\n\n'
        '```python exec="on" id="other" result="text"\nprint("same everywhere")\n```\n')
SNIPPETS = {"table.py": 'print("CPU   kernel")\n'}


def _record(project, code_of_table: str) -> None:
    """Fake records of two releases: 9.9.9 prints another table, 9.9.8 raises on it; `other` matched."""
    for release, entry in (
        ("9.9.9+cu130", lens.LensEntry("index.md", "table", lens.code_hash(code_of_table), matched=False,
                                      origin="build", output="# page: index.md\n# block: table\n# header\n"
                                                             "CPU   kernel\nCUDA  kernel\n")),
        ("9.9.8", lens.LensEntry("index.md", "table", lens.code_hash(code_of_table), matched=False,
                                 error="AttributeError: module 'torch' has no attribute 'thing'")),
    ):
        other = lens.LensEntry("index.md", "other", lens.code_hash('print("same everywhere")'), matched=True)
        lens.write(project / "traces" / lens.LENS_DIR, release, [entry, other])


def _code(project) -> str:
    return expand_includes('--8<-- "table.py"', {"base_path": [str(project / "snippets")]})


def test_a_current_record_shows_under_its_output_in_both_languages(tmp_path):
    project = mini_project(tmp_path / "mini", PAGE, snippets=SNIPPETS)
    assert build(project, mode="bless").returncode == 0
    _record(project, _code(project))
    result = build(project, mode="check")
    assert result.returncode == 0, result.output
    en, es = result.page("index.html"), result.page("es/index.html")
    assert "In torch 9.9.9 this prints…" in en and "+CUDA  kernel" in en and "a CUDA build" in en
    assert "In torch 9.9.8 this block raises" in en and "has no attribute &#x27;thing&#x27;" in en
    assert "En torch 9.9.9 esto imprime…" in es and "En torch 9.9.8 este bloque lanza una excepción" in es
    assert en.count("hood-lens") == 2  # nothing for the block whose output matched


def test_a_record_made_for_other_code_fails_the_check_build_and_is_never_shown(tmp_path):
    project = mini_project(tmp_path / "mini", PAGE, snippets=SNIPPETS)
    assert build(project, mode="bless").returncode == 0
    _record(project, 'print("older code")')
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'table': lens stale" in result.output
    assert "make lens TORCH=9.9.9" in result.output
    lenient = build(project, mode="lenient")
    assert "hood-lens" not in lenient.page("index.html")


def test_records_are_written_whole_and_read_back(tmp_path):
    entry = lens.LensEntry("a.md", "b", "h", matched=False, origin="release", output="x\n")
    folder = lens.write(tmp_path, "2.14.1+cu130", [entry])
    assert folder == tmp_path / "2.14.1" and (folder / "a" / "b.txt").read_text() == "x\n"
    (release,) = lens.load(tmp_path)
    assert release.torch_version == "2.14.1+cu130" and release.entries["a.md#b"] == entry
    assert not list(tmp_path.glob(".lens-*"))


def test_a_difference_naming_only_cuda_comes_from_the_build():
    assert lens.origin("CPU x\n", "CPU x\nCUDA y\n") == "build"
    assert lens.origin("assert_size_stride(a, 'input')\n", "assert_size_stride(a)\n") == "release"


def test_a_difference_naming_cuda_on_some_lines_only_comes_from_both():
    """The version line: `+cpu` on the pin's side, `+cu130` on the release's."""
    assert lens.origin("torch: 2.13.0+cpu\n", "torch: 2.12.1+cu130\n") == "both"


def test_a_release_page_counts_the_unchanged_blocks_and_explains_each_change(tmp_path):
    project = mini_project(tmp_path / "mini", PAGE + "\n## What changes {#what-changes}\n\n<!-- lens: 9.9.9 -->\n",
                           snippets=SNIPPETS)
    assert build(project, mode="bless").returncode == 0
    _record(project, _code(project))
    unexplained = build(project, mode="check")
    assert unexplained.returncode != 0 and "lens unexplained" in unexplained.output
    (project / "traces" / "lens" / "notes-9.9.9.yml").write_text(
        '"index.md#table":\n  en: "CUDA builds register a CUDA kernel too."\n'
        '  es: "Las versiones para CUDA registran también un kernel de CUDA."\n')
    result = build(project, mode="check")
    assert result.returncode == 0, result.output
    en, es = result.page("index.html"), result.page("es/index.html")
    assert "1 of 2 traced blocks print the same under torch 9.9.9+cu130 as under the pinned torch; 1 differ" in en
    assert "CUDA builds register a CUDA kernel too." in en and "A difference of the build (CUDA)." in en
    assert "1 de 2 bloques con traza imprimen lo mismo" in es and "registran también un kernel de CUDA" in es


def test_the_committed_records_cover_the_release_before_and_after_the_pin():
    releases = {r.release: r for r in lens.load(ROOT / "traces" / lens.LENS_DIR)}
    assert {"2.12.1", "2.14.1"} <= set(releases)
    for release in releases.values():
        assert release.torch_version.startswith(release.release)
        unexplained = [e.key for e in release.entries.values() if not e.matched and not release.notes.get(e.key)]
        assert unexplained == [], release.release


@pytest.mark.site
@pytest.mark.parametrize("prefix", ["", "es/"])
def test_the_release_pages_and_the_boxes_under_outputs_are_on_the_site(site_build, prefix):
    words = {"": ("traced blocks print the same under torch 2.14.1", "In torch 2.14.1 this prints…"),
             "es/": ("bloques con traza imprimen lo mismo con torch 2.14.1", "En torch 2.14.1 esto imprime…")}[prefix]
    page = site_build.page(f"{prefix}releases/2.14.1/index.html")
    assert re.search(r"\d+ (of|de) \d+ " + re.escape(words[0]), page)
    assert words[1] in site_build.page(f"{prefix}theory/03-compile/index.html")


def test_a_lens_diff_reads_in_the_pages_language():
    """A Spanish page shows the Spanish side of every phrase, and names the pinned torch in Spanish."""
    from hood.capture.common import words

    pinned = words(en="What was fused", es="Qué se fusionó") + ": 2 kernels\n"
    other = words(en="What was fused", es="Qué se fusionó") + ": 3 kernels\n"
    spanish = lens.diff(pinned, other, "2.14.1", "es")
    assert "-Qué se fusionó: 2 kernels" in spanish and "+Qué se fusionó: 3 kernels" in spanish
    assert "--- torch fijado" in spanish and "What was fused" not in spanish
    assert "-What was fused: 2 kernels" in lens.diff(pinned, other, "2.14.1", "en")


def test_a_lens_diff_shows_no_trace_header_under_an_output():
    """The box under an output diffs what the block prints: the trace file's header is neither context nor change."""
    from hood.engine.traces import render_trace

    pinned = render_trace("theory/03-compile.md", "guards", "17 guards\n")
    other = "# page: theory/03-compile.md\n# block: guards\n# normalised output\n29 guards\n"
    shown = lens.diff(pinned, other, "2.12.1", "en")
    assert "page:" not in shown and "normalised" not in shown
    assert "-17 guards" in shown and "+29 guards" in shown and "@@ -1 +1 @@" in shown


def test_a_lens_diff_shows_a_table_as_the_page_does():
    """A Markdown table in an output is diffed as its cells in aligned columns: no pipes, no rule, no backticks."""
    pinned = "| key | kernel |\n|---|---|\n| `CPU` | `RegisterCPU_0.cpp` |\n| `CUDA` | default |\n"
    other = "| key | kernel |\n|---|---|\n| `CPU` | `RegisterCPU_0.cpp` |\n| `CUDA` | `RegisterCUDA_0.cpp` |\n"
    shown = lens.diff(pinned, other, "2.14.1", "en")
    assert "|" not in shown and "`" not in shown
    assert "-CUDA   default" in shown and "+CUDA   RegisterCUDA_0.cpp" in shown
    assert " CPU    RegisterCPU_0.cpp" in shown


def test_a_lens_box_says_what_a_placeholder_stands_for_only_when_its_diff_has_one():
    """A `<cell>` in a diff, where the page shows a block's file name, is explained in the page's language."""
    from hood.engine.report import lens_box

    placeholder = lens_box("2.14.1", "2.14.1", diff="-# File: <cell> in forward\n+# File: <cell> in fwd")
    assert "stands for the file name of the block that defined the code" in placeholder
    assert "sustituye al nombre de archivo" in lens_box("2.14.1", "2.14.1", diff="- <cell>", language="es")
    assert "stands for" not in lens_box("2.14.1", "2.14.1", diff="-17 guards\n+29 guards")
