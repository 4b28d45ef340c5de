"""Draw what each rank of a run held (parameters and gradients, whole or a shard) and what the gloo calls moved.

The drawing reads the results the ranks returned: `holdings` and `gloo_calls` of `snippets.distributed.observe`,
under the keys `said` gives them.
"""

from hood.capture.common import grouped, words
from hood.capture.figure import arrow, box, drawing, figure, text
from snippets.distributed.observe import said

# --8<-- [start:body]
import re
from dataclasses import dataclass

PATTERNS = {"ddp": words(en="DDP", es="DDP"), "fsdp": words(en="FSDP2", es="FSDP2"),
            "tp": words(en="tensor parallel", es="paralelismo tensorial"),
            "pp": words(en="pipeline parallel", es="paralelismo de pipeline")}
"""The four patterns of the page, by the short name the figures use."""

REGIONS = {
    "gloo calls while wrapping": (said("gloo calls while wrapping (bytes each)"),
                                  words(en="while wrapping: DDP(model)", es="al envolver: DDP(model)")),
    "gloo calls in forward + backward": (said("gloo calls in forward + backward (bytes each)"),
                                         words(en="forward + backward", es="forward + backward")),
    "forward": (said("{}, gloo runs (bytes each)", "forward"), words(en="forward", es="forward")),
    "backward": (said("{}, gloo runs (bytes each)", "backward"), words(en="backward", es="backward")),
    "step 2": (said("step {}, gloo runs (bytes each)", 2),
               words(en="step 2, forward + backward", es="paso 2, forward + backward")),
}
"""The regions whose gloo calls a figure draws, by name: the key of their calls in a rank's result, and their title
(step 1 of the pipeline, which also exchanges metadata, is left out)."""


@dataclass(frozen=True)
class Held:
    """What a rank holds of one tensor: its placement (`whole` for a plain tensor), local shape and whole shape."""

    name: str
    placement: str
    local: tuple
    whole: tuple


_DESCRIBED = re.compile(r"(?:DTensor \((?P<placement>.*?),?\)|Tensor), local \((?P<local>[\d, ]*)\) "
                        r"\S+ \((?P<whole>[\d, ]*)\)")  # "of" in every language: a words() marker, or one word


def _shape(digits):
    return tuple(int(d) for d in digits.replace(",", " ").split())


def held(name, description):
    """`describe`'s text (`DTensor (Shard(dim=0),), local (300, 64) of (600, 64)`) as a `Held`."""
    m = _DESCRIBED.fullmatch(description)
    return Held(name, m["placement"] or "whole", _shape(m["local"]), _shape(m["whole"]))


def holdings_of(result):
    """The parameters a rank's result describes, by name, each as (parameter, gradient)."""
    return {k: (held(k, v), held(f"{k}.grad", result[f"{k}.grad"])) for k, v in result.items()
            if f"{k}.grad" in result}


@dataclass(frozen=True)
class Transfer:
    """One gloo call in a region: the bytes of the tensor it was handed, and from which rank to which (-1: all)."""

    region: str
    call: str
    nbytes: int
    src: int
    dst: int


def transfers(results):
    """The gloo calls of the `REGIONS` of a two-rank run: a collective once, each rank's sends, rank 0's broadcasts."""
    found, named = [], {key: region for region, (key, _) in REGIONS.items()}
    for key in results[0]:
        region = named.get(key)
        if region is None:
            continue
        for rank, result in enumerate(results):
            for call, sizes in result[key].items():
                if call == "gloo:send":
                    found += [Transfer(region, call, n, rank, 1 - rank) for n in sizes]
                elif call == "gloo:broadcast" and rank == 0:  # DDP broadcasts from rank 0
                    found += [Transfer(region, call, n, 0, 1) for n in sizes]
                elif call not in ("gloo:recv", "gloo:broadcast") and rank == 0:  # a collective: both ranks ran it
                    found += [Transfer(region, call, n, -1, -1) for n in sizes]
    return found


COL_W, GLYPH, BAR, GAP, MARGIN = 190, 56, 10, 4, 16
PAIR_W = GLYPH + GAP + BAR
WIDTH = 2 * COL_W + 3 * MARGIN
COLUMNS = (MARGIN, 2 * MARGIN + COL_W)


def _glyph(x, y, h, rank, css):
    """A weight (a square) or a bias (a bar along its rows), with the part `rank` holds filled, the rest dashed.

    `Shard(dim=d)` gives rank r the r-th of the equal chunks along dimension d.
    """
    w = GLYPH if len(h.whole) == 2 else BAR
    parts = [box(x, y, w, GLYPH, "muted")]
    if h.placement.startswith("Shard(dim=0)"):
        part = GLYPH * h.local[0] / h.whole[0]
        parts.append(box(x, y + rank * part, w, part, css))
    elif h.placement.startswith("Shard(dim=1)"):
        part = w * h.local[1] / h.whole[1]
        parts.append(box(x + rank * part, y, part, GLYPH, css))
    else:  # whole, or Replicate(): every rank holds all of it
        parts.append(box(x, y, w, GLYPH, css))
    return "".join(parts)


