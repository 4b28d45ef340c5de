"""Eager versus compiled timings: the numbers, a sentence chosen from them, and an inline SVG bar chart.

Timings are measurements, never traces: pages show them in blocks with `trace="off"`. What tests can
check is the logic: which sentence a set of numbers selects, and that the chart is valid SVG. Words are printed
in both languages with `words` (the page shows its own): a page includes `hood/capture/common.py:body` and
`hood/capture/figure.py:body` first.
"""

from hood.capture.common import decimal, grouped, number, words
from hood.capture.figure import box, drawing, figure, text

# --8<-- [start:body]
import math
from dataclasses import dataclass
from html import escape

SAME_BAND = 0.05
"""Printed ratios from 0.95 to 1.05 are neither "faster" nor "slower": the sentences give the band as printed."""

@dataclass(frozen=True)
class Timing:
    """Median time of one call, eager and compiled, at one batch size.

    Attributes:
        batch: Rows in the input.
        eager_us: Eager median, microseconds per call.
        compiled_us: Compiled median, microseconds per call.
    """

    batch: int
    eager_us: float
    compiled_us: float

    @property
    def speedup(self) -> float:
        """Eager time over compiled time: above 1, the compiled head is faster."""
        return self.eager_us / self.compiled_us

    @property
    def ratio(self) -> float:
        """The speedup as printed, to two decimals: every sentence is chosen from the printed value."""
        return round(self.speedup, 2)


def verdict(row: Timing) -> str:
    """`faster`, `slower` or `same` for the compiled head at this batch size, read on the printed ratio."""
    if row.ratio > 1 + SAME_BAND:
        return "faster"
    if row.ratio < 1 - SAME_BAND:
        return "slower"
    return "same"


def _batches(rows: list[Timing], language: str) -> str:
    sizes = [str(r.batch) for r in rows]
    joined = sizes[0] if len(sizes) == 1 else ", ".join(sizes[:-1]) + {"en": " and ", "es": " y "}[language] + sizes[-1]
    return {"en": "batch " if len(sizes) == 1 else "batches ", "es": "el lote " if len(sizes) == 1 else "los lotes "}[
        language] + joined


def _trend(rows: list[Timing]) -> str:
    """How the printed ratios move as the batch grows: `up`, `down`, `flat` or `none` (neither)."""
    ratios = [r.ratio for r in rows]
    pairs = list(zip(ratios, ratios[1:]))
    if len(ratios) < 2:
        return "none"
    if all(b > a for a, b in pairs):
        return "up"
    if all(b < a for a, b in pairs):
        return "down"
    if all(b == a for a, b in pairs):
        return "flat"
    return "none"


def interpret(rows: list[Timing]) -> dict[str, str]:
    """Sentences per language (`en`, `es`) that state what the printed ratios show, and nothing they do not.

    Rows are read in order of batch size. Everything is read from the ratio as printed (two decimals): which
    batch sizes were faster, slower or had a ratio from 0.95 to 1.05, whether the ratio rose or fell at every step,
    and, when every batch size below some size was not faster and every one from it on was, that size. No sentence
    names a cause: the numbers cannot tell one apart.

    Raises:
        ValueError: when there are no rows, or two rows of the same batch size.
    """
    if not rows:
        raise ValueError("interpret() needs at least one timing")
    if len({r.batch for r in rows}) < len(rows):
        raise ValueError(f"interpret() needs one timing per batch size, got {[r.batch for r in rows]}")
    rows = sorted(rows, key=lambda r: r.batch)
    verdicts = [verdict(r) for r in rows]
    by_kind = {kind: [r for r, v in zip(rows, verdicts) if v == kind] for kind in ("faster", "slower", "same")}
    kinds = {v for v in verdicts}
    trend = _trend(rows)
    band = {lang: f"{number(1 - SAME_BAND, '.2f', lang)} {'to' if lang == 'en' else 'y'} "
                  f"{number(1 + SAME_BAND, '.2f', lang)}" for lang in ("en", "es")}
    text = {}
    for lang in ("en", "es"):
        parts = []
        if kinds == {"faster"} and len(rows) > 1:
            parts.append({"en": "The compiled head was faster at every batch size measured.",
                          "es": "La cabeza compilada fue más rápida en todos los tamaños de lote medidos."}[lang])
        elif kinds == {"slower"} and len(rows) > 1:
            parts.append({"en": "The compiled head was slower at every batch size measured.",
                          "es": "La cabeza compilada fue más lenta en todos los tamaños de lote medidos."}[lang])
        elif kinds == {"same"} and len(rows) > 1:
            parts.append({"en": f"At every batch size measured the ratio was from {band['en']}.",
                          "es": f"En todos los tamaños de lote medidos la razón estuvo entre {band['es']}."}[lang])
        else:
            said = [f"{en if lang == 'en' else es} {_batches(by_kind[kind], lang)}"
                    for kind, en, es in (("faster", "faster at", "más rápida con"),
                                         ("slower", "slower at", "más lenta con")) if by_kind[kind]]
            if said:
                parts.append({"en": "The compiled head was ", "es": "La cabeza compilada fue "}[lang]
                             + ", ".join(said) + ".")
            if by_kind["same"]:
                batches = _batches(by_kind["same"], lang)
                parts.append({"en": f"At {batches} the ratio was from {band['en']}.",
                              "es": f"Con {batches} la razón estuvo entre {band['es']}."}[lang])
            first = next((i for i, v in enumerate(verdicts) if v == "faster"), None)
            if first and all(v == "faster" for v in verdicts[first:]):
                n = rows[first].batch
                parts.append({"en": f"The compiled head was faster from batch {n} on, and not below it (compile "
                                    "time not counted).",
                              "es": f"La cabeza compilada fue más rápida a partir del lote {n}, y no por debajo (sin "
                                    "contar el tiempo de compilar)."}[lang])
        if len(rows) > 1:
            lo, hi = number(rows[0].ratio, ".2f", lang), number(rows[-1].ratio, ".2f", lang)
            parts.append({
                "up": {"en": f"The ratio rose at every step, from {lo} to {hi}, as the batch grew.",
                       "es": f"La razón subió en cada paso, de {lo} a {hi}, al crecer el lote."},
                "down": {"en": f"The ratio fell at every step, from {lo} to {hi}, as the batch grew.",
                         "es": f"La razón bajó en cada paso, de {lo} a {hi}, al crecer el lote."},
                "flat": {"en": f"The ratio was {lo} at every batch size.",
                         "es": f"La razón fue {lo} en todos los tamaños de lote."},
                "none": {"en": "The ratio did not move the same way at every step as the batch grew.",
                         "es": "La razón no se movió en el mismo sentido en cada paso al crecer el lote."},
            }[trend][lang])
        ratios = "; ".join(f"{_batches([r], lang).removeprefix('el ')}: {number(r.ratio, '.2f', lang)}" for r in rows)
        parts.insert(0, {"en": f"Eager time over compiled time (the ratio): {ratios}.",
                         "es": f"Tiempo eager entre tiempo compilado (la razón): {ratios}."}[lang])
        text[lang] = " ".join(parts)
    return text


