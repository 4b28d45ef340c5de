"""The autograd graph as data: nodes, edges, saved values, the engine's order and the thread-local key sets.

`autograd_graph` walks a real graph (`grad_fn` and `next_functions`) from an output; `render_graph` prints
it as text; `graph_svg` draws it as a tree, and `tree_text` lists what that drawing shows.
"""

from hood.capture.common import key_names, widest, words  # pages include common, figure, diagram before this body
from hood.capture.diagram import CHAR_W
from hood.capture.figure import badge, box, drawing, text

# --8<-- [start:body]
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import torch

_SYMBOLIC_METADATA = re.compile(r"_sym_(sizes|strides)$")


@dataclass(frozen=True)
class SavedValue:
    """One `_saved_*` attribute of a backward node.

    Attributes:
        name: The attribute without its `_saved_` prefix, e.g. `mat1`.
        shape: The tensor's shape, or `None` for a non-tensor value.
        value: The printed value of a non-tensor (`repr`), or `""` for a tensor.
        is_name: The named tensor the saved tensor *is* (same Python object), if any.
        shares_with: The named tensor whose memory it shares (same `data_ptr`) without being it, if any.
    """

    name: str
    shape: tuple[int, ...] | None
    value: str = ""
    is_name: str | None = None
    shares_with: str | None = None

    def describe(self) -> str:
        """`mat1 (2, 64) is x`, `mat2 (64, 600) shares memory with W`, `alpha = 1` (a figure's data keeps this)."""
        if self.shape is None:
            return f"{self.name} = {self.value}"
        text = f"{self.name} {self.shape}"
        if self.is_name:
            text += f" is {self.is_name}"
        elif self.shares_with:
            text += f" shares memory with {self.shares_with}"
        return text

    def said(self) -> str:
        """`describe` in every language (`words`): `mat1 (2, 64), que es x` in Spanish."""
        if self.shape is None or not (self.is_name or self.shares_with):
            return self.describe()
        what = f"que es {self.is_name}" if self.is_name else f"que comparte memoria con {self.shares_with}"
        return words(en=self.describe(), es=f"{self.name} {self.shape}, {what}")

    def brief(self) -> str:
        """What a diagram box has room for: `mat1 is x`, `mat2 shares W's memory`, `target`, `total_weight ()`."""
        if self.is_name == self.name:
            return self.name
        if self.is_name:
            return words(en=f"{self.name} is {self.is_name}", es=f"{self.name} es {self.is_name}")
        if self.shares_with:
            return words(en=f"{self.name} shares {self.shares_with}'s memory",
                         es=f"{self.name} comparte memoria con {self.shares_with}")
        return f"{self.name} {self.shape}"


@dataclass(frozen=True)
class GraphNode:
    """A backward node of a real autograd graph.

    Attributes:
        id: `n0`, `n1`…: the order in which the walk from the output met the node.
        name: The node's class, e.g. `AddmmBackward0`; `AccumulateGrad` for a leaf.
        label: What pages print: `AccumulateGrad(W)` for a leaf; the class name, numbered in forward
            (creation) order when the graph holds several nodes of that class (`AddmmBackward0[1]`).
        sequence_nr: The node's sequence number: a per-thread counter at creation, so only differences
            between nodes of one graph are stable; `AccumulateGrad` has the largest possible value.
        variable: For `AccumulateGrad`, the name of the leaf tensor it accumulates into.
        saved: The node's saved values (tensors and scalars), symbolic size/stride metadata left out.
    """

    id: str
    name: str
    label: str
    sequence_nr: int
    variable: str | None = None
    saved: tuple[SavedValue, ...] = ()


@dataclass(frozen=True)
class AutogradGraph:
    """Nodes in walk order and edges `(node id, next node id)` in `next_functions` order."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str], ...]

    def node(self, label: str) -> GraphNode:
        """The first node whose label is `label`."""
        return next(n for n in self.nodes if n.label == label)

    def labels(self) -> list[str]:
        """Every node's label, in walk order."""
        return [n.label for n in self.nodes]


