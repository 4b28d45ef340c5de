"""Diagrams of small graphs drawn at build time from real data, as inline SVG: no script, no CDN, same offline.

Labels and titles may hold `words` markers: each box is as wide as the label's longest language. A page includes
`hood/capture/common.py:body` and `hood/capture/figure.py:body` first, then this module's body.
"""

from hood.capture.common import widest
from hood.capture.figure import arrow, badge, box, drawing, text

# --8<-- [start:body]
from dataclasses import dataclass

BOX_W, BOX_H, GAP_X, GAP_Y, CHAR_W = 150, 44, 24, 40, 8.5


@dataclass(frozen=True)
class Node:
    """A box: its id, its title and an optional second line."""

    id: str
    label: str
    detail: str = ""


def _layers(nodes: list[Node], edges: list[tuple[str, str]]) -> list[list[Node]]:
    depth = {n.id: 0 for n in nodes}
    for _ in nodes:  # longest path from a source; graphs here are small DAGs
        for src, dst in edges:
            depth[dst] = max(depth[dst], depth[src] + 1)
    layers: list[list[Node]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for node in nodes:
        layers[depth[node.id]].append(node)
    return layers


def layered_svg(nodes: list[Node], edges: list[tuple[str, str]], title: str, *,
                badges: dict[str, str] | None = None, classes: dict[str, str] | None = None) -> str:
    """A top-to-bottom layered drawing of a small DAG; edges are (from id, to id).

    `badges` puts a short mark (a step number) on a node's corner; `classes` gives a node a colour class
    (`accent`, `muted`, `c1`…`c5`, see `hood.capture.figure`).
    """
    badges, classes = badges or {}, classes or {}
    layers = _layers(nodes, edges)
    most = max((len(layer) for layer in layers), default=1)
    box_w = max([BOX_W, *(CHAR_W * max(widest(n.label), widest(n.detail)) + 20 for n in nodes)])
    width = most * (box_w + GAP_X) + GAP_X
    height = len(layers) * (BOX_H + GAP_Y) + GAP_Y
    where: dict[str, tuple[float, float]] = {}
    parts = []
    for row, layer in enumerate(layers):
        offset = (width - len(layer) * (box_w + GAP_X) + GAP_X) / 2
        for col, node in enumerate(layer):
            x, y = offset + col * (box_w + GAP_X), GAP_Y / 2 + row * (BOX_H + GAP_Y)
            where[node.id] = (x, y)
            parts.append(f'<g class="node {classes.get(node.id, "")}">' + box(x, y, box_w, BOX_H)
                         + text(x + box_w / 2, y + (18 if node.detail else 27), node.label)
                         + (text(x + box_w / 2, y + 36, node.detail, "detail") if node.detail else ""))
            if node.id in badges:
                parts.append(badge(x, y, badges[node.id]))
            parts.append("</g>")
    for src, dst in edges:
        (x1, y1), (x2, y2) = where[src], where[dst]
        parts.append(arrow(x1 + box_w / 2, y1 + BOX_H, x2 + box_w / 2, y2 - 2))
    return drawing(width, height, title, "".join(parts))
# --8<-- [end:body]
