"""Each Spanish page has the structure of its English page, so that a translation can only differ in its words.

Compared page by page, in order: the headings (level and explicit id: `## Title {#some-id}`, the same id in both
languages, so a link never depends on a translated slug), the admonitions (kind; titles may differ), the tables
(rows and cells per row), the link targets and every fenced block, character for character. Includes of Markdown
files (`--8<-- "lab03/survey_en.md"`) are expanded first, as the site shows them. Every link with an anchor must
land on an id of its target page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from hood.engine.blocks import expand_includes, project_snippets_config
from hood.engine.markdown_source import fence_at, fences, include_target, without_front_matter

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS / "en") for p in (DOCS / "en").rglob("*.md"))
LANGUAGES = ("en", "es")

_HEADING = re.compile(r"^(?P<level>#{1,6})[ \t]+(?P<title>.*?)[ \t]*$")
_HEADING_ID = re.compile(r"[ \t]*\{[ \t]*:?[ \t]*#(?P<id>[^\s}]+)[^}]*\}$")
_KEBAB = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_ADMONITION = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)")
_CODE_SPAN = re.compile(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", re.DOTALL)  # not across paragraphs
_LINK = re.compile(r"\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<(?P<target>(?:https?|mailto):[^>\s]+)>")
_ATTR_ID = re.compile(r"""\bid=["'](?P<id>[^"']+)["']""")


def page_text(language: str, page: Path | str, *, expand: bool = True, skip: tuple[str, ...] = ()) -> str:
    """A page without its front matter, with its Markdown includes outside fences expanded (but those in `skip`)."""
    lines = without_front_matter((DOCS / language / page).read_text(encoding="utf-8")).split("\n")
    if not expand:
        return "\n".join(lines)
    in_fence = {at for fence in fences(lines) for at in range(fence.start, fence.end + 1)}
    out = []
    for at, line in enumerate(lines):
        target = None if at in in_fence else include_target(line)
        if target and target[0].endswith(".md") and target[0] not in skip:
            out.append(expand_includes(line, project_snippets_config(ROOT)))
        else:
            out.append(line)
    return "\n".join(out)


@dataclass
class Structure:
    """What a page is made of, apart from its words."""

    headings: list[tuple[int, str | None, str]] = field(default_factory=list)  # (level, id, title)
    admonitions: list[tuple[str, str, int]] = field(default_factory=list)  # (marker, kind, indent)
    tables: list[list[int]] = field(default_factory=list)  # cells per row, one list per table
    links: list[str] = field(default_factory=list)
    fences: list[str] = field(default_factory=list)
    prose: list[str] = field(default_factory=list)  # every line outside fences


def cells(row: str) -> int:
    """The number of cells of a table row (pipes inside code spans or escaped do not count)."""
    row = _CODE_SPAN.sub("code", row.strip()).replace("\\|", "")
    return len(row.strip("|").split("|"))


def structure(text: str) -> Structure:
    """The structure of a page's Markdown text."""
    result = Structure()
    lines = text.splitlines()
    at, table = 0, None
    while at < len(lines):
        line = lines[at]
        fence = fence_at(lines, at)
        if fence:
            block = lines[fence.start:fence.end + 1]
            result.fences.append("\n".join(b[len(fence.indent):] if b.startswith(fence.indent) else b.lstrip()
                                            for b in block))
            at, table = fence.end + 1, None
            continue
        result.prose.append(line)
        if line.lstrip().startswith("|"):
            if table is None:
                table = []
                result.tables.append(table)
            table.append(cells(line))
        else:
            table = None
        heading = _HEADING.match(line)
        if heading:
            found = _HEADING_ID.search(heading["title"])
            title = _HEADING_ID.sub("", heading["title"])
            result.headings.append((len(heading["level"]), found["id"] if found else None, title))
        admonition = _ADMONITION.match(line)
        if admonition:
            result.admonitions.append((admonition["marker"], admonition["kind"], len(admonition["indent"])))
        at += 1
    plain = _CODE_SPAN.sub("", "\n".join(result.prose))  # a link's text may run over two lines
    found = sorted([(m.start(), m["target"]) for m in _LINK.finditer(plain)]
                   + [(m.start(), m["target"]) for m in _AUTOLINK.finditer(plain)])
    result.links = [target for _, target in found]
    return result


