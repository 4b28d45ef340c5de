"""The site's figures: in both languages with the same data, each traced, and enough of them to teach with."""

from __future__ import annotations

import re

from tests.sitekit import ROOT

COURSE = ("theory", "labs")
UNTRACED = {"labs/03-compile-and-survey": 1}
"""Figures drawn from measurements, shown but not traced (lab 03's timing chart: timings are not traces)."""

_FIGURE = re.compile(r'<figure class="hood-figure">.*?</figure>', re.DOTALL)
_LABEL = re.compile(r'aria-label="([^"]*)"')


def figures(site, page: str, language: str) -> list[str]:
    """The figures of a built page, as HTML."""
    prefix = "" if language == "en" else f"{language}/"
    return _FIGURE.findall((site / prefix / page / "index.html").read_text(encoding="utf-8"))


def course_pages() -> list[str]:
    """The theory and lab pages, as `theory/01-...` (no `.md`)."""
    return sorted(str(p.relative_to(ROOT / "docs" / "en").with_suffix(""))
                  for part in COURSE for p in (ROOT / "docs" / "en" / part).glob("*.md"))


def test_the_course_has_a_dozen_figures_each_in_both_languages_in_its_own_words(site_build):
    total = 0
    for page in course_pages():
        english, spanish = figures(site_build.site, page, "en"), figures(site_build.site, page, "es")
        assert len(english) == len(spanish), page
        for en, es in zip(english, spanish):
            assert _LABEL.search(en) and _LABEL.search(es), page
            assert _LABEL.search(en).group(1) != _LABEL.search(es).group(1), f"{page}: one title in both languages"
            assert "\u27e6" not in en + es and "hood-figure-data" not in en + es, page
        total += len(english)
    assert total >= 12


def test_every_figure_has_its_data_traced(site_build):
    for page in course_pages():
        traced = sum(t.read_text(encoding="utf-8").count("\n[figure]\n")
                     for t in (ROOT / "traces" / page).glob("*.txt"))
        assert traced == len(figures(site_build.site, page, "en")) - UNTRACED.get(page, 0), page
