"""The glossary: each term's word and definition per language, shown as hover definitions and on a page.

`glossary.yml` (next to `mkdocs.yml`) lists the terms. Every page gets one `abbr` definition per term of its
language, so the term reads as a hover definition wherever it appears in prose (not in code); the glossary page
shows them all where it says `GLOSSARY_MARKER`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

GLOSSARY_FILE = "glossary.yml"
GLOSSARY_MARKER = "<!-- glossary -->"
"""Where the glossary page shows its table."""

HEADERS = {"en": ("Term", "Meaning"), "es": ("Término", "Significado")}
"""The glossary table's column headers in each language."""


@dataclass(frozen=True)
class Term:
    """One term in one language: the word as the pages write it, and a one-sentence definition."""

    word: str
    definition: str


class GlossaryError(ValueError):
    """A glossary entry that lacks a language or has an empty word or definition."""


def load(path: Path, languages: list[str]) -> dict[str, list[Term]]:
    """The terms of each language, in the file's order; every entry must have every language."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    terms: dict[str, list[Term]] = {language: [] for language in languages}
    for number, entry in enumerate(entries, start=1):
        for language in languages:
            word, definition = _pair(entry, language)
            if not word or not definition:
                raise GlossaryError(f"{path.name}, entry {number}: give `{language}: [word, definition]`")
            terms[language].append(Term(str(word), " ".join(str(definition).split())))
    return terms


def _pair(entry: dict, language: str) -> tuple[str | None, str | None]:
    value = entry.get(language)
    return (value[0], value[1]) if isinstance(value, list) and len(value) == 2 else (None, None)


def abbreviations(terms: list[Term]) -> str:
    """The `abbr` definitions of `terms`, to append to a page's Markdown."""
    return "\n\n" + "\n".join(f"*[{term.word}]: {term.definition}" for term in terms) + "\n"


def table(terms: list[Term], language: str) -> str:
    """The glossary as a Markdown table in `language`, in alphabetical order."""
    term, meaning = HEADERS[language]
    rows = [f"| {t.word} | {t.definition} |" for t in sorted(terms, key=lambda t: t.word.casefold())]
    return "\n".join([f"| {term} | {meaning} |", "|---|---|", *rows])


def with_glossary(markdown: str, terms: list[Term], language: str) -> str:
    """A page's Markdown with the glossary's hover definitions appended (and its table where the marker is)."""
    if not terms:
        return markdown
    return markdown.replace(GLOSSARY_MARKER, table(terms, language)) + abbreviations(terms)
