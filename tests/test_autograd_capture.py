"""`hood.capture.autograd`: walking real graphs, saved values, the engine's rule, key sets."""

import xml.etree.ElementTree as ET

import torch

from hood.capture.common import localize
from hood.capture.autograd import (
    AutogradGraph, GraphNode, autograd_graph, call_key_set, creation_order, graph_svg, key_names,
    ready_order_is_by_sequence_nr, render_graph, render_key_changes, saved_values, tls_keys, tree_rows, tree_text,
    walk,
)

SVG = "{http://www.w3.org/2000/svg}"


def small_graph():
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    out = (a.exp() * b).sum()
    return a, b, out


def test_walk_visits_each_node_once_breadth_first():
    a, b, out = small_graph()
    names = [type(fn).__name__ for fn, _ in walk(out)]
    assert names == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad", "AccumulateGrad"]
    assert list(walk(a)) == []  # a leaf has no grad_fn: nothing to walk


def test_autograd_graph_names_leaves_and_saved_tensors():
    a, b, out = small_graph()
    graph = autograd_graph(out, {"a": a, "b": b})
    assert graph.labels() == ["SumBackward0", "MulBackward0", "ExpBackward0", "AccumulateGrad(b)", "AccumulateGrad(a)"]
    assert ("n1", "n2") in graph.edges and ("n1", "n3") in graph.edges
    mul = {v.name: v for v in graph.node("MulBackward0").saved}
    assert mul["other"].is_name == "b" and mul["self"].is_name is None and mul["self"].shape == (3,)
    exp = {v.name: v for v in graph.node("ExpBackward0").saved}
    assert exp["result"].is_name is None and exp["result"].shares_with is None  # e = a.exp() was not named
    assert graph.node("AccumulateGrad(a)").sequence_nr == 2**64 - 1


def test_repeated_classes_are_numbered_in_creation_order():
    x = torch.randn(2, 3, requires_grad=True)
    first = x.exp()
    second = first.exp()
    graph = autograd_graph(second.sum(), {"x": x})
    assert graph.labels()[:3] == ["SumBackward0", "ExpBackward0[2]", "ExpBackward0[1]"]
    assert graph.node("ExpBackward0[1]").sequence_nr < graph.node("ExpBackward0[2]").sequence_nr


def test_saved_values_describe_tensors_and_scalars():
    x = torch.randn(2, 4, requires_grad=True)
    W = torch.randn(3, 4, requires_grad=True)
    y = torch.nn.functional.linear(x, W)
    values = {v.name: v for v in saved_values(y.grad_fn, {"x": x, "W": W})}
    assert values["self"].describe() == "self (2, 4) is x"
    assert values["mat2"].describe() == "mat2 (4, 3) shares memory with W"
    assert localize(values["mat2"].brief(), "en") == "mat2 shares W's memory"
    assert localize(values["mat2"].brief(), "es") == "mat2 comparte memoria con W"


def test_render_graph_lists_next_nodes_and_saved_values():
    a, b, out = small_graph()
    text = render_graph(autograd_graph(out, {"a": a, "b": b}))
    assert text.splitlines()[1] == "MulBackward0 -> ExpBackward0, AccumulateGrad(b)"
    assert "    saved other (3,) is b" in localize(text, "en")
    assert "    guarda other (3,), que es b" in localize(text, "es")


def test_graph_svg_draws_every_node_with_its_saved_tensors():
    a, b, out = small_graph()
    graph = autograd_graph(out, {"a": a, "b": b})
    root = ET.fromstring(localize(graph_svg(graph, "small"), "en"))
    labels = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "label"]
    details = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "detail"]
    assert labels == [node.label for node, _ in tree_rows(graph)]  # one row per node, in the tree's order
    assert details == ["other is b", "self (3,)", "result (3,)"]  # one line per saved tensor, in name order
    arrows = [p for p in root.iter(f"{SVG}path") if p.get("marker-end")]
    assert len(arrows) == len(graph.edges)
    spanish = ET.fromstring(localize(graph_svg(graph, "small"), "es"))
    assert "other es b" in [t.text for t in spanish.iter(f"{SVG}text")]