def walk(output: torch.Tensor) -> Iterator[tuple[torch.autograd.graph.Node, list[torch.autograd.graph.Node]]]:
    """Each backward node reachable from `output.grad_fn`, once, with its next nodes (breadth first)."""
    if output.grad_fn is None:
        return
    queue, seen = [output.grad_fn], {output.grad_fn}
    while queue:
        fn = queue.pop(0)
        nexts = [nxt for nxt, _ in fn.next_functions if nxt is not None]
        yield fn, nexts
        for nxt in nexts:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)


def _name_of(tensor: torch.Tensor, names: Mapping[str, torch.Tensor], *, same_object: bool) -> str | None:
    for name, candidate in names.items():
        if same_object and tensor is candidate:
            return name
        if not same_object and tensor is not candidate and tensor.data_ptr() == candidate.data_ptr():
            return name
    return None


def saved_values(fn: torch.autograd.graph.Node, names: Mapping[str, torch.Tensor] | None = None) -> list[SavedValue]:
    """The `_saved_*` attributes of `fn`, with the named tensors (`names`) they are or share memory with."""
    names = names or {}
    values = []
    for attr in sorted(a for a in dir(fn) if a.startswith("_saved_") and not _SYMBOLIC_METADATA.search(a)):
        value = getattr(fn, attr)
        short = attr.removeprefix("_saved_")
        if isinstance(value, torch.Tensor):
            values.append(SavedValue(short, tuple(value.shape), is_name=_name_of(value, names, same_object=True),
                                     shares_with=_name_of(value, names, same_object=False)))
        else:
            values.append(SavedValue(short, None, value=repr(value)))
    return values


def autograd_graph(output: torch.Tensor, names: Mapping[str, torch.Tensor] | None = None) -> AutogradGraph:
    """The graph behind `output`: every node reachable through `next_functions`, and the edges between them.

    `names` maps names to tensors (leaves, and any other tensor worth recognising among the saved ones).
    """
    names = names or {}
    ids: dict[torch.autograd.graph.Node, str] = {}
    found, edges = [], []
    for fn, nexts in walk(output):
        for candidate in [fn, *nexts]:
            ids.setdefault(candidate, f"n{len(ids)}")
        found.append(fn)
        edges.extend((ids[fn], ids[nxt]) for nxt in nexts)
    nodes = []
    for fn in found:
        name, variable = type(fn).__name__, getattr(fn, "variable", None)
        leaf = _name_of(variable, names, same_object=True) if variable is not None else None
        twins = sorted((f for f in found if type(f) is type(fn)), key=lambda f: f._sequence_nr())
        if leaf is not None:
            label = f"{name}({leaf})"
        elif len(twins) > 1:
            label = f"{name}[{twins.index(fn) + 1}]"
        else:
            label = name
        nodes.append(GraphNode(id=ids[fn], name=name, label=label, sequence_nr=fn._sequence_nr(),
                               variable=leaf, saved=tuple(saved_values(fn, names))))
    return AutogradGraph(tuple(nodes), tuple(edges))


def render_graph(graph: AutogradGraph) -> str:
    """One line per node: its label, where its gradients go next, and what it saved."""
    labels = {n.id: n.label for n in graph.nodes}
    lines = []
    for node in graph.nodes:
        nexts = [labels[dst] for src, dst in graph.edges if src == node.id]
        lines.append(f"{node.label}" + (f" -> {', '.join(nexts)}" if nexts else ""))
        lines.extend(f"    {words(en='saved', es='guarda')} {value.said()}" for value in node.saved)
    return "\n".join(lines)


def tree_rows(graph: AutogradGraph) -> list[tuple[GraphNode, int]]:
    """The nodes as a tree from the output's node, depth first, following `next_functions` in order, with depths.

    A node that several nodes send gradients to is listed once, under the first of them met.
    """
    by_id, rows, seen = {n.id: n for n in graph.nodes}, [], set()

    def visit(node_id: str, depth: int) -> None:
        if node_id not in seen:
            seen.add(node_id)
            rows.append((by_id[node_id], depth))
            for src, dst in graph.edges:
                if src == node_id:
                    visit(dst, depth + 1)

    if graph.nodes:
        visit(graph.nodes[0].id, 0)
    return rows


def _saved_tensors(node: GraphNode, line) -> list[str]:
    return [line(v) for v in node.saved if v.shape is not None]


