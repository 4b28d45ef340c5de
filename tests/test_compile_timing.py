"""`hood.capture.compile_timing`: which sentence the numbers choose, and a valid chart (never the timings)."""

import xml.etree.ElementTree as ET

from hood.capture.common import localize
from hood.capture.compile_timing import Timing, bar_chart_svg, interpret, render_html, render_table, verdict
from hood.capture.figure import figure_data, without_data

SVG = "{http://www.w3.org/2000/svg}"


def rows(*triples):
    return [Timing(*t) for t in triples]


def test_verdict_uses_a_five_percent_band():
    assert verdict(Timing(2, 100, 90)) == "faster"
    assert verdict(Timing(2, 100, 110)) == "slower"
    assert verdict(Timing(2, 100, 103)) == "same"


def test_every_case_chooses_its_sentence_in_both_languages():
    cases = {
        "faster at every batch size": rows((2, 40, 30), (64, 160, 120), (256, 500, 400)),
        "whatever the batch: a fixed cost": rows((2, 40, 60), (64, 160, 185), (256, 500, 530)),
        "the gap grows with the batch": rows((2, 40, 60), (64, 160, 300), (256, 500, 900)),
        "nor grows steadily": rows((2, 40, 140), (64, 160, 200), (256, 500, 560)),  # gaps 100, 40, 60
        "within 5 %": rows((2, 40, 41), (64, 160, 158), (256, 500, 505)),
        "paid off only from batch 64": rows((2, 40, 60), (64, 160, 120), (256, 500, 400)),
        "mixed": rows((2, 40, 30), (64, 160, 200), (256, 500, 400)),
    }
    seen = set()
    for phrase, case in cases.items():
        text = interpret(case)
        assert phrase in text["en"], (phrase, text["en"])
        assert text["es"] and text["es"] != text["en"]
        assert "256: " in text["en"] and "lote 256: " in text["es"]
        seen.add(text["en"].split(".")[0])
    assert len(seen) == len(cases)


def test_sentence_quotes_the_measured_gap():
    text = interpret(rows((2, 40, 63), (64, 160, 300), (256, 500, 900)))["en"]
    assert "from 23 µs at batch 2 to 400 µs at batch 256" in text


def test_chart_is_valid_svg_with_two_bars_per_batch():
    data = rows((2, 25.1, 47.9), (64, 122.7, 166.7), (256, 418.8, 500.2))
    root = ET.fromstring(localize(bar_chart_svg(data), "en"))
    bars = [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert len(bars) == 6
    heights = [float(r.get("height")) for r in bars]
    assert heights[0] < heights[1] < heights[5]  # log scale, still monotonic
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert "batch 256" in labels and "47.9" in labels and "500" in labels
    assert [r.get("class") for r in bars] == ["c1", "accent"] * 3
    assert bars[1].find(f"{SVG}title").text == "compiled, batch 2: 47.9 µs"


def test_every_word_of_the_chart_is_in_the_page_language():
    data = rows((2, 25.1, 47.9), (64, 122.7, 166.7))
    spanish = ET.fromstring(localize(bar_chart_svg(data), "es"))
    tips = [r.find(f"{SVG}title").text for r in spanish.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
    assert tips == ["eager, lote 2: 25.1 µs", "compilado, lote 2: 47.9 µs", "eager, lote 64: 123 µs",
                    "compilado, lote 64: 167 µs"]
    words_drawn = " ".join(t.text for t in spanish.iter(f"{SVG}text"))
    assert "batch" not in words_drawn and "lote 64" in words_drawn
    assert spanish.find(f"{SVG}title").text.startswith("Eager frente a compilado")


def test_html_carries_both_languages_and_the_table_the_numbers():
    data = rows((2, 25.0, 50.0), (64, 100.0, 150.0))
    html = render_html(data)
    english, spanish = localize(html, "en"), localize(html, "es")
    assert "The compiled head was slower" in english and "batch 2" in english and "Eager versus compiled" in english
    assert "La cabeza compilada fue más lenta" in spanish and "lote 2" in spanish
    assert "Eager frente a compilado" in spanish
    assert "slower" not in without_data(spanish) and "batch" not in without_data(spanish)
    assert render_table(data).splitlines()[2] == "| 2 | 25.0 | 50.0 | 0.50 |"


def test_the_chart_is_a_figure_whose_data_are_the_numbers_drawn():
    html = render_html(rows((2, 25.0, 50.0), (64, 100.0, 150.0)))
    assert '<figure class="hood-figure">' in html and "<figcaption>" in html
    kept = figure_data(html)
    assert "batch 2: eager 25.0 µs, compiled 50.0 µs" in kept and "batch 64: eager 100.0 µs, compiled 150.0 µs" in kept
    assert "<svg" not in kept
