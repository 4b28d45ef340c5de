"""AOTAutograd's cut as a drawing: the forward and the backward graph side by side, and what crosses between them."""

from hood.capture.common import widest, words
from hood.capture.figure import arrow, box, drawing, figure, text
from snippets.compile.aot_graphs import saved_for_backward

# --8<-- [start:body]
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Value:
    """One node of a forward or backward graph: its name, its shape and its part in the cut.

    `role` is `input`, `op`, `saved` (a value of the forward kept for the backward, an op's result or an input
    such as `x`, or the backward's input receiving it), `output` (the forward's real output), `tangent` (an
    incoming gradient), `gradient` (a gradient the backward returns) or `recomputed` (a forward op computed again
    in the backward).
    `of` names what an input or a gradient stands for in the user's function (`x`, `W`...).
    """

    name: str
    shape: tuple
    role: str
    of: str = ""


@dataclass(frozen=True)
class Cut:
    """The partition of a joint graph: each side's nodes in graph order, and what the forward saves."""

    forward: list[Value]
    backward: list[Value]
    saved: list[str]
    recomputed: list[str]


def _shape(node) -> tuple:
    value = node.meta.get("val")
    return tuple(value.shape) if hasattr(value, "shape") else ()


def cut_of(graphs) -> Cut:
    """Read the cut from the forward and backward graphs that `aot_graphs` kept."""
    fw, bw = graphs["forward"].graph.nodes, graphs["backward"].graph.nodes
    users = [re.sub(r"^L_(.*)_$", r"\1", n.target) for n in graphs["dynamo"].graph.nodes if n.op == "placeholder"]
    saved = [name for name, _ in saved_for_backward(graphs)]
    (fw_out,) = [n for n in fw if n.op == "output"]
    real_outputs = [a.name for a in fw_out.args[0][:len(fw_out.args[0]) - len(saved)]]
    fw_ops = {n.name for n in fw if n.op == "call_function"}
    recomputed = [n.name for n in bw if n.op == "call_function" and n.name in fw_ops]
    (bw_out,) = [n for n in bw if n.op == "output"]
    primals = [n.name for n in fw if n.op == "placeholder"]
    grad_of = {g.name: users[i] for i, g in enumerate(bw_out.args[0]) if g is not None}

    def forward_role(n):
        if n.op == "placeholder":
            return "saved" if n.name in saved else "input"
        return "saved" if n.name in saved else "output" if n.name in real_outputs else "op"

    def backward_role(n):
        if n.op == "placeholder":
            return "saved" if n.name in saved else "tangent"
        return "gradient" if n.name in grad_of else "recomputed" if n.name in recomputed else "op"

    forward = [Value(n.name, _shape(n), forward_role(n), users[primals.index(n.name)] if n.op == "placeholder"
                     else "") for n in fw if n.op in ("placeholder", "call_function")]
    backward = [Value(n.name, _shape(n), backward_role(n),
                      grad_of.get(n.name, users[primals.index(n.name)] if n.name in primals else ""))
                for n in bw if n.op in ("placeholder", "call_function")]
    return Cut(forward, backward, saved, recomputed)


def cut_data(cut: Cut) -> str:
    """The cut as text, one node a line: side, name, shape, role (what a trace keeps of the drawing)."""
    lines = [f"{side:<9}{v.name:<24}{str(v.shape):<11}{v.role}{' ' + v.of if v.of else ''}"
             for side, values in (("forward", cut.forward), ("backward", cut.backward)) for v in values]
    return "\n".join(lines + [f"saved: {', '.join(cut.saved)}", f"recomputed: {', '.join(cut.recomputed) or 'none'}"])


ROLE_CLASS = {"saved": "accent", "output": "c3", "gradient": "c3", "tangent": "c4", "recomputed": "c5", "input": "c1"}
CUT_ROW, CUT_BOX_H, CUT_LANE, CUT_PAD = 44, 36, 10, 6


