"""Theory 01: the walk of F.linear(x, W, b) drawn as a tree of calls against the keys each call went down."""

from hood.capture.common import key_names, widest, words
from hood.capture.figure import box, drawing, figure, text
from snippets.dispatcher.key_stack import SMALL_CHAR_W, by_priority, legend
from snippets.dispatcher.nesting import call_tree, nested_dispatch, render_tree
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F

TREE_ROW_H, TREE_INDENT, TREE_PAD, TREE_CHAR_W = 28, 16, 10, 7.8  # TREE_CHAR_W: a character of 13-px text
TREE_SERIES = ("c1", "c4", "c3", "c5", "c2")
"""Colour classes of the kernels, in the order the walk first meets them."""


def short(op: str) -> str:
    """`aten.transpose.int` -> `transpose.int`, `aten.t.default` -> `t`."""
    return op.removeprefix("aten.").removesuffix(".default")


def tree_svg(calls, title: str) -> str:
    """One row per call, indented under the call whose kernel made it; one column per key, highest first."""
    keys = key_names(by_priority({k for c in calls for k, _ in c.keys}))[::-1]
    kernels = list(dict.fromkeys(kernel for c in calls for _, kernel in c.keys))
    colour = dict(zip(kernels, TREE_SERIES))
    names_w = max(c.level * TREE_INDENT + TREE_CHAR_W * len(short(c.op)) for c in calls) + 10
    widths = [max(44, SMALL_CHAR_W * len(k) + 10) for k in keys]
    lefts = [TREE_PAD + names_w + sum(widths[:i]) for i in range(len(keys))]
    top = TREE_PAD + 24
    parts = [text(x + w / 2, TREE_PAD + 14, k, "small") for k, x, w in zip(keys, lefts, widths)]
    parent_rows: list[int] = []  # the row of the last call seen at each level
    for row, call in enumerate(calls):
        y = top + row * TREE_ROW_H
        del parent_rows[call.level:]
        if parent_rows:  # an elbow from the parent's row
            x0, y0 = TREE_PAD + (call.level - 1) * TREE_INDENT + 4, top + parent_rows[-1] * TREE_ROW_H + TREE_ROW_H - 6
            parts.append(f'<path class="edge" d="M {x0} {y0} V {y + TREE_ROW_H / 2} H {x0 + TREE_INDENT - 6}"/>')
        parent_rows.append(row)
        parts.append(text(TREE_PAD + call.level * TREE_INDENT, y + TREE_ROW_H / 2 + 5, short(call.op), "", "start"))
        for (key, kernel), number in zip(call.keys, call.at):
            x, w = lefts[keys.index(key)], widths[keys.index(key)]
            parts.append(box(x + 3, y + 3, w - 6, TREE_ROW_H - 6, colour.get(kernel, "muted"),
                             f"{number}. {call.op} @ {key} -> {kernel}")
                         + text(x + w / 2, y + TREE_ROW_H / 2 + 5, str(number), ""))
    grid_h = top + len(calls) * TREE_ROW_H
    entries = [(colour.get(k, "muted"), "", k) for k in kernels]
    entries.append(("plain", "n", words(en="step n of the walk above", es="paso n del recorrido de arriba")))
    key_legend, legend_h = legend(TREE_PAD, grid_h + 24, entries)
    heading = words(en="kernel each key resolved to:", es="kernel en que se resolvió cada clave:")
    width = max(lefts[-1] + widths[-1] + TREE_PAD,
                TREE_PAD * 2 + 24 + SMALL_CHAR_W * max(widest(meaning) for _, _, meaning in entries))
    return drawing(width, grid_h + 24 + legend_h + TREE_PAD, title, "".join(parts)
                   + text(TREE_PAD, grid_h + 16, heading, "small", "start") + key_legend)


def walk_diagram():
    """The walk of F.linear(x, W, b) as a tree: which call ran inside which, and the keys each went down."""
    x, W, b = running_example()
    with nested_dispatch() as nested:
        F.linear(x, W, b)
    calls = call_tree(nested)
    svg = tree_svg(calls, words(en="The walk of F.linear(x, W, b), call inside call",
                                es="El recorrido de F.linear(x, W, b), llamada dentro de llamada"))
    print(figure(svg, render_tree(calls), words(
        en="Each row is one operator call, under the kernel that made it; each cell, a key it went down, numbered "
           "in the order of the walk and coloured by the kernel the key resolved to.",
        es="Cada fila es una llamada a un operador, debajo del kernel que la hizo; cada celda, una clave por la que "
           "bajó, numerada en el orden del recorrido y coloreada según el kernel en que se resolvió la clave.")))
    return calls
# --8<-- [end:body]
