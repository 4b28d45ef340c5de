"""Draw a pipeline step as a timeline: the order each rank ran its forwards and backwards, and the idle slots.

The order comes from the ranks' results (`computations` of `snippets.distributed.observe`, read from the profiler);
the layout gives every computation one slot and starts it as soon as the stage it waits for is done.
"""

from hood.capture.common import words
from hood.capture.figure import arrow, box, drawing, figure, text
from snippets.distributed.observe import said

# --8<-- [start:body]


def timeline(orders):
    """The slot of each computation, from each rank's order (`["F0", "F1", "B0", "B1"]`, rank 0 the first stage).

    One slot per computation. A forward waits for the same micro-batch's forward on the previous stage (its
    activations), a backward for its backward on the next stage (its gradient). Returns {(rank, name): slot}.
    """
    slot, done, free = {}, [0] * len(orders), [0] * len(orders)
    last = len(orders) - 1
    while any(done[r] < len(order) for r, order in enumerate(orders)):
        moved = False
        for rank, order in enumerate(orders):
            if done[rank] == len(order):
                continue
            name = order[done[rank]]
            waits_for = ((rank - 1, name) if name[0] == "F" and rank > 0 else
                         (rank + 1, name) if name[0] == "B" and rank < last else None)
            if waits_for is not None and waits_for not in slot:
                continue
            slot[rank, name] = max(free[rank], slot[waits_for] + 1 if waits_for else 0)
            free[rank], done[rank], moved = slot[rank, name] + 1, done[rank] + 1, True
        if not moved:
            raise ValueError(f"the ranks' orders wait on each other: {orders}")
    return slot


LABEL_W, SLOT, ROW_H, ROW_GAP, MARGIN = 112, 46, 36, 34, 16


def draw_schedule(results, step=2):
    """Figure: a pipeline `step` as a timeline, a row per rank, idle slots dashed; returns rows and idle counts."""
    orders = [result[said("step {}, computations in order", step)].split() for result in results]
    slot = timeline(orders)
    slots = max(slot.values()) + 1
    width = MARGIN + LABEL_W + slots * SLOT + MARGIN
    top = 74
    legend = [(words(en="F: forward", es="F: forward"), "c1"), (words(en="B: backward", es="B: backward"), "c2"),
              (words(en="idle", es="en espera"), "muted")]
    parts = [box(MARGIN + i * 120, 12, 12, 12, css) + text(MARGIN + i * 120 + 17, 22, label, "small", "start")
             for i, (label, css) in enumerate(legend)]
    parts += [text(MARGIN + LABEL_W + (s + 0.5) * SLOT, top - 10, str(s + 1), "small") for s in range(slots)]
    parts.append(text(MARGIN + LABEL_W, top - 26, words(en="time slot →", es="intervalo de tiempo →"), "small",
                      "start"))
    rows, idle = [], []
    for rank, (result, order) in enumerate(zip(results, orders)):
        y = top + rank * (ROW_H + ROW_GAP)
        parts.append(text(MARGIN, y + 15, f"rank {rank}", "label", "start"))
        parts.append(text(MARGIN, y + 31, result[said("stage")], "small", "start"))
        row = ["-"] * slots
        for name in order:
            row[slot[rank, name]] = name
        for s, name in enumerate(row):
            css = {"F": "c1", "B": "c2"}.get(name[0], "muted")
            x = MARGIN + LABEL_W + s * SLOT
            parts.append(box(x + 2, y, SLOT - 4, ROW_H, css))
            parts.append(text(x + SLOT / 2, y + 23, name) if name != "-" else "")
        rows.append(row)
        idle.append(row.count("-"))
    for rank in range(len(orders) - 1):  # what travels between neighbouring stages: activations down, gradients up
        y = top + rank * (ROW_H + ROW_GAP) + ROW_H
        for name in orders[rank]:
            a, b = slot[rank, name], slot.get((rank + 1, name))
            if b is None:
                continue
            x_up = MARGIN + LABEL_W + (a + 0.5) * SLOT
            x_down = MARGIN + LABEL_W + (b + 0.5) * SLOT
            parts.append(arrow(x_up, y + 2, x_down, y + ROW_GAP - 2) if name[0] == "F"
                         else arrow(x_down, y + ROW_GAP - 2, x_up, y + 2))
    y = top + len(orders) * (ROW_H + ROW_GAP) - ROW_GAP + 24
    summary = " · ".join(f"rank {r}: {n}/{slots}" for r, n in enumerate(idle))
    parts.append(text(MARGIN, y, words(en="idle slots: ", es="intervalos en espera: ") + summary, "small", "start"))
    data = [f"rank {r}: {' '.join(row)}" for r, row in enumerate(rows)]
    data.append(f"idle slots: {', '.join(f'rank {r} {n} of {slots}' for r, n in enumerate(idle))}")
    title = words(en=f"GPipe, step {step}: what each rank computes in each time slot",
                  es=f"GPipe, paso {step}: qué calcula cada rank en cada intervalo de tiempo")
    caption = words(en="The order in which each rank ran its forward and backward passes, as its profiler recorded "
                       "them, one slot each. An arrow is a send: activations go down to the next stage, gradients "
                       "come back up. A slot in which a rank waits for the other is dashed: the bubble.",
                    es="El orden en que cada rank ejecutó sus pasadas de forward y de backward, tal como lo anotó su "
                       "profiler, un intervalo por cálculo. Cada flecha es un envío: las activaciones bajan a la "
                       "etapa siguiente y los gradientes suben. Los intervalos en que un rank espera al otro van en "
                       "línea discontinua: la burbuja.")
    print(figure(drawing(width, y + 12, title, "".join(parts)), "\n".join(data), caption))
    return {"rows": rows, "idle": idle, "slots": slots}
# --8<-- [end:body]
