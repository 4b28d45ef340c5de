"""A reader's view: headless Chromium (Debian's) on the built site served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.sitekit import build, mini_project

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


@contextmanager
def served(site: Path) -> Iterator[str]:
    """A built site served on 127.0.0.1 for the duration of the block; yields its base URL."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="module")
def base_url(site_build) -> Iterator[str]:
    with served(site_build.site) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, base_url) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.foreign_requests = []
    page.on("request", lambda r: None if urlparse(r.url).hostname == "127.0.0.1" or r.url.startswith("data:")
            else page.foreign_requests.append(r.url))
    yield page
    context.close()


def test_the_executed_output_is_on_the_page(page, base_url):
    page.goto(f"{base_url}/theory/00-why-open-the-hood/")
    text = page.locator("article").inner_text()
    assert "torch: 2.13.0" in text
    assert "y.grad_fn: <AddmmBackward0 object at 0x" in text
    assert page.foreign_requests == []


def test_the_switcher_leads_to_the_same_page_in_spanish(page, base_url):
    page.goto(f"{base_url}/theory/00-why-open-the-hood/")
    page.locator(".md-header__option .md-select").hover()
    page.locator('a.md-select__link[hreflang="es"]').click()
    page.wait_for_url("**/es/theory/00-why-open-the-hood/")
    assert page.locator("html").get_attribute("lang") == "es"
    assert "Por qué abrir el capó del framework" in page.locator("h1").inner_text()
    assert "torch: 2.13.0" in page.locator("article").inner_text()
    assert page.foreign_requests == []


def test_a_spanish_word_in_search_finds_the_spanish_page(page, base_url):
    page.goto(f"{base_url}/es/")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("entrañas", delay=50)
    result = page.locator(".md-search-result__item a").first
    result.wait_for(timeout=15000)
    hrefs = page.locator(".md-search-result__item a").evaluate_all("els => els.map(e => e.href)")
    assert any("/es/" in h for h in hrefs), hrefs
    assert page.foreign_requests == []


def _page_paths(site: Path) -> list[str]:
    """Every page of the built site, both languages, as URL paths."""
    return sorted("/" + str(p.parent.relative_to(site)).removeprefix(".") + ("/" if p.parent != site else "")
                  for p in site.rglob("index.html") if not {"assets", "search"} & set(p.relative_to(site).parts))


def test_no_page_logs_a_console_error_or_a_failed_request(browser, base_url, site_build):
    paths = _page_paths(site_build.site)
    assert "/" in paths and "/es/" in paths and "/es/labs/03-compile-and-survey/" in paths
    problems = []
    context = browser.new_context()
    page = context.new_page()
    page.on("console",
            lambda m: problems.append(f"{page.url}: console {m.type}: {m.text}") if m.type == "error" else None)
    # a request the next navigation cancels (net::ERR_ABORTED) is not a failure; a missing file answers 404 below
    page.on("requestfailed", lambda r: problems.append(f"{page.url}: failed {r.url} ({r.failure})")
            if r.failure != "net::ERR_ABORTED" else None)
    page.on("response", lambda r: problems.append(f"{page.url}: {r.status} {r.url}") if r.status >= 400 else None)
    for path in paths:
        page.goto(f"{base_url}{path}", wait_until="networkidle")
    context.close()
    assert problems == []


DRIFTING = '''# Home

```python exec="on" id="hello" result="text"
print("hello from a block")
```
'''


def test_a_lenient_build_shows_drift_as_an_admonition_after_the_output(browser, tmp_path):
    project = mini_project(tmp_path, DRIFTING)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    trace.write_text(trace.read_text().replace("hello from a block", "hello from an older torch"))
    result = build(project, mode="lenient")
    assert result.returncode == 0, result.output
    titles = {"": "This output differs from its committed trace", "es/": "Esta salida difiere de su traza confirmada"}
    with served(project / "site") as url:
        context = browser.new_context()
        page = context.new_page()
        for prefix, title in titles.items():
            page.goto(f"{url}/{prefix}")
            box = page.locator("article .admonition.danger")
            assert box.is_visible()
            assert box.locator(".admonition-title").inner_text() == title
            assert "-hello from an older torch" in box.locator("pre").inner_text()
            assert page.locator("article pre .admonition").count() == 0  # not text inside the output
            follows = box.evaluate("el => el.previousElementSibling.innerText")
            assert "hello from a block" in follows
        context.close()


