"""Eager versus compiled timings: the numbers, a sentence chosen from them, and an inline SVG bar chart.

Timings are measurements, never traces: pages show them in blocks with `trace="off"`. What tests can
check is the logic: which sentence a set of numbers selects, and that the chart is valid SVG. Words are printed
in both languages with `words` (the page shows its own): a page includes `hood/capture/common.py:body` and
`hood/capture/figure.py:body` first.
"""

from hood.capture.common import words
from hood.capture.figure import box, drawing, figure, text

# --8<-- [start:body]
import math
from dataclasses import dataclass
from html import escape

SAME_BAND = 0.05
"""Ratios within 5 % of 1 count as "no measurable difference"."""


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


def verdict(row: Timing) -> str:
    """`faster`, `slower` or `same` for the compiled head at this batch size."""
    if row.speedup > 1 + SAME_BAND:
        return "faster"
    if row.speedup < 1 - SAME_BAND:
        return "slower"
    return "same"


def interpret(rows: list[Timing]) -> dict[str, str]:
    """One sentence per language (`en`, `es`) that reads the measured numbers; the numbers choose it.

    Rows must be sorted by batch size. When the compiled head is slower at every batch size, a gap (compiled
    minus eager) that stays within a factor of 2 across batch sizes reads as a fixed cost per call; a gap that
    grows beyond that, never shrinking from one batch size to the next, reads as slower arithmetic; any other
    gap is described without a trend.
    """
    verdicts = [verdict(r) for r in rows]
    kinds = set(verdicts)
    gaps = [r.compiled_us - r.eager_us for r in rows]
    small, large = rows[0], rows[-1]
    if kinds == {"faster"}:
        en = (f"The compiled head was faster at every batch size measured, {small.speedup:.2f}x at batch {small.batch} "
              f"and {large.speedup:.2f}x at batch {large.batch}.")
        es = (f"La cabeza compilada fue más rápida en todos los tamaños de lote medidos: {small.speedup:.2f}x con lote "
              f"{small.batch} y {large.speedup:.2f}x con lote {large.batch}.")
    elif kinds == {"slower"} and max(gaps) <= 2 * min(gaps):
        en = (f"The compiled head was slower at every batch size, by {min(gaps):.0f} to {max(gaps):.0f} µs per call "
              "whatever the batch: a fixed cost per call (guards, the wrapper, one more kernel launch), not slower "
              "arithmetic.")
        es = (f"La cabeza compilada fue más lenta en todos los tamaños de lote, entre {min(gaps):.0f} y "
              f"{max(gaps):.0f} µs por llamada sea cual sea el lote: un coste fijo por llamada (guardas, el wrapper, "
              "un lanzamiento de kernel más), no una aritmética más lenta.")
    elif kinds == {"slower"} and gaps == sorted(gaps):
        en = (f"The compiled head was slower at every batch size, and the gap grows with the batch, from "
              f"{gaps[0]:.0f} µs at batch {small.batch} to {gaps[-1]:.0f} µs at batch {large.batch}: besides a fixed "
              "cost per call, the generated code does the same work more slowly than eager's kernels on this machine.")
        es = (f"La cabeza compilada fue más lenta en todos los tamaños de lote, y la diferencia crece con el lote, de "
              f"{gaps[0]:.0f} µs con lote {small.batch} a {gaps[-1]:.0f} µs con lote {large.batch}: además de un "
              "coste fijo por llamada, el código generado hace el mismo trabajo más despacio que los kernels de eager "
              "en esta máquina.")
    elif kinds == {"slower"}:
        en = (f"The compiled head was slower at every batch size, by {min(gaps):.0f} to {max(gaps):.0f} µs per "
              "call, with a gap that neither stays within a factor of two nor grows steadily with the batch.")
        es = (f"La cabeza compilada fue más lenta en todos los tamaños de lote, entre {min(gaps):.0f} y "
              f"{max(gaps):.0f} µs por llamada, con una diferencia que ni se mantiene dentro de un factor de dos ni "
              "crece de forma regular con el lote.")
    elif kinds == {"same"}:
        en = "Eager and compiled were within 5 % of each other at every batch size: no measurable difference."
        es = "Eager y compilado quedaron a menos de un 5 % en todos los tamaños de lote: ninguna diferencia medible."
    else:
        first_gain = next(r.batch for r, v in zip(rows, verdicts) if v == "faster") if "faster" in kinds else None
        if first_gain is not None and all((v == "faster") == (r.batch >= first_gain) for r, v in zip(rows, verdicts)):
            en = (f"Compiling paid off only from batch {first_gain} on: below it, the fixed cost of a compiled call "
                  "outweighs what the fused kernel saves.")
            es = (f"Compilar solo compensó a partir del lote {first_gain}: por debajo, el coste fijo de una llamada "
                  "compilada pesa más que lo que ahorra el kernel fusionado.")
        else:
            en = ("The results were mixed, with no trend in batch size: at this scale the difference is mostly "
                  "noise and overhead.")
            es = ("Los resultados fueron mixtos, sin tendencia con el tamaño de lote: a esta escala la diferencia es "
                  "sobre todo ruido y sobrecoste.")
    ratios_en = "; ".join(f"batch {r.batch}: {r.speedup:.2f}" for r in rows)
    ratios_es = "; ".join(f"lote {r.batch}: {r.speedup:.2f}" for r in rows)
    return {"en": f"{en} Eager time over compiled time: {ratios_en}.",
            "es": f"{es} Tiempo eager entre tiempo compilado: {ratios_es}."}


