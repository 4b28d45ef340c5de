"""The search index a page fetches: one per language, holding what a reader searches for.

The theme writes one index for every language, with every code box and every output in it; each page of either
language fetched all of it. `per_language` splits it, and `searchable` keeps the words of prose, headings, tables
and inline names (operators and keys in `code` spans) while leaving out code boxes, outputs (`<pre>` blocks),
figures and markup. Sections of a reference page (`BRIEF`) keep their title and first paragraph: the names.
"""

from __future__ import annotations

import re

_UNSEARCHED = re.compile(r"<pre\b.*?</pre>|<svg\b.*?</svg>", re.DOTALL)
_BLOCK_TAG = re.compile(r"</?(?:p|li|ul|ol|dl|dt|dd|td|th|tr|table|h\d|div|br|blockquote|details|summary)\b[^>]*>")
_TAG = re.compile(r"<[^>]+>")

BRIEF = ("reference/api/",)
"""Pages whose sections are indexed by their first paragraph only (the API reference: names and summaries)."""


def searchable(text: str, *, brief: bool = False) -> str:
    """A section's indexed words: no code boxes, outputs, figures or tags; only its first paragraph if `brief`."""
    text = _UNSEARCHED.sub(" ", text)
    if brief:
        text = text.split("</p>", 1)[0]
    return re.sub(r"\s{2,}", " ", _TAG.sub("", _BLOCK_TAG.sub(" ", text))).strip()


def language_of(location: str, languages: list[str]) -> str:
    """The language of an index entry: its first path part, or the default language (the first)."""
    first = location.split("/", 1)[0]
    return first if first in languages[1:] else languages[0]


def per_language(index: dict, languages: list[str]) -> dict[str, dict]:
    """One index per language, each entry's location relative to that language's root, its text searchable."""
    split: dict[str, dict] = {}
    for language in languages:
        config = dict(index.get("config", {}), lang=[language])
        split[language] = {"config": config, "docs": []}
    for doc in index.get("docs", []):
        language = language_of(doc["location"], languages)
        location = doc["location"]
        if language != languages[0]:
            location = location[len(language) + 1:]
        text = searchable(doc.get("text", ""), brief=location.startswith(BRIEF))
        split[language]["docs"].append(dict(doc, location=location, text=text))
    return split


def language_root_base(page_html: str, language: str) -> str:
    """A page of a non-default language with its theme `base` moved to that language's root, where its index is."""
    return re.sub(r'("base": ")([^"]*)(")', lambda m: f"{m[1]}{m[2].rstrip('/')}/{language}/{m[3]}", page_html,
                  count=1)
