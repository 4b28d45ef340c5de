"""One search index per language, without code boxes, outputs or markup, and each language's pages fetch theirs."""

import json

import pytest

from hood import search

INDEX = {
    "config": {"lang": ["en", "es"], "separator": "[\\s\\-]+"},
    "docs": [
        {"location": "theory/01/#walk", "title": "Walk",
         "text": "<p>The walk shows <code>aten::addmm</code>.</p> <pre><code>y = walk()\n</code></pre>"},
        {"location": "es/theory/01/#walk", "title": "Recorrido",
         "text": "<p>El recorrido muestra <code>aten::addmm</code>.</p><svg><text>W</text></svg>"},
        {"location": "reference/api/#hood.maths", "title": "maths",
         "text": "<p>Maths at build time.</p><p>Long details.</p>"},
    ],
}


def test_each_language_gets_its_own_entries_relative_to_its_root_and_its_own_stemmer():
    split = search.per_language(INDEX, ["en", "es"])
    assert [d["location"] for d in split["en"]["docs"]] == ["theory/01/#walk", "reference/api/#hood.maths"]
    assert [d["location"] for d in split["es"]["docs"]] == ["theory/01/#walk"]
    assert split["es"]["config"] == {"lang": ["es"], "separator": "[\\s\\-]+"}


def test_the_text_keeps_prose_and_names_but_no_code_box_output_figure_or_markup():
    split = search.per_language(INDEX, ["en", "es"])
    assert split["en"]["docs"][0]["text"] == "The walk shows aten::addmm."
    assert split["es"]["docs"][0]["text"] == "El recorrido muestra aten::addmm."
    assert split["en"]["docs"][1]["text"] == "Maths at build time."  # a reference section keeps its summary


def test_a_page_of_another_language_looks_for_the_index_under_its_language():
    html = '<script id="__config" type="application/json">{"annotate": null, "base": "../../..", "x": 1}</script>'
    assert '"base": "../../../es/"' in search.language_root_base(html, "es")


@pytest.mark.site
def test_the_built_site_has_one_light_index_per_language(site_build):
    en = json.loads((site_build.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    es = json.loads((site_build.site / "es" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert en["config"]["lang"] == ["en"] and es["config"]["lang"] == ["es"]
    assert not [d for d in en["docs"] if d["location"].startswith("es/")]
    assert {d["location"].split("/")[0] for d in es["docs"]} >= {"theory", "labs"}
    for index in (en, es):
        texts = " ".join(d["text"] for d in index["docs"])
        assert "<pre" not in texts and "<code>" not in texts
        assert "AutogradCPU" in texts and "addmm" in texts  # key and operator names stay searchable
    assert '"base": "../../../es/"' in site_build.page("es/theory/01-dispatcher-and-aten/index.html")


@pytest.mark.site
def test_a_setup_block_is_offered_as_a_file_next_to_its_page(site_build):
    for prefix in ("", "es/"):
        html = site_build.page(f"{prefix}theory/01-dispatcher-and-aten/index.html")
        setup = (site_build.site / prefix / "theory" / "01-dispatcher-and-aten" / "setup.py").read_text()
        assert '<a href="setup.py" download>' in html
        assert "def running_example(" in setup and "def running_example(" not in html
        compile(setup, "setup.py", "exec")