def render_table(rows: list[Timing]) -> str:
    """The numbers as a Markdown table, in every language (`words`: decimal commas in Spanish)."""
    lines = [words(en="| batch | eager (µs) | compiled (µs) | eager / compiled |",
                   es="| lote | eager (µs) | compilado (µs) | eager / compilado |"), "| ---: | ---: | ---: | ---: |"]
    lines += [f"| {r.batch} | {decimal(r.eager_us, '.1f')} | {decimal(r.compiled_us, '.1f')} | "
              f"{decimal(r.ratio, '.2f')} |" for r in rows]
    return "\n".join(lines)


TITLE = words(en="Eager versus compiled, microseconds per call (log scale)",
              es="Eager frente a compilado, microsegundos por llamada (escala logarítmica)")

SERIES = (("eager", "c1"), (words(en="compiled", es="compilado"), "accent"))
"""Each bar series: its name, in every language (the legend and the tooltips say the same), and its colour class."""


def _value(us: float) -> str:
    return decimal(us, ".0f" if us >= 100 else ".1f")


def _tick(decade: float) -> str:
    """An axis label, a power of ten, in the page's number format: 0,1 and 10 000 in Spanish."""
    return grouped(int(decade)) if decade >= 1 else decimal(decade, "g")


def bar_chart_svg(rows: list[Timing], title: str = TITLE) -> str:
    """Grouped bars, eager and compiled per batch size, on a log-scale axis; inline SVG, no script."""
    width, height, left, bottom, top, right = 410, 288, 52, 60, 32, 8
    plot_h = height - bottom - top
    values = [v for r in rows for v in (r.eager_us, r.compiled_us)]
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))
    span = math.log10(hi) - math.log10(lo) or 1.0

    def y(value: float) -> float:
        return top + plot_h * (1 - (math.log10(value) - math.log10(lo)) / span)

    group = (width - left - right) / max(len(rows), 1)
    bar = min(group / 2.6, 48)
    parts = [text(left - 8, top - 14, "µs", "small", "end")]
    decade = lo
    while decade <= hi * 1.0001:
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(decade):.1f}" y2="{y(decade):.1f}" '
                     'stroke-opacity="0.25"/>' + text(left - 6, y(decade) + 4, _tick(decade), "small", "end"))
        decade *= 10
    for i, r in enumerate(rows):
        x0 = left + i * group + (group - 2 * bar) / 2
        for j, ((word, css), value) in enumerate(zip(SERIES, (r.eager_us, r.compiled_us))):
            x = x0 + j * bar
            parts.append(box(x, y(value), bar - 4, height - bottom - y(value), css,
                             f"{word}, {batch(r.batch)}: {_value(value)} µs")
                         + text(x + (bar - 4) / 2, y(value) - 4, _value(value), "small"))
        parts.append(text(x0 + bar - 2, height - bottom + 18, batch(r.batch), "detail"))
    legend_y = height - 18
    for j, (name, css) in enumerate(SERIES):
        x = left + j * 110
        parts.append(box(x, legend_y - 11, 12, 12, css) + text(x + 18, legend_y, name, "small", "start"))
    return drawing(width, height, title, "".join(parts))


def batch(size: int) -> str:
    """A batch size's label, in every language."""
    return words(en=f"batch {size}", es=f"lote {size}")


def render_html(rows: list[Timing]) -> str:
    """The chart as a figure (its data: the numbers drawn), then the sentence the numbers chose, in every language."""
    data = "\n".join(words(en=f"batch {r.batch}: eager {number(r.eager_us, '.1f', 'en')} µs, compiled "
                              f"{number(r.compiled_us, '.1f', 'en')} µs",
                           es=f"lote {r.batch}: eager {number(r.eager_us, '.1f', 'es')} µs, compilado "
                              f"{number(r.compiled_us, '.1f', 'es')} µs") for r in rows)
    caption = words(en="Median microseconds per call at each batch size, on one thread; the scale is logarithmic.",
                    es="Mediana de microsegundos por llamada con cada tamaño de lote, en un hilo; la escala es "
                       "logarítmica.")
    sentence = escape(words(**interpret(rows)))
    return f'<div class="hood-timing">{figure(bar_chart_svg(rows), data, caption)}<p>{sentence}</p></div>'
# --8<-- [end:body]