def test_a_spanish_page_shows_no_english_interface_text(page, base_url):
    for path in ("/es/theory/01-dispatcher-and-aten/", "/es/reference/api/"):
        page.goto(f"{base_url}{path}")
        assert page.locator('[title="Permanent link"]').count() == 0, path
        assert "Made with" not in page.locator("footer").inner_text(), path
        assert page.locator(".doc-class-bases").count() == 0, path  # mkdocstrings' fixed "Bases:" label
        assert page.locator('a.headerlink[title="Enlace permanente"]').count() > 0, path
    page.goto(f"{base_url}/theory/01-dispatcher-and-aten/")
    assert page.locator('a.headerlink[title="Permanent link"]').count() > 0


LONE_PERMALINKS = r"""() => [...document.querySelectorAll("article :is(h1, h2, h3, h4, h5, h6)")].flatMap(h => {
  const link = h.querySelector(".headerlink");
  if (!link || !link.getClientRects().length) return [];
  const text = document.createRange();
  text.selectNodeContents(h);
  text.setEndBefore(link);
  const bottoms = [...text.getClientRects()].map(r => r.bottom);
  return bottoms.length && link.getBoundingClientRect().top >= Math.max(...bottoms) - 2 ? [h.id] : [];
})"""
"""The headings whose permalink wrapped onto a line of its own (an empty line under the title, as the link is unseen
until hovered)."""


def test_the_lone_permalink_check_finds_a_planted_one(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 600})
    page = context.new_page()
    link = '<a class="headerlink" style="display: inline-block; margin-left: .5em">¶</a>'
    page.set_content(f'<article><h2 id="cut" style="width: 3em">Internals{link}</h2><h2 id="fits">Short{link}</h2>'
                     '</article>')
    assert page.evaluate(LONE_PERMALINKS) == ["cut"]
    context.close()


def test_at_phone_width_no_page_scrolls_sideways_or_leaves_a_heading_an_empty_line(browser, base_url, site_build):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    wide, lone = [], []
    for path in _page_paths(site_build.site):
        page.goto(f"{base_url}{path}")
        if page.evaluate("document.documentElement.scrollWidth > window.innerWidth"):
            wide.append(path)
        lone += [f"{path}#{heading}" for heading in page.evaluate(LONE_PERMALINKS)]
    context.close()
    assert wide == [] and lone == []


def test_the_dark_theme_toggle_switches_the_scheme_in_both_languages(browser, base_url):
    for path, label in (("/theory/02-autograd-and-custom-ops/", "Switch to dark mode"),
                        ("/es/theory/02-autograd-and-custom-ops/", "Cambiar al modo oscuro")):
        context = browser.new_context(color_scheme="light")  # a fresh context: no remembered choice
        page = context.new_page()
        page.goto(f"{base_url}{path}")
        toggle = page.locator(f'label[title="{label}"]')
        assert toggle.count() == 1, path
        toggle.click()
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        assert page.locator("svg.hood-diagram").first.is_visible()
        context.close()


@pytest.mark.parametrize("prefix", ["", "es/"])
def test_lab_01_formulas_are_drawn_as_maths_with_nothing_from_another_host(page, base_url, prefix):
    page.goto(f"{base_url}/{prefix}labs/01-autograd-by-hand/")
    formulas = page.locator("article math")
    assert formulas.count() >= 9
    displayed = page.locator('article .maths math[display="block"]').first
    box = displayed.bounding_box()
    assert box is not None and box["height"] > 15 and box["width"] > 300  # drawn by the browser, not left empty
    assert "\\sum" not in page.locator("article").inner_text()
    assert page.foreign_requests == []


