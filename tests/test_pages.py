"""The pages as text: they speak to the reader, never of the documents the course was written from."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p.relative_to(DOCS / "en") for p in (DOCS / "en").rglob("*.md"))

SOURCE_MENTIONS = re.compile(
    r"source expected|fuente esperaba|the seed (says|names|describes|expected)|la semilla (dice|da|describe|esperaba)"
    r"|started from|del que partió|de partida|brief|enunciado|chinese notebook|notebook original",
    re.IGNORECASE)
BELIEF = {"en": '!!! warning "A common belief: ', "es": '!!! warning "Una creencia extendida: '}


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_no_page_mentions_the_source_documents(page):
    for language in ("en", "es"):
        text = (DOCS / language / page).read_text(encoding="utf-8")
        assert not SOURCE_MENTIONS.search(text), (language, page, SOURCE_MENTIONS.search(text))


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_belief_boxes_come_in_both_languages(page):
    counts = {lang: (DOCS / lang / page).read_text(encoding="utf-8").count(BELIEF[lang]) for lang in BELIEF}
    assert counts["en"] == counts["es"], counts


def test_lab_00_flags_the_seven_beliefs_it_announces():
    for language, word in (("en", "Seven things"), ("es", "Siete cosas")):
        text = (DOCS / language / "labs" / "00-trace-the-dispatcher.md").read_text(encoding="utf-8")
        assert word in text and text.count(BELIEF[language]) == 7


def test_the_nav_follows_the_study_order_each_theory_page_then_its_labs():
    from mkdocs.utils.yaml import yaml_load

    config = yaml_load((DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(items):
        for item in items:
            for value in item.values():
                yield from (pages(value) if isinstance(value, list) else [value])

    assert list(pages(config["nav"])) == [
        "index.md", "theory/00-why-open-the-hood.md",
        "theory/01-dispatcher-and-aten.md", "labs/00-trace-the-dispatcher.md",
        "theory/02-autograd-and-custom-ops.md", "labs/01-autograd-by-hand.md", "labs/02-custom-op.md",
        "theory/03-compile.md", "theory/04-distributed.md", "labs/03-compile-and-survey.md",
        "releases/2.14.1.md", "releases/2.12.1.md",
        "reference/reading-outputs.md", "reference/build.md", "reference/glossary.md", "reference/api.md",
        "reference/api/capture.md", "reference/api/engine.md",
    ]
