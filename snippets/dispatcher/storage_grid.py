"""Theory 01: a small W and three views of it, drawn over the cells of their one storage."""

from hood.capture.common import widest, words
from hood.capture.figure import box, drawing, figure, text
from hood.capture.tensors import Layout, layout
from snippets.dispatcher.key_stack import SMALL_CHAR_W

# --8<-- [start:body]
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ViewCells:
    """A tensor's layout, whether it shares the base's storage, and the storage cells it reads, in its order."""

    layout: Layout
    shared: bool
    cells: tuple[int, ...]


def storage_cells(rows: int = 3, cols: int = 4) -> tuple[int, list[ViewCells]]:
    """A small W whose values are their own storage index, and W.t(), W[1:3], W.narrow(1, 1, 2) over it."""
    W = torch.arange(float(rows * cols)).reshape(rows, cols)  # the value in cell i is i
    views = {"W": W, "W.t()": W.t(), "W[1:3]": W[1:3], "W.narrow(1, 1, 2)": W.narrow(1, 1, 2)}
    base = W.untyped_storage().data_ptr()
    read = [ViewCells(layout(name, v), v.untyped_storage().data_ptr() == base,
                      tuple(int(value) for value in v.flatten().tolist()))  # its elements, row by row
            for name, v in views.items()]
    return W.untyped_storage().nbytes() // W.element_size(), read


def render_cells(size: int, views: list[ViewCells]) -> str:
    """The data the figure draws: the storage's size, then each view's layout and the cells it reads."""
    return f"storage: {size} cells\n" + "\n".join(
        f"{v.layout.name}: shape={list(v.layout.shape)} stride={list(v.layout.stride)} offset={v.layout.offset} "
        f"{'same storage as W' if v.shared else 'own storage'}; reads cells {' '.join(map(str, v.cells))}"
        for v in views)


GRID_CELL, GRID_PAD, GRID_TOP, GRID_VIEW_H = 28, 10, 48, 74
GRID_SERIES = ("c1", "c2", "c3", "c4", "c5")


def _cell(i: int, y: float, css: str, label: str = "", tip: str = "", label_class: str = "") -> str:
    """Cell `i` of a row of the storage drawn at height `y`, with `label` in it."""
    x = GRID_PAD + i * GRID_CELL
    return (box(x + 1, y, GRID_CELL - 2, GRID_CELL - 2, css, tip)
            + (text(x + GRID_CELL / 2, y + GRID_CELL / 2 + 3, label, label_class) if label else ""))


def storage_svg(size: int, views: list[ViewCells], title: str) -> str:
    """The storage as a row of cells; under it, one row per view with the cells it reads numbered in its order."""
    shared = _shared_line(views)
    note = words(en="n: the view's n-th element, row by row", es="n: elemento n de la vista, fila a fila")
    parts = [text(GRID_PAD, GRID_PAD + 14, words(en=f"the storage: {size} float32 cells",
                                                 es=f"el almacenamiento: {size} celdas float32"), "label", "start"),
             text(GRID_PAD, GRID_PAD + 30, shared, "small", "start")]
    parts += [_cell(i, GRID_TOP, "plain", str(i), label_class="small") for i in range(size)]
    for row, (view, css) in enumerate(zip(views, GRID_SERIES)):
        y, lay = GRID_TOP + GRID_CELL + 14 + row * GRID_VIEW_H, view.layout
        parts.append(text(GRID_PAD, y + 14, lay.name, "label", "start")
                     + text(GRID_PAD, y + 30, f"shape={list(lay.shape)} stride={list(lay.stride)} offset={lay.offset}",
                            "small", "start"))
        order = {cell: n for n, cell in enumerate(view.cells)}
        parts += [_cell(i, y + 38, css, str(order[i]), words(
            en=f"{lay.name}: element {order[i]} = cell {i}", es=f"{lay.name}: elemento {order[i]} = celda {i}"))
                  if i in order else _cell(i, y + 38, "muted") for i in range(size)]
    bottom = GRID_TOP + GRID_CELL + 14 + len(views) * GRID_VIEW_H
    parts.append(text(GRID_PAD, bottom + 8, note, "small", "start"))
    width = max(GRID_PAD * 2 + size * GRID_CELL, GRID_PAD * 2 + SMALL_CHAR_W * max(widest(shared), widest(note)))
    return drawing(width, bottom + 16 + GRID_PAD, title, "".join(parts))


def _shared_line(views: list[ViewCells]) -> str:
    shared, n = sum(v.shared for v in views), len(views)
    if shared == n:
        return words(en=f"one storage for all {n} tensors", es=f"un mismo almacenamiento para los {n} tensores")
    return words(en=f"W's storage for {shared} of {n} tensors",
                 es=f"el almacenamiento de W para {shared} de {n} tensores")


def storage_grid():
    """Draw which cells of one storage W and its views read, and in which order."""
    size, views = storage_cells()
    svg = storage_svg(size, views, words(en="W, W.t(), W[1:3] and W.narrow(1, 1, 2) over one storage",
                                         es="W, W.t(), W[1:3] y W.narrow(1, 1, 2) sobre un mismo almacenamiento"))
    print(figure(svg, render_cells(size, views), words(
        en="A 3 × 4 W, small enough to draw, made with torch.arange so that each value is its cell's index. "
           "Each view reads the coloured cells of its row, in the order of the numbers.",
        es="Una W de 3 × 4, lo bastante pequeña para dibujarla, hecha con torch.arange para que cada valor sea el "
           "índice de su celda. Cada vista lee las celdas coloreadas de su fila, en el orden de los números.")))
    return size, views
# --8<-- [end:body]