def render_table(rows: list[Timing]) -> str:
    """The numbers as a Markdown table."""
    lines = ["| batch | eager (µs) | compiled (µs) | eager / compiled |", "| ---: | ---: | ---: | ---: |"]
    lines += [f"| {r.batch} | {r.eager_us:.1f} | {r.compiled_us:.1f} | {r.speedup:.2f} |" for r in rows]
    return "\n".join(lines)


TITLE = words(en="Eager versus compiled, microseconds per call (log scale)",
              es="Eager frente a compilado, microsegundos por llamada (escala logarítmica)")

SERIES = (("eager", "c1", "eager"), ("torch.compile", "accent", words(en="compiled", es="compilado")))
"""Each bar series: its legend (a name, in every language), its colour class and the word its tooltips use."""


def _value(us: float) -> str:
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


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
                     'stroke-opacity="0.25"/>' + text(left - 6, y(decade) + 4, f"{decade:g}", "small", "end"))
        decade *= 10
    for i, r in enumerate(rows):
        x0 = left + i * group + (group - 2 * bar) / 2
        for j, ((_, css, word), value) in enumerate(zip(SERIES, (r.eager_us, r.compiled_us))):
            x = x0 + j * bar
            parts.append(box(x, y(value), bar - 4, height - bottom - y(value), css,
                             f"{word}, {batch(r.batch)}: {_value(value)} µs")
                         + text(x + (bar - 4) / 2, y(value) - 4, _value(value), "small"))
        parts.append(text(x0 + bar - 2, height - bottom + 18, batch(r.batch), "detail"))
    legend_y = height - 18
    for j, (name, css, _) in enumerate(SERIES):
        x = left + j * 110
        parts.append(box(x, legend_y - 11, 12, 12, css) + text(x + 18, legend_y, name, "small", "start"))
    return drawing(width, height, title, "".join(parts))


def batch(size: int) -> str:
    """A batch size's label, in every language."""
    return words(en=f"batch {size}", es=f"lote {size}")


def render_html(rows: list[Timing]) -> str:
    """The chart as a figure (its data: the numbers drawn), then the sentence the numbers chose, in every language."""
    data = "\n".join(f"batch {r.batch}: eager {r.eager_us:.1f} µs, compiled {r.compiled_us:.1f} µs" for r in rows)
    caption = words(en="Median microseconds per call at each batch size, on one thread, measured while this site was "
                       "built; the scale is logarithmic.",
                    es="Mediana de microsegundos por llamada con cada tamaño de lote, en un hilo, medida durante la "
                       "construcción de este sitio; la escala es logarítmica.")
    sentence = escape(words(**interpret(rows)))
    return f'<div class="hood-timing">{figure(bar_chart_svg(rows), data, caption)}<p>{sentence}</p></div>'
# --8<-- [end:body]