def test_graph_svg_marks_and_colours_boxes_by_label():
    a, b, out = small_graph()
    graph = autograd_graph(out, {"a": a, "b": b})
    svg = graph_svg(graph, "small", details={}, badges={"MulBackward0": "2"}, classes={"ExpBackward0": "accent"})
    root = ET.fromstring(svg)
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "badge-text"] == ["2"]
    assert [g.get("class") for g in root.iter(f"{SVG}g") if "accent" in g.get("class")] == ["node accent"]
    assert not [t for t in root.iter(f"{SVG}text") if t.get("class") == "detail"]


def test_tree_rows_go_depth_first_in_argument_order():
    a, b, out = small_graph()
    graph = autograd_graph(out, {"a": a, "b": b})
    rows = [(node.label, depth) for node, depth in tree_rows(graph)]
    assert rows == [("SumBackward0", 0), ("MulBackward0", 1), ("ExpBackward0", 2), ("AccumulateGrad(a)", 3),
                    ("AccumulateGrad(b)", 2)]
    assert tree_text(graph).splitlines() == [
        "SumBackward0", "  MulBackward0: other (3,) is b, self (3,)", "    ExpBackward0: result (3,)",
        "      AccumulateGrad(a)", "    AccumulateGrad(b)"]


def test_a_node_fed_twice_is_drawn_once_and_its_second_edge_listed():
    a = torch.randn(3, requires_grad=True)
    out = (a.exp() + a).sum()
    graph = autograd_graph(out, {"a": a})
    assert [node.label for node, _ in tree_rows(graph)].count("AccumulateGrad(a)") == 1
    assert tree_text(graph).splitlines()[-1] == "also AddBackward0 -> AccumulateGrad(a)"
    root = ET.fromstring(graph_svg(graph, "twice"))
    assert len([p for p in root.iter(f"{SVG}path") if p.get("marker-end")]) == len(graph.edges) == 4


def test_creation_order_counts_from_the_first_node_created():
    a, b, out = small_graph()
    order = creation_order(autograd_graph(out, {"a": a, "b": b}))
    assert order == {"SumBackward0": "2", "MulBackward0": "1", "ExpBackward0": "0",
                     "AccumulateGrad(b)": "max", "AccumulateGrad(a)": "max"}
    shown = creation_order(autograd_graph(out, {"a": a, "b": b}), top="máximo")
    assert shown["AccumulateGrad(a)"] == "máximo" and shown["SumBackward0"] == "2"


def chain(n: int) -> AutogradGraph:
    nodes = tuple(GraphNode(f"n{i}", "F", f"F{i}", sequence_nr=10 - i) for i in range(n))
    return AutogradGraph(nodes, tuple((f"n{i}", f"n{i + 1}") for i in range(n - 1)))


def test_ready_rule_accepts_the_engine_order_and_rejects_others():
    graph = AutogradGraph(
        (GraphNode("r", "R", "R", 9), GraphNode("lo", "L", "L", 1), GraphNode("hi", "H", "H", 5)),
        (("r", "lo"), ("r", "hi")),
    )
    assert ready_order_is_by_sequence_nr(graph, ["R", "H", "L"])
    assert not ready_order_is_by_sequence_nr(graph, ["R", "L", "H"])  # L is ready but not the highest
    assert not ready_order_is_by_sequence_nr(chain(3), ["F1", "F0", "F2"])  # F1 before its producer
    assert not ready_order_is_by_sequence_nr(chain(3), ["F0", "F1"])  # a node missing


def test_key_names_and_changes():
    assert key_names(torch._C._dispatch_keys(torch.ones(1))) == ("CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU")
    default = tls_keys()
    with torch.inference_mode():
        inside = tls_keys()
    assert localize(render_key_changes(default, default), "en") == "include (unchanged); exclude (unchanged)"
    assert localize(render_key_changes(default, default), "es") == "inclusión (sin cambios); exclusión (sin cambios)"
    assert localize(render_key_changes(default, inside), "en").startswith("include -ADInplaceOrView; exclude +")


def test_call_key_set_follows_the_modes():
    x = torch.ones(2, requires_grad=True)
    assert call_key_set(x)[1] == "AutogradCPU"
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert call_key_set(x)[1] == "AutocastCPU"
    with torch.inference_mode():
        keys, first = call_key_set(x)
    assert first == "ADInplaceOrView" and "AutogradCPU" not in keys