def page_structure(language: str, page: Path | str) -> Structure:
    return structure(page_text(language, page))


def anchors(language: str, page: Path | str) -> set[str]:
    """The ids a link may point at on a page: its headings' explicit ids and any `id="..."` attribute."""
    text = page_text(language, page)
    found = structure(text)
    return {h[1] for h in found.headings if h[1]} | {m["id"] for m in _ATTR_ID.finditer("\n".join(found.prose))}


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_every_heading_has_an_explicit_english_kebab_case_id(page):
    for language in LANGUAGES:
        headings = page_structure(language, page).headings
        missing = [title for _, hid, title in headings if hid is None]
        assert not missing, f"docs/{language}/{page}: headings without an explicit id ({{#some-id}}): {missing}"
        ids = [hid for _, hid, _ in headings]
        assert all(_KEBAB.match(hid) for hid in ids), (language, page, [i for i in ids if not _KEBAB.match(i)])
        assert len(ids) == len(set(ids)), (language, page, sorted(i for i in ids if ids.count(i) > 1))


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_headings_have_the_same_levels_and_ids_in_both_languages(page):
    en, es = (page_structure(lang, page) for lang in LANGUAGES)
    assert [h[:2] for h in es.headings] == [h[:2] for h in en.headings], page


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_admonitions_are_the_same_kinds_in_the_same_order(page):
    en, es = (page_structure(lang, page) for lang in LANGUAGES)
    assert es.admonitions == en.admonitions, page


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_tables_have_the_same_rows_and_columns(page):
    en, es = (page_structure(lang, page) for lang in LANGUAGES)
    assert es.tables == en.tables, page
    for language, found in (("en", en), ("es", es)):
        for table in found.tables:
            assert len(set(table)) == 1, f"docs/{language}/{page}: a table whose rows differ in cells: {table}"


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_links_have_the_same_targets_in_the_same_order(page):
    en, es = (page_structure(lang, page) for lang in LANGUAGES)
    assert es.links == en.links, page


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_fenced_blocks_are_identical_and_in_the_same_order(page):
    en, es = (page_structure(lang, page) for lang in LANGUAGES)
    assert len(es.fences) == len(en.fences), page
    for number, (english, spanish) in enumerate(zip(en.fences, es.fences), start=1):
        assert spanish == english, f"{page}: fenced block {number} differs between languages"


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_links_land_on_a_page_and_an_id_that_exist(page):
    for language in LANGUAGES:
        for target in page_structure(language, page).links:
            parts = urlsplit(target)
            if parts.scheme or parts.netloc:
                continue
            path = (DOCS / language / page).parent / parts.path if parts.path else DOCS / language / page
            path = path.resolve()
            assert path.is_file(), f"docs/{language}/{page}: {target} leads to no file"
            if parts.fragment and path.suffix == ".md":
                rel = path.relative_to((DOCS / language).resolve())
                assert parts.fragment in anchors(language, rel), \
                    f"docs/{language}/{page}: {target}: docs/{language}/{rel} has no id {parts.fragment!r}"


def test_the_parser_sees_what_the_pages_hold():
    text = "\n".join([
        "# Title {#title}", "", "!!! note \"A\"", "    ```python exec=\"on\" id=\"x\"", "    print(1)", "    ```",
        "", "| a | `b | c` |", "| --- | --- |", "", "[x](other.md#y) and `[no](link.md)` <https://example.org>",
        "## Sub", "```sh", "## not a heading", "```",
    ])
    found = structure(text)
    assert found.headings == [(1, "title", "Title"), (2, None, "Sub")]
    assert found.admonitions == [("!!!", "note", 0)]
    assert found.tables == [[2, 2]]
    assert found.links == ["other.md#y", "https://example.org"]
    assert found.fences == ['```python exec="on" id="x"\nprint(1)\n```', "```sh\n## not a heading\n```"]