def _detail(v: Value) -> str:
    shape = "(" + ", ".join(map(str, v.shape)) + ")"
    if v.role == "gradient":
        return words(en=f"grad {v.of} {shape}", es=f"gradiente de {v.of} {shape}")
    return f"{v.of} {shape}" if v.of else shape


def draw_cut(cut: Cut) -> str:
    """Forward on the left, backward on the right; each saved tensor's arrow crosses from one to the other."""
    box_w = max(max(len(v.name) * 7.8, widest(_detail(v)) * 7.2) for v in cut.forward + cut.backward) + 12
    gap = (len(cut.saved) + 2) * CUT_LANE
    left, right, top = CUT_PAD, CUT_PAD + box_w + gap, 52
    parts = [text(left + box_w / 2, 22, words(en="forward graph", es="grafo del forward"), "heading"),
             text(right + box_w / 2, 22, words(en="backward graph", es="grafo del backward"), "heading")]
    where = {}
    for x, values, side in ((left, cut.forward, "fw"), (right, cut.backward, "bw")):
        for row, v in enumerate(values):
            y = top + row * CUT_ROW
            where[side, v.name] = y + CUT_BOX_H / 2
            parts.append(f'<g class="node {ROLE_CLASS.get(v.role, "")}">' + box(x, y, box_w, CUT_BOX_H)
                         + text(x + box_w / 2, y + 15, v.name, "") + text(x + box_w / 2, y + 30, _detail(v), "detail")
                         + "</g>")
    for i, name in enumerate(cut.saved):  # source and target rows keep their order: nested lanes never cross
        y1, y2, lane = where["fw", name], where["bw", name], left + box_w + (i + 1) * CUT_LANE
        parts.append(f'<line x1="{left + box_w:.1f}" y1="{y1:.1f}" x2="{lane:.1f}" y2="{y1:.1f}" class="strong"/>'
                     f'<line x1="{lane:.1f}" y1="{y1:.1f}" x2="{lane:.1f}" y2="{y2:.1f}" class="strong"/>'
                     + arrow(lane, y2, right - 2, y2, "strong"))
    rows = max(len(cut.forward), len(cut.backward))
    y = top + rows * CUT_ROW + 8
    legend = [
        ("accent", words(en="saved by the forward for the backward", es="guardado por el forward para el backward")),
        ("c3", words(en="output of the head, gradients returned", es="salida de la cabeza, gradientes devueltos")),
        ("c4", words(en="gradient arriving from above", es="gradiente entrante")),
        ("c1", words(en="input of the head", es="entrada de la cabeza")),
    ]
    if cut.recomputed:
        legend.append(("c5", words(en="recomputed in the backward", es="recalculado en el backward")))
    for i, (css, label) in enumerate(legend):
        parts.append(box(left, y + i * 22, 14, 14, css) + text(left + 22, y + i * 22 + 12, label, "small", "start"))
    y += len(legend) * 22 + 14
    names = ", ".join(cut.recomputed)
    recomputed = (words(en=f"recomputed in the backward: {names}", es=f"recalculado en el backward: {names}")
                  if names else words(en="recomputed in the backward: nothing", es="recalculado en el backward: nada"))
    parts.append(text(left, y, recomputed, "small", "start"))
    width = right + box_w + CUT_PAD
    title = words(en="AOTAutograd's cut of the head's joint graph",
                  es="El corte de AOTAutograd en el grafo conjunto de la cabeza")
    return drawing(width, y + 12, title, "".join(parts))


def partition_diagram(graphs) -> Cut:
    """Draw the cut of the graphs `aot_graphs` kept, as a figure whose data is `cut_data`."""
    cut = cut_of(graphs)
    print(figure(draw_cut(cut), cut_data(cut),
                 words(en="Each forward node in graph order on the left, each backward node on the right; the arrows "
                          "are the tensors the forward returns for the backward.",
                       es="A la izquierda, los nodos del forward en el orden del grafo; a la derecha, los del "
                          "backward; las flechas son los tensores que el forward devuelve para el backward.")))
    return cut
# --8<-- [end:body]
