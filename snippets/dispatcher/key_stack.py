"""Theory 01: the keys of F.linear(x, W, b) under each context, and where linear and addmm ran, as a figure."""

from hood.capture.common import key_names, widest, words
from hood.capture.dispatch import recording_dispatch
from hood.capture.figure import box, drawing, figure, text
from hood.capture.keys import effective_keys
from hood.capture.ops import OpLog
from snippets.running_example import running_example

# --8<-- [start:body]
import contextlib
from dataclasses import dataclass

import torch
import torch.nn.functional as F

WALKED = ("aten.linear.default", "aten.addmm.default")
"""The operators whose keys the figure shows: linear and the addmm it calls (those the walk in contexts keeps)."""


@dataclass(frozen=True)
class KeyStack:
    """The keys of one call in one context.

    Attributes:
        label: The context.
        carried: The keys of the call's tensors and of the thread-local include set, highest priority first.
        effective: What is left of them once the exclude set is removed: the call's key set.
        first: The highest-priority key of `effective`.
        ran: For each operator of `WALKED`, the keys where one of its kernels ran, in order.
    """

    label: str
    carried: tuple[str, ...]
    effective: tuple[str, ...]
    first: str
    ran: dict[str, tuple[str, ...]]

    @property
    def excluded(self) -> tuple[str, ...]:
        """The carried keys the exclude set removes."""
        return tuple(k for k in self.carried if k not in self.effective)


def key_stack(label: str, context, tensors) -> KeyStack:
    """Read the call's key set inside `context`, as the dispatcher computes it, then record its walk there."""
    with context():
        carried, effective = torch._C._dispatch_tls_local_include_set(), by_priority([])
        for t in tensors:
            carried = carried | torch._C._dispatch_keys(t)
            effective = effective | effective_keys(t)  # (tensor keys | include) - exclude
    with recording_dispatch() as steps, context():
        F.linear(*tensors)
    ran = {op: tuple(s.key for s in steps if s.op == op) for op in WALKED}
    return KeyStack(label, key_names(carried)[::-1], key_names(effective)[::-1],
                    effective.highestPriorityTypeId().name, ran)


CONTEXTS = {  # label: (context, the lines of its header in the drawing)
    "no context": (contextlib.nullcontext, (words(en="no", es="sin"), words(en="context", es="contexto"))),
    "torch.no_grad()": (torch.no_grad, ("no_grad",)),
    "torch.inference_mode()": (torch.inference_mode, ("inference", "_mode")),
    "torch.autocast('cpu', dtype=torch.bfloat16)": (lambda: torch.autocast("cpu", dtype=torch.bfloat16),
                                                    ("autocast", "(cpu)")),
    "OpLog(), a TorchDispatchMode": (OpLog, (words(en="dispatch", es="modo de"), words(en="mode", es="dispatch"))),
}

HOVER_NAMES = {"no context": words(en="no context", es="sin contexto"),
               "OpLog(), a TorchDispatchMode": words(en="OpLog(), a TorchDispatchMode",
                                                     es="OpLog(), un TorchDispatchMode")}
"""A context's name in a cell's hover text, in the page's language (the others are code)."""


def by_priority(names) -> torch.DispatchKeySet:
    """The keys named, in one DispatchKeySet (which lists them by priority, lowest first)."""
    keys = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    for name in names:
        keys = keys | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    return keys


def render_stacks(stacks: list[KeyStack]) -> str:
    """The data the figure draws: one paragraph per context."""
    return "\n\n".join(
        f"{s.label}\n  carried  : {', '.join(s.carried)}\n  excluded : {', '.join(s.excluded) or '-'}\n"
        f"  first    : {s.first}\n" + "\n".join(f"  {op} ran at {', '.join(keys)}" for op, keys in s.ran.items())
        for s in stacks)


STACK_CELL_W, STACK_CELL_H, STACK_GAP, STACK_PAD, STACK_HEAD_H, STACK_LABEL_H = 62, 38, 4, 10, 40, 18
SMALL_CHAR_W = 7.3
"""The width of a character of 12-px text (`small`, `detail`) in a drawing's monospace font, with a margin."""


