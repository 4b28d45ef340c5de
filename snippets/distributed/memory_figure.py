"""Draw the bytes of parameters, gradients and Adam state each rank held after its step, pattern by pattern.

The bars read the results the ranks returned (`bytes_after_adam_step` of `snippets.distributed.observe`); the
reference bar of each pattern is measured the same way in this process, on the unsplit model.
"""

from hood.capture.common import grouped, widest, words
from hood.capture.figure import box, drawing, figure, text
from snippets.distributed.holdings_figure import PATTERNS
from snippets.distributed.observe import bytes_after_adam_step, said
from snippets.distributed.workload import local_batch, loss_of, two_layers

# --8<-- [start:body]
import torch.nn as nn

UNSPLIT = {"ddp": lambda: nn.Linear(64, 600), "fsdp": lambda: nn.Linear(64, 600), "tp": two_layers, "pp": two_layers}
"""The model each pattern's ranks split: the head for DDP and FSDP2, the two-layer block for TP and PP."""

KINDS = {"parameters": ("c1", words(en="parameters", es="parámetros")),
         "gradients": ("c2", words(en="gradients", es="gradientes")),
         "optimizer state": ("c3", words(en="Adam state", es="estado de Adam"))}
"""The three parts of what a rank holds, as `bytes_after_adam_step` names them (`said`), with their colours."""


def by_kind(sizes):
    """The bytes `bytes_after_adam_step` returned, by the English names of `KINDS`."""
    return {kind: sizes[said(kind)] for kind in KINDS}


def unsplit_bytes(pattern):
    """What one process holds after one Adam step of the whole model a pattern splits: the reference."""
    model = UNSPLIT[pattern]()
    x, y = local_batch(0)
    loss_of(model(x), y).backward()
    return by_kind(bytes_after_adam_step(model))


LABEL_W, BAR_W, ROW, MARGIN, CHAR_W = 104, 200, 24, 16, 7.2  # CHAR_W: a 12-px monospace character


def draw_memory(runs):
    """Figure: stacked bars of the bytes each rank held after an Adam step, with one process as the reference.

    `runs` maps a pattern's short name (`PATTERNS`) to its ranks' results; returns the bytes drawn, by pattern.
    """
    held = {pattern: {"one process": unsplit_bytes(pattern),
                      **{f"rank {r}": by_kind(result[said("bytes held after an Adam step")])
                         for r, result in enumerate(results)}}
            for pattern, results in runs.items()}
    most = max(sum(parts.values()) for rows in held.values() for parts in rows.values())
    scale = BAR_W / most
    width = MARGIN + LABEL_W + BAR_W + 8 + CHAR_W * widest(f"{grouped(most)} B") + MARGIN
    x, parts = MARGIN, []
    for css, label in KINDS.values():
        parts.append(box(x, 14, 12, 12, css) + text(x + 17, 24, label, "small", "start"))
        x += 17 + CHAR_W * widest(label) + 16
    y, data = 44, []
    one_process = words(en="one process", es="un proceso")
    for pattern, rows in held.items():
        parts.append(text(MARGIN, y + 14, PATTERNS[pattern], "label", "start"))
        y += 22
        for row, sizes in rows.items():
            x = MARGIN + LABEL_W
            parts.append(text(x - 8, y + 15, one_process if row == "one process" else row, "small", "end"))
            for kind, n in sizes.items():
                css = "muted" if row == "one process" else KINDS[kind][0]
                parts.append(box(x, y + 3, n * scale, ROW - 6, css, tip=f"{KINDS[kind][1]}: {grouped(n)} B"))
                x += n * scale
            parts.append(text(x + 8, y + 15, f"{grouped(sum(sizes.values()))} B", "small", "start"))
            data.append(f"{pattern} {row}: " + ", ".join(f"{kind} {n} B" for kind, n in sizes.items()))
            y += ROW
        y += 10
    title = words(en="Bytes each rank holds after one Adam step, by pattern",
                  es="Bytes que guarda cada rank tras un paso de Adam, por patrón")
    caption = words(en="Parameters, gradients and Adam state each rank held after its step (of a shard, only its "
                       "local part), next to one process holding the whole model after the same step.",
                    es="Parámetros, gradientes y estado de Adam que guardaba cada rank tras su paso (de un "
                       "fragmento, solo su parte local), junto a un proceso que guarda el modelo entero tras el mismo "
                       "paso.")
    print(figure(drawing(width, y, title, "".join(parts)), "\n".join(data), caption))
    return held
# --8<-- [end:body]
