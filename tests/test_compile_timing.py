"""`hood.capture.compile_timing`: which sentence the numbers choose, and a valid chart (never the timings)."""

import itertools
import re
import xml.etree.ElementTree as ET

from hood.capture.common import decimal, localize
from hood.capture.compile_timing import (
    Timing, bar_chart_svg, interpret, number, render_html, render_table, verdict)
from hood.capture.figure import figure_data, without_data

SVG = "{http://www.w3.org/2000/svg}"


def rows(*triples):
    return [Timing(*t) for t in triples]


def test_verdict_reads_the_printed_ratio_with_a_five_percent_band():
    assert verdict(Timing(2, 100, 90)) == "faster"
    assert verdict(Timing(2, 100, 110)) == "slower"
    assert verdict(Timing(2, 100, 103)) == "same"
    assert verdict(Timing(2, 94.96, 100)) == "same"  # prints 0.95: inside the band as printed


def test_the_numbers_the_lab_printed_get_true_sentences():
    """0.21, 0.42, 0.95: two slower, one within the band; the ratio rises; no cause is named."""
    text = interpret(rows((2, 21, 100), (64, 42, 100), (256, 95, 100)))
    assert text["en"] == ("Eager time over compiled time (the ratio): batch 2: 0.21; batch 64: 0.42; batch 256: 0.95. "
                          "The compiled head was slower at batches 2 and 64. At batch 256 the ratio was from 0.95 to "
                          "1.05. The ratio rose at every step, from 0.21 to 0.95, as the batch grew.")
    assert text["es"].startswith("Tiempo eager entre tiempo compilado (la razón): lote 2: 0,21; lote 64: 0,42; "
                                 "lote 256: 0,95. La cabeza compilada fue más lenta con los lotes 2 y 64")


SENTENCE = re.compile(r"(?<=\.)\s+(?=[A-Z])")
FORBIDDEN = ("noise", "fixed cost", "launch", "mixed", "overhead", "kernel", "arithmetic", "only")


