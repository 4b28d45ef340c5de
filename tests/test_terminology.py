"""One Spanish vocabulary: the Spanish pages never use a rendering that `snippets/terminology_es.md` avoids.

The table holds, per English term, the one Spanish rendering the pages use and the renderings they avoid. Code
(fences and code spans) is left out of the check: it is identical in both languages. The table is shown to readers
on the build reference page of both languages.
"""

from __future__ import annotations

import re

import pytest

from tests.test_translation_structure import DOCS, PAGES, ROOT, page_text, structure

TABLE = ROOT / "snippets" / "terminology_es.md"
INCLUDE = '--8<-- "terminology_es.md:rows"'
REQUIRED = ("graph break", "fake tensor", "include set", "exclude set", "grad mode", "bucket", "bias", "fallthrough",
            "file", "command", "storage", "buffer", "lab", "build", "forward", "register", "record", "log",
            "redispatch", "schedule", "math kernel", "gradient arriving", "logging mode", "running example",
            "version counter", "within")
# Thousands are grouped with a no-break space (85 848), never with a dot or a comma, nor a space a line may break.
NUMBER_FORMAT = re.compile(r"(?<![\w.,])\d{1,3}(?:[.,]\d{3})+(?![\w.,])|(?<![\w.,])\d{1,3}(?: \d{3})+(?![\w.,])")


def rows() -> list[tuple[str, str, list[str]]]:
    """(English term, Spanish rendering, avoided renderings) for every row of the table."""
    text = TABLE.read_text(encoding="utf-8")
    body = text.split("--8<-- [start:rows]", 1)[1].split("--8<-- [end:rows]", 1)[0]
    found = []
    for line in body.splitlines():
        if line.startswith("|"):
            english, spanish, avoided = (cell.strip() for cell in line.strip().strip("|").split("|"))
            found.append((english, spanish, re.findall(r"`([^`]+)`", avoided)))
    return found


def pattern(avoided: str) -> re.Pattern:
    """A rendering as a regular expression: whole words, any case, any spacing, `*` for any ending."""
    words = [re.escape(word).replace(r"\*", r"\w*") for word in avoided.split()]
    return re.compile(r"(?<!\w)" + r"[ \t\n]+".join(words) + r"(?!\w)", re.IGNORECASE)


def prose(page) -> str:
    """What a reader reads on a Spanish page, without code: fences, code spans, formulas, link targets and ids
    removed."""
    text = "\n".join(structure(page_text("es", page, skip=("terminology_es.md",))).prose)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    text = re.sub(r"(`+)(?!`)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$\$.*?\$\$|(?<![\w$])\$[^$\n]+\$(?![\w$])", " ", text, flags=re.DOTALL)  # formulas (arithmatex)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"<https?://[^>]+>", " ", text)
    text = re.sub(r"\{[ \t]*:?[ \t]*#[^}]*\}", " ", text)
    text = re.sub(r"^[ \t]*--8<--.*$", " ", text, flags=re.MULTILINE)
    text = text.replace("*", "")
    return re.sub(r"[ \t\n]+", " ", text)


def test_the_table_covers_the_terms_and_each_row_is_complete():
    table = rows()
    english = " / ".join(e for e, _, _ in table)
    assert all(term in english for term in REQUIRED), [t for t in REQUIRED if t not in english]
    for term, spanish, avoided in table:
        assert spanish and avoided, term
        clean = re.sub(r"`[^`]*`", "", spanish)
        assert not any(pattern(a).search(clean) for a in avoided), (term, spanish)


def test_both_glossary_pages_show_the_table():
    for language in ("en", "es"):
        assert INCLUDE in (DOCS / language / "reference" / "glossary.md").read_text(encoding="utf-8"), language


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_spanish_pages_use_no_avoided_rendering(page):
    text = prose(page)
    found = []
    for term, spanish, avoided in rows():
        for rendering in avoided:
            for match in pattern(rendering).finditer(text):
                context = text[max(0, match.start() - 40):match.end() + 40]
                found.append(f"{match.group(0)!r} ({term}: write {spanish!r}) in «…{context}…»")
    assert not found, f"docs/es/{page}:\n" + "\n".join(found)


@pytest.mark.parametrize("page", PAGES, ids=str)
def test_spanish_pages_group_thousands_with_a_no_break_space(page):
    text = prose(page)
    assert not NUMBER_FORMAT.findall(text), (page, NUMBER_FORMAT.findall(text))


def test_the_checks_see_what_they_should():
    assert pattern("registr* un nodo").search("autograd registró\nun nodo")
    assert not pattern("bias").search("biases")
    assert pattern("fichero*").search("los Ficheros")
    assert NUMBER_FORMAT.findall("85.848 y 171,696 y 38 400") == ["85.848", "171,696", "38 400"]
    assert not NUMBER_FORMAT.findall("85\u00a0848, torch 2.13.0, 1e-6, 127.0.0.1, 4.0 y (2, 600)")


def test_the_spanish_glossary_uses_no_avoided_rendering():
    """The hovers are read on every page: their definitions follow the same vocabulary as the pages."""
    import yaml

    entries = yaml.safe_load((ROOT / "glossary.yml").read_text(encoding="utf-8"))
    text = " ".join(entry["es"][1] for entry in entries)  # the definitions: a headword may be code (Shard)
    text = re.sub(r"\b\w+\([^)]*\)", " ", text)  # calls such as Shard(0) are code
    found = [f"{match.group(0)!r} ({term})" for term, _, avoided in rows() for rendering in avoided
             for match in pattern(rendering).finditer(text)]
    assert found == []


def test_the_sites_generated_spanish_uses_no_avoided_rendering():
    """The words the build writes into Spanish pages and downloads (interface, release notes) follow it too."""
    import yaml

    from hood import interface

    def strings(value):
        if isinstance(value, dict):
            return [s for item in value.values() for s in strings(item)]
        return [value] if isinstance(value, str) else []

    lens = ROOT / "traces" / "lens"
    notes = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(lens.glob("notes-*.yml"))]
    text = "\n".join(strings(interface.TABLES["es"]) + [note["es"] for by_block in notes for note in by_block.values()])
    found = [f"{match.group(0)!r} ({term})" for term, _, avoided in rows() for rendering in avoided
             for match in pattern(rendering).finditer(text)]
    assert found == []
