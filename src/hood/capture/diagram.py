"""Diagrams drawn at build time from real data, as inline SVG: no script, no CDN, same offline.

Labels and titles may hold `words` markers: each box is as wide as the label's longest language. A page includes
`hood/capture/common.py:body` first, then this module's body.
"""

from hood.capture.common import widest

# --8<-- [start:body]
from dataclasses import dataclass
from html import escape

BOX_W, BOX_H, GAP_X, GAP_Y, CHAR_W = 190, 44, 28, 46, 7.2


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


def layered_svg(nodes: list[Node], edges: list[tuple[str, str]], title: str) -> str:
    """A top-to-bottom layered drawing of a small DAG; edges are (from id, to id)."""
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
            text_y = y + (17 if node.detail else 27)
            parts.append(
                f'<g class="node"><rect x="{x:.0f}" y="{y:.0f}" width="{box_w:.0f}" height="{BOX_H}" rx="6"/>'
                f'<text x="{x + box_w / 2:.0f}" y="{text_y:.0f}" class="label">{escape(node.label)}</text>'
                + (f'<text x="{x + box_w / 2:.0f}" y="{y + 34:.0f}" class="detail">{escape(node.detail)}</text>'
                   if node.detail else "")
                + "</g>"
            )
    for src, dst in edges:
        (x1, y1), (x2, y2) = where[src], where[dst]
        parts.append(
            f'<line x1="{x1 + box_w / 2:.0f}" y1="{y1 + BOX_H:.0f}" x2="{x2 + box_w / 2:.0f}" y2="{y2 - 2:.0f}" '
            'marker-end="url(#arrow)"/>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="hood-diagram" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>'
        + "".join(parts)
        + "</svg>"
    )
# --8<-- [end:body]