def legend(x: float, y: float, entries) -> tuple[str, float]:
    """Swatches with their meaning, one a line from (x, y): `entries` are (css class, mark, words); its height."""
    parts = []
    for i, (css, mark, meaning) in enumerate(entries):
        top = y + i * 20
        parts.append(box(x, top, 16, 14, css) + (text(x + 8, top + 11, mark, "small") if mark else "")
                     + text(x + 24, top + 11, meaning, "small", "start"))
    return "".join(parts), len(entries) * 20


def stack_svg(stacks: list[KeyStack], title: str) -> str:
    """Keys as rows (highest priority first), contexts as columns; each cell says what the key did there."""
    rows = key_names(by_priority({k for s in stacks for k in s.carried}))[::-1]
    names = {op: op.split(".")[1] for op in WALKED}
    parts = []
    for col, s in enumerate(stacks):
        x = STACK_PAD + col * (STACK_CELL_W + STACK_GAP) + STACK_CELL_W / 2
        for line, header in enumerate(CONTEXTS[s.label][1]):
            parts.append(text(x, STACK_PAD + 13 + line * 15, header, "small"))
    for row, key in enumerate(rows):
        y = STACK_PAD + STACK_HEAD_H + row * (STACK_LABEL_H + STACK_CELL_H + STACK_GAP)
        parts.append(text(STACK_PAD, y + 13, key, "label", "start"))
        for col, s in enumerate(stacks):
            x, top = STACK_PAD + col * (STACK_CELL_W + STACK_GAP), y + STACK_LABEL_H
            state = "accent" if key == s.first else "c1" if key in s.effective else "muted" if key in s.carried else ""
            if not state:
                parts.append(box(x, top, STACK_CELL_W, STACK_CELL_H, "plain"))
                continue
            ops = [names[op] for op, keys in s.ran.items() if key in keys]
            parts.append(box(x, top, STACK_CELL_W, STACK_CELL_H, state, f"{HOVER_NAMES.get(s.label, s.label)}: {key}"))
            marks = ops if state != "muted" else ["\u00d7"]
            for i, mark in enumerate(marks):  # one line per mark, centred in the cell
                y_mark = top + STACK_CELL_H / 2 + 4 + (i - (len(marks) - 1) / 2) * 14
                parts.append(text(x + STACK_CELL_W / 2, y_mark, mark, "" if ops else "small"))
    grid_h = STACK_PAD + STACK_HEAD_H + len(rows) * (STACK_LABEL_H + STACK_CELL_H + STACK_GAP)
    entries = [("accent", "", words(en="top of the call's key set", es="la más alta del conjunto de claves")),
               ("c1", "", words(en="in the call's key set", es="en el conjunto de claves de la llamada")),
               ("muted", "\u00d7", words(en="excluded by the thread-local exclude set",
                                         es="excluida por el conjunto de exclusión del hilo")),
               ("plain", "", words(en="linear, addmm: ran a kernel at this key",
                                   es="linear, addmm: aquí se ejecutó su kernel"))]
    key_legend, legend_h = legend(STACK_PAD, grid_h + 8, entries)
    width = max(STACK_PAD * 2 + len(stacks) * (STACK_CELL_W + STACK_GAP) - STACK_GAP,
                STACK_PAD * 2 + 24 + SMALL_CHAR_W * max(widest(meaning) for _, _, meaning in entries))
    return drawing(width, grid_h + 8 + legend_h + STACK_PAD, title, "".join(parts) + key_legend)


def key_stacks():
    """The call's keys under each context, highest priority first, drawn as a matrix."""
    x, W, b = running_example()
    stacks = [key_stack(label, context, (x, W, b)) for label, (context, _) in CONTEXTS.items()]
    svg = stack_svg(stacks, words(en="Keys of F.linear(x, W, b) in each context",
                                  es="Claves de F.linear(x, W, b) en cada contexto"))
    print(figure(svg, render_stacks(stacks), words(
        en="Read a column from the top: the orange cell is the top of the call's key set; the names say where "
           "linear and addmm ran a kernel, which is not always the orange cell.",
        es="Lee cada columna desde arriba: la celda naranja es la clave más alta del conjunto de la llamada; los "
           "nombres dicen dónde ejecutaron linear y addmm su kernel, que no siempre es la celda naranja.")))
    return stacks
# --8<-- [end:body]
