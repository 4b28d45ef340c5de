"""One search index per language, without code boxes, outputs or markup, and each language's pages fetch theirs."""

import json
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser

from hood import search
from tests.sitekit import build, mini_project
from tests.test_browser import browser, served  # noqa: F401  (browser: a fixture)

INDEX = {
    "config": {"lang": ["en", "es"], "separator": "[\\s\\-]+"},
    "docs": [
        {"location": "theory/01/#walk", "title": "Walk",
         "text": "<p>The walk shows <code>aten::addmm</code>.</p> <pre><code>y = walk()\n</code></pre>"},
        {"location": "es/theory/01/#walk", "title": "Recorrido",
         "text": "<p>El recorrido muestra <code>aten::addmm</code>.</p><svg><text>W</text></svg>"},
        {"location": "reference/api/#hood.maths", "title": "maths",
         "text": "<p>Maths at build time.</p><p>Long details.</p>"},
    ],
}


def test_each_language_gets_its_own_entries_relative_to_its_root_and_its_own_stemmer():
    split = search.per_language(INDEX, ["en", "es"])
    assert [d["location"] for d in split["en"]["docs"]] == ["theory/01/#walk", "reference/api/#hood.maths"]
    assert [d["location"] for d in split["es"]["docs"]] == ["theory/01/#walk"]
    assert split["es"]["config"] == {"lang": ["es"], "separator": "[\\s\\-]+"}


def test_the_text_keeps_prose_and_names_but_no_code_box_output_figure_or_markup():
    split = search.per_language(INDEX, ["en", "es"])
    assert split["en"]["docs"][0]["text"] == "The walk shows aten::addmm."
    assert split["es"]["docs"][0]["text"] == "El recorrido muestra aten::addmm."
    assert split["en"]["docs"][1]["text"] == "Maths at build time."  # a reference section keeps its summary


def test_an_entry_the_theme_holds_twice_is_kept_once_and_api_kind_labels_leave_titles():
    doc = {"location": "reference/api/#hood.LATE", "title": "<code>LATE = -200</code>  <code>module-attribute</code>",
           "text": "<p>Event priority.</p>"}
    split = search.per_language({"config": {}, "docs": [doc, dict(doc), dict(doc, location="es/reference/api/#x")]},
                                ["en", "es"])
    assert split["en"]["docs"] == [{"location": "reference/api/#hood.LATE", "title": "<code>LATE = -200</code>",
                                    "text": "Event priority."}]
    assert [d["location"] for d in split["es"]["docs"]] == ["reference/api/#x"]


def test_a_partial_rebuild_replaces_the_entries_of_the_pages_it_rendered_and_keeps_the_others():
    previous = {"config": {"lang": ["en"]}, "docs": [
        {"location": "", "title": "Home", "text": "old home"},
        {"location": "theory/01/", "title": "01", "text": "old intro"},
        {"location": "theory/01/#walk", "title": "Walk", "text": "old walk"},
        {"location": "theory/01/#gone", "title": "Gone", "text": "a section the edit removed"},
        {"location": "labs/00/", "title": "Lab", "text": "lab"},
    ]}
    fresh = {"config": {"lang": ["en"]}, "docs": [
        {"location": "theory/01/", "title": "01", "text": "new intro"},
        {"location": "theory/01/#walk", "title": "Walk", "text": "new walk"},
        {"location": "theory/05/", "title": "05", "text": "a new page"},
    ]}
    docs = search.merged(previous, fresh)["docs"]
    assert [(d["location"], d["text"]) for d in docs] == [
        ("", "old home"), ("theory/01/", "new intro"), ("theory/01/#walk", "new walk"), ("labs/00/", "lab"),
        ("theory/05/", "a new page")]


def test_a_page_of_another_language_looks_for_the_index_under_its_language():
    html = '<script id="__config" type="application/json">{"annotate": null, "base": "../../..", "x": 1}</script>'
    assert '"base": "../../../es/"' in search.language_root_base(html, "es")