@pytest.mark.parametrize("prefix", ["", "es/"])
def test_a_glossary_term_shows_its_definition_on_hover(page, base_url, prefix):
    page.goto(f"{base_url}/{prefix}theory/03-compile/")
    term = page.locator("article abbr").first
    definition = term.get_attribute("title")
    assert definition and len(definition) > 20
    term.scroll_into_view_if_needed()
    term.hover()
    tooltip = page.locator(".md-tooltip--active, .md-tooltip2--active").first
    tooltip.wait_for(state="visible", timeout=3000)
    assert definition[:20] in tooltip.inner_text()


RENDERING_PROBLEMS = r"""() => {
  const problems = [];
  const article = document.querySelector("article");
  if (!article) return problems;
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const lines = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.closest("pre, code, script, style, svg, .katex, .arithmatex"))
      lines.push(...node.data.split("\n"));
  }
  for (const line of lines) {
    const t = line.trim();
    if (/^\|.*\|.*\|$/.test(t) || /\|\s*:?-{3,}/.test(t)) problems.push("raw Markdown table: " + t.slice(0, 80));
    if (/^(```|~~~)/.test(t) || /--8<--/.test(t)) problems.push("raw fence or include: " + t.slice(0, 80));
  }
  for (const p of article.querySelectorAll("p")) {
    const before = p.previousElementSibling;
    if (!before || !(/^H[1-6]$/.test(before.tagName) || before.matches(".admonition, details"))) continue;
    const first = p.firstChild;
    if (first && first.nodeType === Node.TEXT_NODE && /^\s*[a-záéíóúñ]/.test(first.data))
      problems.push("paragraph starts in lower case after a heading or box: " + p.innerText.slice(0, 80));
  }
  return problems;
}"""
"""What a reader must never see in an article: Markdown that did not render, a paragraph cut at its start."""


def _language_of(path: str) -> str:
    return "es" if path.startswith("/es/") else "en"


def test_the_rendering_check_finds_each_planted_problem(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_content("""<article><h2>A</h2><p>starts in lower case</p>
        <p>| key | CPU |</p><p>|---|---|</p><p>```python</p><p>-- a <code>| not | a | table |</code></p>
        <div class="admonition"></div><p><code>x</code> starts with code, fine</p></article>""")
    problems = page.evaluate(RENDERING_PROBLEMS)
    context.close()
    assert [p.split(":")[0] for p in problems] == [
        "raw Markdown table", "raw Markdown table", "raw fence or include",
        "paragraph starts in lower case after a heading or box"]


def test_no_page_shows_unrendered_markdown_or_a_cut_paragraph_and_each_has_its_language(browser, base_url,
                                                                                        site_build):
    context = browser.new_context()
    page = context.new_page()
    problems = []
    for path in [*_page_paths(site_build.site), "/404.html", "/es/404.html"]:
        page.goto(f"{base_url}{path}")
        problems += [f"{path}: {p}" for p in page.evaluate(RENDERING_PROBLEMS)]
        lang = page.evaluate("document.documentElement.lang")
        if lang != _language_of(path):
            problems.append(f"{path}: lang={lang!r}")
    context.close()
    assert problems == []


TIME = {"en": r"\bTime\b\D{0,12}?(\d+) min", "es": r"\bTiempo\b\D{0,12}?(\d+) min"}


@pytest.mark.parametrize("prefix", ["", "es/"])
def test_the_home_page_gives_each_page_the_time_the_page_gives_itself(page, base_url, prefix):
    import re

    page.goto(f"{base_url}/{prefix}")
    rows = page.locator("article table tr").all()
    listed = {}
    for row in rows:
        cells = row.locator("td").all()
        if len(cells) >= 2 and row.locator("a").count():
            found = re.search(r"(\d+) min", cells[-1].inner_text())
            if found:
                listed[row.locator("a").first.get_attribute("href")] = int(found[1])
    assert len(listed) >= 9
    language = "es" if prefix else "en"
    differing = {}
    for href, minutes in listed.items():
        page.goto(f"{base_url}/{prefix}{href}")
        own = re.search(TIME[language], page.locator("article").inner_text())
        if not own or int(own[1]) != minutes:
            differing[href] = (minutes, own and int(own[1]))
    assert differing == {}
