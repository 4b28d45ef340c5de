"""The shape of a page (README): a frame on theory pages, short code boxes, read outputs, labs that ask first."""

from __future__ import annotations

import re

import pytest

from tools.pages import ROOT, fences, included, output_lines, page_lines, shown_code, shows_code

DOCS = ROOT / "docs"
PAGES = sorted(str(p.relative_to(DOCS / "en")) for p in (DOCS / "en").rglob("*.md"))
THEORY = [p for p in PAGES if p.startswith("theory/")]
LABS = [p for p in PAGES if p.startswith("labs/")]
LANGUAGES = ("en", "es")

FRAME = {
    "en": ('!!! abstract "In this page"', ("**You will learn**", "**You need**", "**Time**", "**Lab**")),
    "es": ('!!! abstract "En esta página"', ("**Aprenderás**", "**Necesitas**", "**Tiempo**", "**Lab**")),
}
ENDING = ["what-to-remember", "check-yourself", "further-reading"]
SOLUTION = {"en": '??? success "Solution"', "es": '??? success "Solución"'}
MAX_CODE_LINES = 30
MAX_COLLAPSED_CODE_LINES = 60
MAX_OPEN_OUTPUT_LINES = 40


@pytest.mark.parametrize("page", THEORY)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_theory_page_opens_with_its_frame(language, page):
    lines = page_lines(language, page)
    title, labels = FRAME[language]
    first_section = next(i for i, line in enumerate(lines) if line.startswith("## "))
    assert title in lines[:first_section], f"docs/{language}/{page}: no {title} box before the first section"
    start = lines.index(title)
    box = []
    for line in lines[start + 1:]:
        if line and not line.startswith("    "):
            break
        box.append(line)
    for label in labels:
        assert any(line.strip().startswith(("- " + label, label)) for line in box), (language, page, label)


@pytest.mark.parametrize("page", THEORY)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_theory_page_ends_with_a_summary_questions_and_reading(language, page):
    lines = page_lines(language, page)
    ids = [m[1] for line in lines if (m := re.match(r"^## .*\{#([\w-]+)\}\s*$", line))]
    assert ids[-3:] == ENDING, (language, page, ids[-3:])
    start = next(i for i, line in enumerate(lines) if line.endswith("{#check-yourself}"))
    end = next(i for i, line in enumerate(lines) if line.endswith("{#further-reading}"))
    questions = [line for line in lines[start:end] if line.startswith('??? question "')]
    assert 3 <= len(questions) <= 5, (language, page, len(questions))
    for i, line in enumerate(lines[start:end], start=start):
        if line.startswith("??? question"):
            assert lines[i + 1].startswith("    ") and lines[i + 1].strip(), (language, page, "an empty answer", line)
    links = re.findall(r"\]\((https?://[^)]+)\)", "\n".join(lines[end:]))
    assert len(links) >= 2, (language, page, links)


@pytest.mark.parametrize("page", PAGES)
def test_every_code_box_a_reader_sees_is_at_most_thirty_lines(page):
    """An open box at most 30 lines; one behind a collapsed box (a solution the learner opens) at most 60."""
    def limit(f) -> int:
        return MAX_COLLAPSED_CODE_LINES if f.container.startswith("??? ") else MAX_CODE_LINES

    long = [(f.line, len(shown_code(f))) for f in fences(page_lines("en", page))
            if shows_code(f) and f.option("id") != "setup" and len(shown_code(f)) > limit(f)]
    assert not long, f"{page}: code boxes over their limit (line, length): {long}"


