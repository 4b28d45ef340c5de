"""The real site: the strict check build passes, runs each block once, and shows real outputs."""

from __future__ import annotations

import re
from collections import Counter

from hood.engine.blocks import executed_blocks
from tests.sitekit import ROOT


def page_blocks() -> dict[str, list[str]]:
    """Block ids per page, read from the English pages."""
    pages = {}
    for path in sorted((ROOT / "docs" / "en").rglob("*.md")):
        ids = [options["id"] for options, _ in executed_blocks(path.read_text())]
        if ids:
            pages[str(path.relative_to(ROOT / "docs" / "en"))] = ids
    return pages


def test_english_and_spanish_pages_mirror_each_other():
    en = sorted(p.relative_to(ROOT / "docs" / "en") for p in (ROOT / "docs" / "en").rglob("*.md"))
    es = sorted(p.relative_to(ROOT / "docs" / "es") for p in (ROOT / "docs" / "es").rglob("*.md"))
    assert en == es


def test_the_same_blocks_run_in_both_languages():
    for page, ids in page_blocks().items():
        es_ids = [o["id"] for o, _ in executed_blocks((ROOT / "docs" / "es" / page).read_text())]
        assert es_ids == ids, page


def test_strict_build_passes_and_executes_each_block_once(site_build):
    counts = Counter(site_build.executions())
    expected = {(page, block) for page, ids in page_blocks().items() for block in ids}
    assert set(counts) == expected
    assert all(n == 1 for n in counts.values()), counts


def test_every_traced_block_has_its_trace_and_measurements_have_none():
    for path in sorted((ROOT / "docs" / "en").rglob("*.md")):
        page = path.relative_to(ROOT / "docs" / "en")
        for options, _ in executed_blocks(path.read_text()):
            trace = ROOT / "traces" / page.with_suffix("") / f"{options['id']}.txt"
            assert trace.is_file() == (options.get("trace") != "off"), (page, options["id"])


def test_orientation_page_shows_the_executed_output_in_both_languages(site_build):
    for prefix in ("", "es/"):
        html = site_build.page(f"{prefix}theory/00-why-open-the-hood/index.html")
        assert "torch: 2.13.0" in html
        assert re.search(r"y.grad_fn: &lt;AddmmBackward0 object at 0x[0-9a-f]+&gt;", html)


def test_spanish_pages_are_spanish(site_build):
    html = site_build.page("es/theory/00-why-open-the-hood/index.html")
    assert '<html lang="es"' in html
    assert "Por qué abrir el capó" in html
    assert "Buscar" in html  # material's own interface text


def test_api_reference_has_spanish_labels_on_the_spanish_page(site_build):
    en, es = site_build.page("reference/api/engine/index.html"), site_build.page("es/reference/api/engine/index.html")
    assert "Attributes:" in en and "Atributos:" not in en
    assert "Atributos:" in es and "Attributes:" not in es


def test_pages_load_nothing_from_other_hosts(site_build):
    for html_file in site_build.site.rglob("*.html"):
        html = html_file.read_text(encoding="utf-8")
        for url in re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="(https?://[^"]+)"', html):
            raise AssertionError(f"{html_file} loads {url}")


def test_no_pyodide_assets(site_build):
    assert not list(site_build.site.rglob("*pyodide*"))