def _pair(x, y, weight, bias, rank, css):
    """A layer's weight and bias (or their gradients) on one rank, with their local shapes; absent: dashed."""
    if weight is None:
        return (box(x, y, GLYPH, GLYPH, "muted") + box(x + GLYPH + GAP, y, BAR, GLYPH, "muted")
                + text(x + PAIR_W / 2, y + GLYPH + 16, "-", "small"))
    return (_glyph(x, y, weight, rank, css) + _glyph(x + GLYPH + GAP, y, bias, rank, css)
            + text(x + PAIR_W / 2, y + GLYPH + 16, str(weight.local), "small")
            + text(x + PAIR_W / 2, y + GLYPH + 30, str(bias.local), "small"))


def _link(x1, x2, y, label, both):
    """An arrow between the two rank columns (both ways for a collective), its label above it."""
    line = arrow(x1, y, x2, y, "strong")
    if both:
        line = line.replace("/>", ' marker-start="url(#arrow)"/>')
    return line + text((x1 + x2) / 2, y - 7, label, "small")


def _legend(y):
    legend = [(words(en="parameter", es="parámetro"), "c1"), (words(en="gradient", es="gradiente"), "c2"),
              (words(en="not held", es="no lo guarda"), "muted")]
    return "".join(box(MARGIN + i * 128, y, 12, 12, css) + text(MARGIN + i * 128 + 17, y + 10, label, "small", "start")
                   for i, (label, css) in enumerate(legend))


def _held(ranks, y):
    """The layers' rows: a layer's whole shapes, then per rank its parameters and their gradients."""
    parts, data = [], []
    for layer in dict.fromkeys(name.rpartition(".")[0] for mine in ranks for name in mine):
        weight, bias = (f"{layer}.{part}".lstrip(".") for part in ("weight", "bias"))
        w, b = (next(mine[n][0] for mine in ranks if n in mine) for n in (weight, bias))
        parts.append(text(WIDTH / 2, y + 14, f"{weight} {w.whole} · {bias} {b.whole}", "label"))
        for rank, (x, mine) in enumerate(zip(COLUMNS, ranks)):
            x += (COL_W - 2 * PAIR_W - 24) / 2
            for which, css, dx in ((0, "c1", 0), (1, "c2", PAIR_W + 24)):  # the parameters, then their gradients
                pw, pb = (mine[n][which] if n in mine else None for n in (weight, bias))
                parts.append(_pair(x + dx, y + 26, pw, pb, rank, css))
            for name in (weight, bias):
                p, g = mine.get(name, (None, None))
                data.append(f"rank {rank}: {name} {p.placement} {p.local} of {p.whole}, gradient {g.local}" if p
                            else f"rank {rank}: no {name}")
        y += 26 + GLYPH + 44
    return parts, data, y


def _moved(results, moved, y):
    """The regions' rows: a region's name (and what it asked for), then an arrow per gloo call."""
    parts, data, region = [], [], None
    for t in moved:
        if t.region != region:
            y += 12 if region else 0  # room under the previous region's last arrow
            region, asked = t.region, results[0].get(said("{} asks for", t.region))
            parts.append(f'<line x1="{MARGIN}" y1="{y:.1f}" x2="{WIDTH - MARGIN}" y2="{y:.1f}"/>')
            parts.append(text(MARGIN, y + 20, REGIONS[region][1], "label", "start"))
            if asked:
                parts.append(text(WIDTH - MARGIN, y + 20, words(en="asks for ", es="pide ") + ", ".join(asked),
                                  "small", "end"))
            y += 28
        y += 30
        x1, x2 = COLUMNS[0] + 30, COLUMNS[1] + COL_W - 30
        parts.append(_link(*((x2, x1) if t.src == 1 else (x1, x2)), y, f"{t.call} {grouped(t.nbytes)} B",
                           both=t.src == -1))
        data.append(f"{t.region}: {t.call} {t.nbytes} B, "
                    + ("every rank" if t.src == -1 else f"rank {t.src} to rank {t.dst}"))
    return parts, data, y


def draw_holdings(pattern, results):
    """Figure: what each rank holds of every parameter and gradient, then the gloo calls; returns that data."""
    ranks, moved = [holdings_of(result) for result in results], transfers(results)
    parts = [text(x + COL_W / 2, 22, f"rank {rank}", "heading") for rank, x in enumerate(COLUMNS)]
    parts.append(_legend(34))
    held_parts, held_data, y = _held(ranks, 62)
    moved_parts, moved_data, y = _moved(results, moved, y)
    title = words(en="What each rank holds, and what travels: ", es="Qué guarda cada rank y qué viaja: ")
    caption = words(en="Filled: the part of each tensor a rank holds. Arrows: the gloo calls of the run, each with the "
                       "bytes of the tensor a rank handed it.",
                    es="En color, la parte de cada tensor que guarda un rank. Flechas: las llamadas de gloo de la "
                       "ejecución, cada una con los bytes del tensor que le pasó un rank.")
    svg = drawing(WIDTH, y + 14, title + PATTERNS[pattern], "".join(parts + held_parts + moved_parts))
    print(figure(svg, "\n".join(held_data + moved_data), caption))
    return {"held": ranks, "moved": moved}
# --8<-- [end:body]
