"""`hood.capture.figure`: what a page shows of a figure, and what its trace keeps."""

from hood.capture.common import localize, words
from hood.capture.figure import MIN_SCALE, drawing, figure, figure_data, without_data
from hood.engine.normalize import normalise


def sample() -> str:
    svg = drawing(400, 100, words(en="A title", es="Un título"), "<rect/>")
    return "before\n" + figure(svg, "a -> b\nsizes: 4 -- 8", words(en="A caption", es="Una leyenda")) + "\nafter\n"


def test_a_trace_keeps_the_data_and_not_the_drawing():
    kept = normalise(sample())
    assert kept == "before\n[figure]\na -> b\nsizes: 4 - - 8\nafter\n"
    assert "<svg" not in figure_data(sample())


def test_a_page_shows_the_drawing_and_caption_without_the_data():
    shown = localize(without_data(sample()), "es")
    assert "<svg" in shown and "Un título" in shown and "<figcaption>Una leyenda</figcaption>" in shown
    assert "a -> b" not in shown and "hood-figure-data" not in shown


def test_a_drawing_shrinks_only_so_far_then_scrolls():
    svg = drawing(400, 100, "t", "")
    assert f"--natural-width:{400 * MIN_SCALE:.0f}px" in svg and 'viewBox="0 0 400 100"' in svg
    assert 'role="img"' in svg and 'aria-label="t"' in svg