def tree_text(graph: AutogradGraph, notes: Mapping[str, str] | None = None) -> str:
    """The tree `graph_svg` draws, as indented lines: `label: note`, by default the tensors the node saved."""
    notes = notes if notes is not None else {
        n.label: ", ".join(_saved_tensors(n, SavedValue.describe)) for n in graph.nodes}
    rows, under = tree_rows(graph), set()
    for i, (node, depth) in enumerate(rows):  # depth first: a node's parent is the last row above it one level up
        parent = next((up for up, d in reversed(rows[:i]) if d == depth - 1), None)
        if parent is not None:
            under.add((parent.id, node.id))
    labels = {n.id: n.label for n in graph.nodes}
    lines = [f"{'  ' * depth}{node.label}" + (f": {notes[node.label]}" if notes.get(node.label) else "")
             for node, depth in rows]
    lines += [f"also {labels[src]} -> {labels[dst]}" for src, dst in graph.edges if (src, dst) not in under]
    return "\n".join(lines)


TREE_INDENT, TREE_LINE, TREE_GAP, TREE_MARGIN, DETAIL_W = 28, 16, 14, 14, 7.3
"""The tree's geometry: indent per level, height of a detail line, gap between rows, margin, width of a detail
character (12 px monospace; a label's is `CHAR_W`)."""


def graph_svg(graph: AutogradGraph, title: str, *, details: Mapping[str, list[str]] | None = None,
              badges: Mapping[str, str] | None = None, classes: Mapping[str, str] | None = None) -> str:
    """An SVG drawing of `graph` as a tree: the output's node on top, each node indented under the node that
    sends it its gradient (the arrows), down to the leaves' `AccumulateGrad`; boxes end on one right edge.

    Under each label, one line per entry of `details` (by default the tensors the node saved,
    `SavedValue.brief`); `badges` puts a mark (a step number) on a box's corner; `classes` gives a box a colour
    class (`accent`, `muted`, `c1`...`c5`, see `hood.capture.figure`). All three are keyed by node label.
    """
    rows = tree_rows(graph)
    if details is None:
        details = {node.label: _saved_tensors(node, SavedValue.brief) for node, _ in rows}
    badges, classes = badges or {}, classes or {}
    right = TREE_MARGIN + max(depth * TREE_INDENT + 20 + max([CHAR_W * widest(node.label)] + [
        DETAIL_W * widest(line) for line in details.get(node.label, [])]) for node, depth in rows)  # boxes end here
    where, y = {}, TREE_MARGIN
    for node, depth in rows:
        height = 30 + TREE_LINE * len(details.get(node.label, []))
        where[node.id] = (TREE_MARGIN + depth * TREE_INDENT, y, height)
        y += height + TREE_GAP
    edges = []
    for src in dict.fromkeys(src for src, _ in graph.edges):  # one rail down from each node, one arrow per edge
        x1, y1, h1 = where[src]
        ends = [where[dst] for s, dst in graph.edges if s == src]
        edges.append(f'<path class="edge" d="M {x1 + 12:.1f} {y1 + h1:.1f} V {max(y for _, y, _ in ends) + 17:.1f}"/>')
        edges.extend(f'<path class="edge" d="M {x1 + 12:.1f} {y2 + 17:.1f} H {x2 - 1:.1f}" marker-end="url(#arrow)"/>'
                     for x2, y2, _ in ends)
    boxes = []
    for node, _ in rows:
        x, y0, height = where[node.id]
        lines = details.get(node.label, [])
        boxes.append(f'<g class="node {classes.get(node.label, "")}">' + box(x, y0, right - x, height)
                     + text(x + 10, y0 + 20, node.label, anchor="start")
                     + "".join(text(x + 10, y0 + 20 + TREE_LINE * (i + 1), line, "detail", anchor="start")
                               for i, line in enumerate(lines)) + "</g>")
        if node.label in badges:
            boxes.append(badge(x, y0, badges[node.label]))
    return drawing(right + TREE_MARGIN, y - TREE_GAP + TREE_MARGIN, title, "".join(edges + boxes))


