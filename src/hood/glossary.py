"""The glossary: each term's word and definition per language, shown as hover definitions and on a page.

`glossary.yml` (next to `mkdocs.yml`) lists the terms. Every page gets one `abbr` definition per form of each
term of its language, so the term reads as a hover definition wherever one of its forms appears in prose (not in
code); the glossary page shows them all where it says `GLOSSARY_MARKER`.

A term's forms are the strings that get the hover: the word itself, or those an entry lists as a third item
(`en: [guard, definition, [guard, guards]]`). A word spelt like a verb (the noun "guarda", the verb "guarda") says
`noun` instead: its forms are the word and its plural after a determiner (`la guarda`, `cada guarda`,
`las guardas`), never the bare word.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from hood import interface

GLOSSARY_FILE = "glossary.yml"
GLOSSARY_MARKER = "<!-- glossary -->"
"""Where the glossary page shows its table."""


SINGULAR_DETERMINERS = ("el", "la", "un", "una", "del", "al", "cada", "este", "esta", "ese", "esa", "su", "otro",
                        "otra", "ningún", "ninguna", "primer", "primera", "nuevo", "nueva", "mismo", "misma")
PLURAL_DETERMINERS = ("los", "las", "unos", "unas", "estos", "estas", "esos", "esas", "sus", "otros", "otras", "dos",
                      "tres", "cuatro", "cinco", "varios", "varias", "cuántos", "cuántas")
"""The Spanish words after which a one-word term is the noun (`la guarda`, `las guardas`), never a verb (`el nodo
guarda`): each with the number it agrees with, since `los guarda` and `qué guarda` are a verb after a pronoun."""


@dataclass(frozen=True)
class Term:
    """One term in one language: the word as the pages write it, a one-sentence definition, and the forms of the
    word that get the hover (the word itself when empty)."""

    word: str
    definition: str
    forms: tuple[str, ...] = ()

    @property
    def marked(self) -> tuple[str, ...]:
        """The strings that get this term's hover."""
        return self.forms or (self.word,)


def spanish_plural(word: str) -> str:
    """The plural of a Spanish noun: `guarda` → `guardas`, `fusión` → `fusiones`, `particionador` → `…dores`."""
    if word[-1] in "aeiouáéó":
        return word + "s"
    if word.endswith("ión"):
        return word[:-3] + "iones"
    return word + "es"


def noun_forms(word: str) -> tuple[str, ...]:
    """A one-word Spanish term after each determiner of its number, capitalised too (a sentence's start)."""
    forms = []
    for determiners, noun in ((SINGULAR_DETERMINERS, word), (PLURAL_DETERMINERS, spanish_plural(word))):
        for determiner in determiners:
            forms += [f"{determiner} {noun}", f"{determiner.capitalize()} {noun}"]
    return tuple(forms)


class GlossaryError(ValueError):
    """A glossary entry that lacks a language or has an empty word or definition."""


def load(path: Path, languages: list[str]) -> dict[str, list[Term]]:
    """The terms of each language, in the file's order; every entry must have every language."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    terms: dict[str, list[Term]] = {language: [] for language in languages}
    for number, entry in enumerate(entries, start=1):
        for language in languages:
            word, definition, forms = _triple(entry, language)
            if not word or not definition:
                raise GlossaryError(f"{path.name}, entry {number}: give `{language}: [word, definition]`")
            if forms == ["noun"]:
                forms = noun_forms(str(word))
            terms[language].append(Term(str(word), " ".join(str(definition).split()), tuple(forms or ())))
    return terms


def _triple(entry: dict, language: str) -> tuple[str | None, str | None, list[str] | None]:
    value = entry.get(language)
    if isinstance(value, list) and len(value) in (2, 3):
        forms = value[2] if len(value) == 3 else None
        return value[0], value[1], ([forms] if isinstance(forms, str) else forms)
    return None, None, None


def abbreviations(terms: list[Term]) -> str:
    """The `abbr` definitions of `terms`, to append to a page's Markdown."""
    return "\n\n" + "\n".join(f"*[{form}]: {term.definition}" for term in terms for form in term.marked) + "\n"


def table(terms: list[Term], language: str) -> str:
    """The glossary as a Markdown table in `language`, in alphabetical order."""
    headers = interface.words(language, "glossary")
    term, meaning = headers["term"], headers["meaning"]
    rows = [f"| {t.word} | {t.definition} |" for t in sorted(terms, key=lambda t: t.word.casefold())]
    return "\n".join([f"| {term} | {meaning} |", "|---|---|", *rows])


def with_glossary(markdown: str, terms: list[Term], language: str) -> str:
    """A page's Markdown with the glossary's hover definitions appended (and its table where the marker is)."""
    if not terms:
        return markdown
    return markdown.replace(GLOSSARY_MARKER, table(terms, language)) + abbreviations(terms)
