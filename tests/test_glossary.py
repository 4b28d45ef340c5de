"""The glossary: every term in both languages, a hover definition on the pages, a table on its page."""

import re

import pytest

from hood import glossary
from tests.sitekit import ROOT

LANGUAGES = ["en", "es"]
TERMS = glossary.load(ROOT / glossary.GLOSSARY_FILE, LANGUAGES)


def test_every_entry_has_both_languages_and_the_glossary_has_about_forty_terms():
    assert len(TERMS["en"]) == len(TERMS["es"]) >= 40
    for language in LANGUAGES:
        words = [term.word for term in TERMS[language]]
        assert len(set(words)) == len(words), language


def test_an_entry_missing_a_language_names_its_number(tmp_path):
    path = tmp_path / "glossary.yml"
    path.write_text("- en: [guard, A check.]\n  es: [guarda, Una comprobación.]\n- en: [graph break, A split.]\n")
    with pytest.raises(glossary.GlossaryError, match="entry 2: give `es: "):
        glossary.load(path, LANGUAGES)


def test_a_page_gets_the_hover_definitions_and_the_glossary_page_its_table():
    terms = [glossary.Term("guard", "A check."), glossary.Term("bucket", "A group.")]
    page = glossary.with_glossary("# Title\n\n<!-- glossary -->\n", terms, "es")
    assert "| Término | Significado |\n|---|---|\n| bucket | A group. |\n| guard | A check. |" in page
    assert page.endswith("*[guard]: A check.\n*[bucket]: A group.\n")


def test_a_word_spelt_like_a_verb_gets_its_hover_only_as_a_noun():
    """"Cada nodo guarda además…" is the verb; "la guarda falla" and "cada guarda" are the Dynamo guard."""
    import markdown

    term = next(t for t in TERMS["es"] if t.word == "guarda")
    text = ("Cada nodo guarda además lo que necesita. La guarda falla; cada guarda es una condición y las guardas "
            "se comprueban. Lo guarda el forward. ¿Qué guarda cada rank? Los guarda un nn.Linear.")
    html = markdown.markdown(glossary.with_glossary(text, [term], "es"), extensions=["abbr"])
    marked = re.findall(r"<abbr[^>]*>([^<]+)</abbr>", html)
    assert marked == ["La guarda", "cada guarda", "las guardas"]


def test_an_entry_can_list_its_forms_or_ask_for_the_noun_only(tmp_path):
    path = tmp_path / "glossary.yml"
    path.write_text("- en: [guard, A check., [guard, guards]]\n  es: [guarda, Una comprobación., noun]\n")
    terms = glossary.load(path, LANGUAGES)
    assert terms["en"][0].marked == ("guard", "guards")
    assert "la guarda" in terms["es"][0].marked and "guarda" not in terms["es"][0].marked
    assert "las guardas" in terms["es"][0].marked and glossary.spanish_plural("fusión") == "fusiones"


def _pages(site, language):
    for page in site.rglob("index.html"):
        parts = page.relative_to(site).parts
        if (parts[0] == "es") == (language == "es") and "glossary" not in parts:
            yield page


@pytest.mark.site
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_glossary_terms_appear_as_abbr_on_the_pages(site_build, language):
    marked: set[str] = set()
    for page in _pages(site_build.site, language):
        marked |= {" ".join(text.split())  # a term the source breaks over two lines is marked whole
                   for text in re.findall(r'<abbr title="[^"]+">([^<]+)</abbr>', page.read_text(encoding="utf-8"))}
    words = {term.word for term in TERMS[language]}
    hovered = {term.word for term in TERMS[language] if marked & set(term.marked)}
    assert len(hovered) >= 25, sorted(words - hovered)
    forms = {form for term in TERMS[language] for form in term.marked}
    assert marked <= forms, sorted(marked - forms)  # a hover lands only on a form its entry defines
    table = site_build.page(("es/" if language == "es" else "") + "reference/glossary/index.html")
    glossary_table = table[:table.index("</table>")]  # the Spanish vocabulary table follows it
    assert glossary_table.count("<tr>") == len(words) + 1


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_page_splits_a_glossary_term_with_emphasis(language):
    """"conjunto de *inclusión*" reads as the term but gets no hover: the emphasis cuts it in two."""
    from tests.test_translation_structure import DOCS

    split = []
    for page in sorted((DOCS / language).rglob("*.md")):
        text = re.sub(r"```.*?```|`[^`\n]+`", " ", page.read_text(encoding="utf-8"), flags=re.DOTALL)
        plain = re.sub(r"\*+", "", text)
        for term in TERMS[language]:
            for form in (f for f in term.marked if " " in f):
                pattern = re.compile(r"(?<!\w)" + re.escape(form) + r"(?!\w)")
                if len(pattern.findall(plain)) > len(pattern.findall(text)):
                    split.append(f"{page.relative_to(DOCS)}: {form}")
    assert split == []