def creation_order(graph: AutogradGraph, top: str = "max") -> dict[str, str]:
    """Each node's sequence number counted from the first node the forward created; `top` for `AccumulateGrad`
    (`max`, as a figure's data keeps it; `words(en="max", es="máximo")` for what a reader sees).

    Sequence numbers come from a per-thread counter, so only their differences within one graph are stable.
    """
    first = min((n.sequence_nr for n in graph.nodes if n.name != "AccumulateGrad"), default=0)
    return {n.label: top if n.name == "AccumulateGrad" else str(n.sequence_nr - first) for n in graph.nodes}


def ready_order_is_by_sequence_nr(graph: AutogradGraph, order: list[str]) -> bool:
    """Whether `order` (node labels) is what the engine's rule gives on `graph`.

    The rule: a node runs once every node that feeds it a gradient has run; among the nodes ready at a
    step, the one with the highest sequence number runs first (ties in any order).
    """
    by_label = {n.label: n for n in graph.nodes}
    if sorted(order) != sorted(by_label) or len(set(order)) != len(order):
        return False
    pending = {n.id: sum(1 for _, dst in graph.edges if dst == n.id) for n in graph.nodes}
    ready = {n.id for n in graph.nodes if pending[n.id] == 0}
    seq = {n.id: n.sequence_nr for n in graph.nodes}
    for label in order:
        node_id = by_label[label].id
        if node_id not in ready or seq[node_id] != max(seq[r] for r in ready):
            return False
        ready.remove(node_id)
        for src, dst in graph.edges:
            if src == node_id:
                pending[dst] -= 1
                if pending[dst] == 0:
                    ready.add(dst)
    return True


@dataclass(frozen=True)
class TlsKeys:
    """The thread-local dispatch key sets every call's key set is adjusted with.

    Attributes:
        include: Keys added to every call's key set (`torch._C._dispatch_tls_local_include_set()`).
        exclude: Keys removed from every call's key set (`torch._C._dispatch_tls_local_exclude_set()`).
        autograd_excluded: Whether the exclude set holds `AutogradFunctionality`, the key whose exclusion
            turns off `AutogradCPU` and every other per-backend autograd key. That key never prints:
            `DispatchKeySet(AutogradFunctionality)` prints as `DispatchKeySet()`. `inference_mode` excludes
            all three keys of the autograd key set, and `exclude` lists the other two, `AutogradOther` and
            `AutogradNestedTensor`, which are separate keys, not names of the functionality.
    """

    include: tuple[str, ...]
    exclude: tuple[str, ...]
    autograd_excluded: bool


def tls_keys() -> TlsKeys:
    """The current thread's include and exclude sets."""
    exclude = torch._C._dispatch_tls_local_exclude_set()
    return TlsKeys(
        include=key_names(torch._C._dispatch_tls_local_include_set()),
        exclude=key_names(exclude),
        autograd_excluded=exclude.has(torch._C.DispatchKey.AutogradFunctionality),
    )


def call_key_set(*tensors: torch.Tensor) -> tuple[tuple[str, ...], str]:
    """The key set a call on `tensors` starts from, and its highest-priority key.

    As the dispatcher computes it: the union of the tensors' key sets, plus the thread-local include
    set, minus the exclude set. The dispatcher then also drops the keys where the operator's entry is a
    fallthrough (`BackendSelect`, `ADInplaceOrView` for most operators); that last step is op-specific
    and not applied here.
    """
    keys = torch._C._dispatch_keys(tensors[0])
    for tensor in tensors[1:]:
        keys = keys | torch._C._dispatch_keys(tensor)
    keys = (keys | torch._C._dispatch_tls_local_include_set()) - torch._C._dispatch_tls_local_exclude_set()
    return key_names(keys), keys.highestPriorityTypeId().name


def render_key_changes(before: TlsKeys, after: TlsKeys) -> str:
    """What a mode changed: keys added to or removed from the include and exclude sets."""
    def change(old: tuple[str, ...], new: tuple[str, ...]) -> str:
        added = [f"+{k}" for k in new if k not in old]
        removed = [f"-{k}" for k in old if k not in new]
        return " ".join(added + removed) or words(en="(unchanged)", es="(sin cambios)")
    return (f"{words(en='include', es='inclusión')} {change(before.include, after.include)}; "
            f"{words(en='exclude', es='exclusión')} {change(before.exclude, after.exclude)}")
# --8<-- [end:body]
