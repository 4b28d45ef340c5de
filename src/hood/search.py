"""The search index a page fetches: one per language, holding what a reader searches for.

The theme writes one index for every language, with every code box and every output in it; each page of either
language fetched all of it. `per_language` splits it, and `searchable` keeps the words of prose, headings, tables
and inline names (operators and keys in `code` spans) while leaving out code boxes, outputs (`<pre>` blocks),
figures and markup. Sections of a reference page (`BRIEF`) keep their title and first paragraph: the names.

A page fetches its index only when the reader opens search (the theme override's `main.html`), so a first visit
fetches the page and the theme, not the index. Under `make serve`, a rebuild renders only the pages an edit
touched, and the theme writes an index of those pages alone: `merged` keeps every other page's entries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hood.engine.cache import write_atomically

_UNSEARCHED = re.compile(r"<pre\b.*?</pre>|<svg\b.*?</svg>", re.DOTALL)
_BLOCK_TAG = re.compile(r"</?(?:p|li|ul|ol|dl|dt|dd|td|th|tr|table|h\d|div|br|blockquote|details|summary)\b[^>]*>")
_TAG = re.compile(r"<[^>]+>")
_LABEL = re.compile(r"\s*<code>(?:module|class|instance)-attribute</code>|\s*<code>(?:dataclass|property|classmethod|"
                    r"staticmethod|abstractmethod|cached|writable|async)</code>")
"""The kind labels the API reference puts after a member's name: not what a reader searches for, and a title match
weighs a thousand times a text match (every attribute would come first for "class" or "instance")."""

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


def page_of(location: str) -> str:
    """The page an index entry belongs to: its location without the section anchor."""
    return location.split("#", 1)[0]


def per_language(index: dict, languages: list[str]) -> dict[str, dict]:
    """One index per language, each entry's location relative to that language's root, its text searchable.

    An entry the theme holds twice (the i18n plugin stacks each language's entries on those of the languages
    built before it) is kept once.
    """
    split: dict[str, dict] = {}
    for language in languages:
        config = dict(index.get("config", {}), lang=[language])
        split[language] = {"config": config, "docs": []}
    seen: set[tuple[str, str, str]] = set()
    for doc in index.get("docs", []):
        key = (doc["location"], doc.get("title", ""), doc.get("text", ""))
        if key in seen:
            continue
        seen.add(key)
        language = language_of(doc["location"], languages)
        location = doc["location"]
        if language != languages[0]:
            location = location[len(language) + 1:]
        text = searchable(doc.get("text", ""), brief=location.startswith(BRIEF))
        title = _LABEL.sub("", doc.get("title", ""))
        split[language]["docs"].append(dict(doc, location=location, title=title, text=text))
    return split


def merged(previous: dict, fresh: dict) -> dict:
    """`previous` index with the entries of every page `fresh` holds replaced by `fresh`'s (a partial rebuild).

    Pages keep their order; a page new in `fresh` comes last. The configuration is `fresh`'s.
    """
    pages: dict[str, list[dict]] = {}
    for doc in previous.get("docs", []):
        pages.setdefault(page_of(doc["location"]), []).append(doc)
    rendered: dict[str, list[dict]] = {}
    for doc in fresh.get("docs", []):
        rendered.setdefault(page_of(doc["location"]), []).append(doc)
    pages.update(rendered)
    return {"config": fresh.get("config", previous.get("config", {})),
            "docs": [doc for docs in pages.values() for doc in docs]}


def language_root_base(page_html: str, language: str) -> str:
    """A page of a non-default language with its theme `base` moved to that language's root, where its index is."""
    return re.sub(r'("base": ")([^"]*)(")', lambda m: f"{m[1]}{m[2].rstrip('/')}/{language}/{m[3]}", page_html,
                  count=1)


def split_site_index(site: Path, languages: list[str], previous: dict[str, dict]) -> dict[str, dict]:
    """Replace the theme's one index of every language with one index per language (`hood.search`); return them.

    A partial rebuild under serve gives the theme only the pages it rendered: their entries replace theirs in
    `previous` (the indexes the last build wrote), and every other page keeps its own.
    """
    index_file = site / "search" / "search_index.json"
    if not index_file.is_file():
        return previous
    written = {}
    for language, index in per_language(json.loads(index_file.read_text(encoding="utf-8")), languages).items():
        if language in previous:
            index = merged(previous[language], index)
        target = site / ("" if language == languages[0] else language) / "search" / "search_index.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, json.dumps(index, ensure_ascii=False, separators=(",", ":")))
        written[language] = index
    return written