@pytest.mark.parametrize("page", PAGES)
def test_no_file_is_included_twice_on_a_page(page):
    targets = [target for f in fences(page_lines("en", page)) for target in included(f)]
    repeated = sorted({t for t in targets if targets.count(t) > 1})
    assert not repeated, f"{page}: included more than once: {repeated}"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_an_output_over_forty_lines_is_collapsed_behind_a_summary(language, page):
    open_long = [(f.option("id"), n) for f in fences(page_lines(language, page))
                 if "exec=" in f.info and f.option("html") != "on" and f.option("id")
                 and (n := output_lines(page, f.option("id"))) > MAX_OPEN_OUTPUT_LINES
                 and not f.container.startswith("??? ")]
    assert not open_long, f"docs/{language}/{page}: outputs over {MAX_OPEN_OUTPUT_LINES} lines left open: {open_long}"


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_output_is_read_before_the_next_heading_or_block(language, page):
    """A block that shows an output (text, Markdown or a figure) is followed by prose or a box that reads it, not
    straight by a heading, another block or a self-check."""
    lines = page_lines(language, page)
    unread = []
    for f in fences(lines):
        shows = f.option("result") or f.option("html") == "on" or output_lines(page, f.option("id")) > 0
        if "exec=" in f.info and f.option("id") != "setup" and shows:
            after = next((line.strip() for line in lines[f.fence.end + 1:] if line.strip()), "")
            if not after or after.startswith(("#", "```", "??? question")):
                unread.append((f.option("id"), after[:60]))
    assert not unread, f"docs/{language}/{page}: outputs with no reading after them: {unread}"


@pytest.mark.parametrize("page", LABS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_lab_asks_before_each_collapsed_solution_and_ends_with_pitfalls_then_acceptance(language, page):
    lines = page_lines(language, page)
    ids = [m[1] for line in lines if (m := re.match(r"^## .*\{#([\w-]+)\}\s*$", line))]
    ending = ids[ids.index("pitfalls"):] if "pitfalls" in ids else []
    assert ending in (["pitfalls", "acceptance"], ["pitfalls", "deliverables", "acceptance"]), (page, ids[-3:])
    solutions = [i for i, line in enumerate(lines) if line.startswith(SOLUTION[language])]
    assert len(solutions) >= 3, (language, page, "fewer than three collapsed solutions")
    for at in solutions:
        before = next(i for i in range(at - 1, -1, -1) if lines[i].startswith(("#", "???", "!!!")) or i == 0)
        if lines[before].startswith("???") and not lines[before].startswith("??? example"):
            before = at  # right after another box: no task of its own
        task = [line for line in lines[before + 1:at] if line.strip() and not line.startswith((" ", "```"))]
        assert task, f"docs/{language}/{page}:{at + 1}: a solution with no task stated before it"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_shared_sections_have_one_title_in_each_language(language):
    titles: dict[str, set[str]] = {}
    for page in PAGES:
        for line in page_lines(language, page):
            match = re.match(r"^## (.*) \{#([\w-]+)\}\s*$", line)
            if match and match[2] in {*ENDING, "acceptance", "pitfalls"}:
                titles.setdefault(match[2], set()).add(match[1])
    assert {key: value for key, value in titles.items() if len(value) > 1} == {}, language


@pytest.mark.parametrize("language", ["en", "es"])
def test_every_opening_box_has_one_layout(language):
    """A line per label, each but the last ending in <br>; no bullets, no colon after a label."""
    odd = {}
    for page in THEORY + LABS:
        lines = page_lines(language, page)
        start = next(i for i, line in enumerate(lines) if line.startswith('!!! abstract "'))
        box = []
        for line in lines[start + 1:]:
            if line and not line.startswith("    "):
                break
            box.append(line)
        items = [line.strip() for line in box if line.strip().startswith(("**", "- **"))]
        if (any(item.startswith("- ") or re.match(r"\*\*[^*]+:\*\*", item) for item in items)
                or not all(line.endswith("<br>") for line in _item_ends(box)[:-1])):
            odd[page] = items
    assert odd == {}


def _item_ends(box: list[str]) -> list[str]:
    """The last line of each labelled item of an opening box."""
    lines = [line.strip() for line in box if line.strip()]
    starts = [i for i, line in enumerate(lines) if line.startswith("**")]
    return [lines[j - 1] for j in starts[1:]] + [lines[-1]]