def _listed(phrase: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", phrase)]


def check_sentences(case: list[Timing], text: str) -> None:
    """Every sentence `interpret` printed (English) is true of the ratios it printed beside it."""
    printed = {int(b): float(r) for b, r in re.findall(r"batch (\d+): (\d+\.\d\d)", text)}
    assert printed == {r.batch: float(f"{r.speedup:.2f}") for r in case}
    ratios = [printed[r.batch] for r in case]
    kind = {r.batch: "faster" if printed[r.batch] > 1.05 else "slower" if printed[r.batch] < 0.95 else "same"
            for r in case}
    assert not any(word in text.lower() for word in FORBIDDEN), text
    for sentence in SENTENCE.split(text):
        if sentence.startswith("Eager time over compiled time (the ratio):"):
            continue
        if sentence == "The compiled head was faster at every batch size measured.":
            assert set(kind.values()) == {"faster"} and len(case) > 1
        elif sentence == "The compiled head was slower at every batch size measured.":
            assert set(kind.values()) == {"slower"} and len(case) > 1
        elif sentence == "At every batch size measured the ratio was from 0.95 to 1.05.":
            assert set(kind.values()) == {"same"} and len(case) > 1
        elif m := re.fullmatch(r"At (batch(?:es)? [\d, and]+) the ratio was from 0\.95 to 1\.05\.", sentence):
            assert {b for b in kind if kind[b] == "same"} == set(_listed(m[1]))
        elif sentence.startswith("The compiled head was ") and "from batch" not in sentence:
            clauses = sentence.removeprefix("The compiled head was ").rstrip(".")
            named = {}
            for clause in re.split(r", (?=faster|slower)", clauses):
                for batch in _listed(clause):
                    named[batch] = "faster" if clause.startswith("faster") else "slower"
            assert named == {b: k for b, k in kind.items() if k != "same"}, (sentence, ratios)
        elif m := re.fullmatch(r"The compiled head was faster from batch (\d+) on, and not below it \(compile time "
                               r"not counted\)\.", sentence):
            n = int(m[1])
            assert all((kind[b] == "faster") == (b >= n) for b in kind) and min(kind) < n
        elif m := re.fullmatch(r"The ratio rose at every step, from (\S+) to (\S+), as the batch grew\.", sentence):
            assert (all(b > a for a, b in zip(ratios, ratios[1:]))
                    and (float(m[1]), float(m[2])) == (ratios[0], ratios[-1]))
        elif m := re.fullmatch(r"The ratio fell at every step, from (\S+) to (\S+), as the batch grew\.", sentence):
            assert (all(b < a for a, b in zip(ratios, ratios[1:]))
                    and (float(m[1]), float(m[2])) == (ratios[0], ratios[-1]))
        elif m := re.fullmatch(r"The ratio was (\S+) at every batch size\.", sentence):
            assert set(ratios) == {float(m[1])}
        elif sentence == "The ratio did not move the same way at every step as the batch grew.":
            steps = {(b > a) - (b < a) for a, b in zip(ratios, ratios[1:])}
            assert len(steps) > 1, ratios
        else:
            raise AssertionError(f"a sentence no test reads: {sentence!r}")


GRID = (0.21, 0.42, 0.9449, 0.95, 0.96, 1.0, 1.04, 1.05, 1.0551, 1.2, 1.5)
"""Ratios on both sides of the band, on its edges as printed, inside it, and repeated (ties)."""


def test_every_sentence_is_true_of_the_numbers_printed_beside_it_for_every_ordering():
    cases = [[Timing(b, 100.0 * r, 100.0) for b, r in zip((2, 64, 256), ratios)]
             for n in (1, 2, 3) for ratios in itertools.product(GRID, repeat=n)]
    seen = set()
    for case in cases:
        text = interpret(case)
        check_sentences(case, text["en"])
        spanish = text["es"]
        assert not re.search(r"\d\.\d", spanish), spanish  # decimal comma
        assert re.findall(r"lote (\d+): (\d+,\d\d)", spanish) == [
            (str(r.batch), f"{r.speedup:.2f}".replace(".", ",")) for r in case]
        assert len(SENTENCE.split(spanish)) == len(SENTENCE.split(text["en"]))
        seen.add(tuple(s.split(" ")[3] for s in SENTENCE.split(text["en"])[1:]))
    assert len(seen) >= 6  # every kind of sentence was reached


def test_rows_are_read_in_order_of_batch_size_whatever_order_they_come_in():
    case = rows((256, 300.0, 200.0), (64, 100.0, 80.0), (2, 10.0, 20.0))
    text = interpret(case)["en"]
    assert "batch 2: 0.50; batch 64: 1.25; batch 256: 1.50" in text and "The ratio rose at every step" in text
    check_sentences(sorted(case, key=lambda r: r.batch), text)


def test_no_rows_or_a_repeated_batch_size_is_refused():
    for bad in ([], rows((64, 50.0, 60.0), (64, 50.0, 40.0))):
        try:
            interpret(bad)
        except ValueError as exc:
            assert "interpret()" in str(exc)
        else:
            raise AssertionError(f"{bad} was read")


def test_a_number_takes_the_decimal_mark_of_the_language():
    assert number(0.2149, ".2f", "en") == "0.21" and number(0.2149, ".2f", "es") == "0,21"
    assert number(16.52, ".1f", "es") == "16,5" and number(1234.0, ".0f", "es") == "1234"
    assert localize(decimal(1.2, ".1f") + "x", "es") == "1,2x"
    assert localize(decimal(1.2, ".1f") + "x", "en") == "1.2x"


def test_the_table_uses_the_decimal_mark_of_each_language():
    table = render_table(rows((2, 16.5, 20.0)))
    assert localize(table, "en").splitlines()[2] == "| 2 | 16.5 | 20.0 | 0.82 |"
    assert localize(table, "es").splitlines()[0] == "| lote | eager (µs) | compilado (µs) | eager / compilado |"
    assert localize(table, "es").splitlines()[2] == "| 2 | 16,5 | 20,0 | 0,82 |"


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
    assert tips == ["eager, lote 2: 25,1 µs", "compilado, lote 2: 47,9 µs", "eager, lote 64: 123 µs",
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
    assert localize(render_table(data), "en").splitlines()[2] == "| 2 | 25.0 | 50.0 | 0.50 |"
    assert "0,50" in spanish and "0.50" not in without_data(spanish)


def test_the_chart_is_a_figure_whose_data_are_the_numbers_drawn():
    html = render_html(rows((2, 25.0, 50.0), (64, 100.0, 150.0)))
    assert '<figure class="hood-figure">' in html and "<figcaption>" in html
    kept = localize(figure_data(html), "en")
    assert "lote 2: eager 25,0 µs, compilado 50,0 µs" in localize(figure_data(html), "es")
    assert "batch 2: eager 25.0 µs, compiled 50.0 µs" in kept and "batch 64: eager 100.0 µs, compiled 150.0 µs" in kept
    assert "<svg" not in kept


def test_the_legend_names_each_series_as_its_tooltips_do():
    data = rows((2, 25.1, 47.9))
    for language, compiled in (("en", "compiled"), ("es", "compilado")):
        root = ET.fromstring(localize(bar_chart_svg(data), language))
        tips = [r.find(f"{SVG}title").text for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]
        drawn = [t.text for t in root.iter(f"{SVG}text")]
        assert [tip.split(",")[0] for tip in tips] == ["eager", compiled]
        assert drawn[-2:] == ["eager", compiled]  # the legend, last