@pytest.mark.site
def test_the_built_site_has_one_light_index_per_language(site_build):
    en = json.loads((site_build.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    es = json.loads((site_build.site / "es" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert en["config"]["lang"] == ["en"] and es["config"]["lang"] == ["es"]
    assert not [d for d in en["docs"] if d["location"].startswith("es/")]
    assert {d["location"].split("/")[0] for d in es["docs"]} >= {"theory", "labs"}
    for index in (en, es):
        texts = " ".join(d["text"] for d in index["docs"])
        assert "<pre" not in texts and "<code>" not in texts
        assert "AutogradCPU" in texts and "addmm" in texts  # key and operator names stay searchable
    assert '"base": "../../../es/"' in site_build.page("es/theory/01-dispatcher-and-aten/index.html")


@pytest.mark.site
def test_a_setup_block_is_offered_as_a_file_next_to_its_page(site_build):
    for prefix in ("", "es/"):
        html = site_build.page(f"{prefix}theory/01-dispatcher-and-aten/index.html")
        setup = (site_build.site / prefix / "theory" / "01-dispatcher-and-aten" / "setup.py").read_text()
        assert '<a href="setup.py" download>' in html
        assert "def running_example(" in setup and "def running_example(" not in html
        compile(setup, "setup.py", "exec")


SEARCHED = ("# Home\n\nThe dispatcher sends `aten::addmm` to AutogradCPU first.\n\n"
            "```python\nprint('words of a code box')\n```\n")


@pytest.fixture(scope="module")
def searched_site(tmp_path_factory) -> Iterator[str]:
    """A one-page bilingual site, built and served; yields its base URL."""
    result = build(mini_project(tmp_path_factory.mktemp("search") / "mini", SEARCHED), mode="lenient")
    assert result.returncode == 0, result.output
    with served(result.site) as url:
        yield url


def _requests(chromium: Browser, url: str, query: str = "") -> list[str]:
    """The paths a fresh page fetches for `url`, once the network is idle, then after searching `query`."""
    context = chromium.new_context()
    page = context.new_page()
    paths: list[str] = []
    page.on("request", lambda request: paths.append(urlparse(request.url).path))
    page.goto(url, wait_until="networkidle")
    if query:
        paths.append("(search opened)")
        page.locator("label.md-search__icon, .md-search__input").first.click()
        page.locator("input.md-search__input").press_sequentially(query, delay=30)
        page.locator(".md-search-result__item a").first.wait_for(timeout=15000)
        paths.append(page.locator(".md-search-result__item a").first.get_attribute("href"))
    elif "?h=" in url:
        page.locator("article mark").first.wait_for(timeout=15000)  # the words searched are highlighted
    context.close()
    return paths


def _fetched(paths: list[str], *parts: str) -> list[str]:
    return [path for path in paths if any(part in path for part in parts)]


SEARCH_FILES = ("search_index.json", "/workers/search", "/lunr/")


def test_a_first_visit_fetches_no_search_index_nor_worker_and_opening_search_fetches_its_language_s(browser,  # noqa: F811
                                                                                                    searched_site):
    for url, index in ((f"{searched_site}/", "/search/search_index.json"),
                       (f"{searched_site}/es/", "/es/search/search_index.json")):
        paths = _requests(browser, url, query="AutogradCPU")
        opened = paths.index("(search opened)")
        assert _fetched(paths[:opened], *SEARCH_FILES) == [], url
        assert _fetched(paths[opened:], "search_index.json") == [index]
        assert _fetched(paths[opened:], "/workers/search")
        assert paths[-1].startswith(url) and "?h=" in paths[-1]  # a result, on this language's page
        stemmers = _fetched(paths, "/lunr/")
        assert (stemmers == []) if index.startswith("/search") else any("lunr.es" in p for p in stemmers), stemmers


def test_a_page_opened_from_a_search_result_fetches_the_index_at_once_and_highlights(browser, searched_site):  # noqa: F811
    paths = _requests(browser, f"{searched_site}/?h=dispatcher")
    assert _fetched(paths, "search_index.json") == ["/search/search_index.json"]
