"""What theory 02 says about the autograd engine, asserted on the functions its blocks call."""

import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hood.capture.autograd import key_names
from hood.capture.common import localize
from hood.capture.figure import figure_data
from hood.capture.keys import effective_keys
from hood.capture.tables import table_rows

from snippets.autograd.autograd_key import autograd_key_events, autograd_slots
from snippets.autograd.diagrams import draw_linear_graph, draw_mlp_graph
from snippets.autograd.engine_order import draw_engine_order, engine_order
from snippets.autograd.grad_modes import grad_modes
from snippets.autograd.graph_walk import walk_linear
from snippets.autograd.hooks import hook_order
from snippets.autograd.inference_results import inference_results
from snippets.autograd.inplace import version_counter
from snippets.autograd.retain_grad import retain_grad_demo
from snippets.autograd.saved_hooks import count_saved_tensors
from snippets.custom_ops.record_ops import RecordOps
from snippets.running_example import running_example

SVG = "{http://www.w3.org/2000/svg}"


def test_linear_graph_nodes_edges_and_saved_values(capsys):
    graph = walk_linear()
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert graph.labels() == [
        "AddmmBackward0", "AccumulateGrad(b)", "AccumulateGrad(x)", "TBackward0", "AccumulateGrad(W)"]
    assert len(graph.nodes) == 5  # "Five nodes in all"
    assert out.splitlines()[0] == "AddmmBackward0 -> AccumulateGrad(b), AccumulateGrad(x), TBackward0"
    saved = {v.name: v for v in graph.node("AddmmBackward0").saved}
    assert saved["mat1"].is_name == "x"
    assert saved["mat2"].is_name is None and saved["mat2"].shares_with == "W" and saved["mat2"].shape == (64, 600)
    assert saved["alpha"].value == "1" and saved["beta"].value == "1"
    assert "node._saved_mat1 is x: True" in out and "same memory (data_ptr): True" in out
    assert "node._saved_mat2 is W: False" in out
    assert "mat2 is W seen through a transpose: True strides (1, 64) vs W (64, 1)" in out
    spanish = localize(printed, "es")
    assert "    guarda mat1 (2, 64), que es x\n    guarda mat2 (64, 600), que comparte memoria con W" in spanish
    assert "mat2 es W vista a través de una transposición: True strides (1, 64) frente a W (64, 1)" in spanish


def svg_boxes(svg: str, language: str = "en") -> dict[str, str]:
    """Each box of a drawing: its label, and its detail lines joined by `, `."""
    root = ET.fromstring(re.search(r"<svg\b.*?</svg>", localize(svg, language), re.DOTALL).group(0))
    boxes = {}
    for group in root.iter(f"{SVG}g"):
        texts = list(group.iter(f"{SVG}text"))
        boxes[texts[0].text] = ", ".join(t.text for t in texts if t.get("class") == "detail")
    return boxes


def assert_a_figure_in_two_languages(output: str) -> str:
    """The figure's words differ between the languages, its data does not hold any: return the data."""
    assert output.count('<figure class="hood-figure">') == 1
    assert localize(output, "en") != localize(output, "es")
    data = figure_data(output)
    assert "\u27e6" not in data and "<svg" not in data
    return data


def test_diagrams_are_drawn_from_the_real_graphs(capsys):
    linear = draw_linear_graph()
    out = capsys.readouterr().out
    boxes = svg_boxes(out)
    assert set(boxes) == set(linear.labels())
    assert boxes["AddmmBackward0"] == "mat1 is x, mat2 shares W's memory"
    assert svg_boxes(out, "es")["AddmmBackward0"] == "mat1 es x, mat2 comparte memoria con W"  # same data
    assert "<figcaption>" in out
    # "an arrow goes from a node to each of its next_functions": AddmmBackward0 to b, x, TBackward0; TBackward0 to W
    svg = re.search(r"<svg\b.*?</svg>", localize(out, "en"), re.DOTALL).group(0)
    assert len([p for p in ET.fromstring(svg).iter(f"{SVG}path") if p.get("marker-end")]) == len(linear.edges) == 4
    # the caption: two nodes record the forward, one AccumulateGrad per leaf
    assert [n.name for n in linear.nodes if n.name != "AccumulateGrad"] == ["AddmmBackward0", "TBackward0"]
    assert sorted(n.variable for n in linear.nodes if n.name == "AccumulateGrad") == ["W", "b", "x"]
    data = assert_a_figure_in_two_languages(out)
    assert "  AccumulateGrad(b)\n  AccumulateGrad(x)\n  TBackward0\n    AccumulateGrad(W)" in data
    assert "AddmmBackward0: mat1 (2, 64) is x, mat2 (64, 600) shares memory with W" in data

    mlp = draw_mlp_graph()
    out = capsys.readouterr().out
    boxes = svg_boxes(out)
    assert set(boxes) == set(mlp.labels())
    assert boxes["AddmmBackward0[1]"] == "mat1 is x, mat2 shares W1's memory"  # the first layer, created first
    assert boxes["AddmmBackward0[2]"] == "mat1 is h, mat2 shares W2's memory"
    assert boxes["ReluBackward0"] == "result shares h's memory"
    assert boxes["LogSoftmaxBackward0"] == "result shares logp's memory"
    assert boxes["NllLossBackward0"].startswith("self is logp, target")
    # the caption: seven nodes record the forward, five AccumulateGrad nodes
    assert len([n for n in mlp.nodes if n.name != "AccumulateGrad"]) == 7
    assert len([n for n in mlp.nodes if n.name == "AccumulateGrad"]) == 5
    data = assert_a_figure_in_two_languages(out)
    assert len(data.strip().splitlines()) == 1 + len(mlp.nodes)  # "[figure]", then one line per node, no "also"
    assert "    AddmmBackward0[2]: mat1 (2, 128) is h, mat2 (128, 600) shares memory with W2" in data


def test_engine_order_follows_dependencies_and_sequence_numbers(capsys):
    graph, ran = engine_order()
    printed = capsys.readouterr().out
    assert "ready nodes ran highest sequence_nr first: True" in localize(printed, "en")
    spanish = localize(printed, "es").splitlines()
    assert spanish[0] == "paso  nodo                 sequence_nr (desde el primer nodo creado)"
    assert spanish[4] == "   4  AccumulateGrad(b2)   máximo"  # the columns stay aligned
    assert ran[ran.index("AddmmBackward0[2]") + 1] == "AccumulateGrad(b2)"
    assert graph.node("TBackward0[2]").sequence_nr > graph.node("ReluBackward0").sequence_nr
    assert ran.index("TBackward0[2]") < ran.index("ReluBackward0")
    assert ran.index("AccumulateGrad(W2)") < ran.index("ReluBackward0")
    assert {graph.node(label).sequence_nr for label in ran if label.startswith("AccumulateGrad")} == {2**64 - 1}
    nexts = {dst for src, dst in graph.edges if src == graph.node("AddmmBackward0[2]").id}
    assert {n.label for n in graph.nodes if n.id in nexts} == {"AccumulateGrad(b2)", "TBackward0[2]", "ReluBackward0"}


def test_engine_order_drawn_on_the_graph(capsys):
    graph, ran = engine_order()
    capsys.readouterr()
    early = draw_engine_order(graph, ran)
    out = capsys.readouterr().out
    root = ET.fromstring(re.search(r"<svg\b.*?</svg>", localize(out, "en"), re.DOTALL).group(0))
    badges = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "badge-text"]
    drawn = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "label"]
    assert sorted(badges, key=int) == [str(n) for n in range(1, 13)]
    assert [drawn[badges.index(str(n))] for n in range(1, 13)] == ran  # each badge is the step the node ran at
    # "The two highlighted boxes ... are drawn last ... yet they ran fifth and sixth, before the ReLU's branch"
    assert early == ["TBackward0[2]", "AccumulateGrad(W2)"] == drawn[-2:]
    assert [ran.index(label) + 1 for label in early] == [5, 6] and ran.index("ReluBackward0") + 1 == 7
    assert drawn.index("ReluBackward0") < drawn.index("TBackward0[2]") and drawn != ran  # not run in drawn order
    highlighted = [g for g in root.iter(f"{SVG}g") if "accent" in g.get("class")]
    assert [next(g.iter(f"{SVG}text")).text for g in highlighted] == early
    assert "sequence_nr 3" in [t.text for t in root.iter(f"{SVG}text")]
    assert "sequence_nr máximo" in [t.text for t in ET.fromstring(re.search(
        r"<svg\b.*?</svg>", localize(out, "es"), re.DOTALL).group(0)).iter(f"{SVG}text")]
    data = assert_a_figure_in_two_languages(out)
    assert "      TBackward0[2]: step 5, sequence_nr 3" in data
    assert data.strip().endswith("highlighted: TBackward0[2], AccumulateGrad(W2)")


def test_hook_order(capsys):
    fired, b_grad = hook_order()
    assert [localize(event, "en") for event in fired] == [
        "tensor hook on y", "prehook of AddmmBackward0", "hook of AddmmBackward0", "tensor hook on b",
        "tensor hook on x", "prehook of TBackward0", "hook of TBackward0", "tensor hook on W",
        "post-accumulate-grad hook on W",
    ]
    assert torch.equal(b_grad, torch.full((600,), 4.0))
    assert "[4.0, 4.0, 4.0]" in capsys.readouterr().out
    assert localize(fired[-1], "es") == "hook post-acumulación en W"


def test_a_tensor_hook_runs_before_node_prehooks_whatever_the_registration_order():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    order = []
    y.grad_fn.register_prehook(lambda g: order.append("node prehook"))
    y.register_hook(lambda g: order.append("tensor hook"))
    y.sum().backward()
    assert order == ["tensor hook", "node prehook"]


def test_a_leaf_hook_runs_before_accumulation():
    x = torch.randn(3, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(x.grad))
    (x * 2).sum().backward()
    assert seen == [None] and x.grad is not None


def test_saved_tensor_hooks_count(capsys):
    counts, packed = count_saved_tensors()
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "tras el forward:  empaquetados 9 desempaquetados 0" in localize(printed, "es")
    assert "after forward:  packed 9 unpacked 0" in out
    assert counts == {"pack": 9, "unpack": 9}
    assert "each packed tensor unpacked once: True" in out  # "reads each of the nine once"
    assert packed == [(2, 64), (64, 128), (2, 128), (2, 128), (128, 600), (2, 600), (2, 600), (2,), ()]


def test_retain_grad(capsys):
    plain, kept = retain_grad_demo()
    out = localize(capsys.readouterr().out, "en")
    assert plain is None
    assert "warning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed." in out
    assert torch.equal(kept, torch.ones(2, 600))
    assert "W.grad accumulated over the two backward passes: True" in out


def test_no_grad_versus_inference_mode(capsys):
    modes = grad_modes()
    inference_results(modes)
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "  estado del hilo: inclusión -ADInplaceOrView; exclusión +AutogradOther" in localize(printed, "es")
    default, no_grad, inference = modes["default"], modes["no_grad"], modes["inference_mode"]
    # no_grad: nothing changes in dispatch; the autograd kernel records nothing (the warning box's "does").
    assert no_grad[0] == default[0]
    assert default[1] == no_grad[1] == "AutogradCPU"
    y = no_grad[2]
    assert not y.requires_grad and y.grad_fn is None and not y.is_inference()
    assert "AutogradCPU" in repr(torch._C._dispatch_keys(y))
    assert "no_grad result in y * W.sum() (mul saves y): fine" in out
    # inference_mode: autograd excluded, ADInplaceOrView no longer included.
    keys = inference[0]
    assert keys.autograd_excluded and not default[0].autograd_excluded
    assert "TLS: include -ADInplaceOrView; exclude +AutogradOther +AutogradNestedTensor" in out
    # "excludes all three keys of the autograd key set", the third one printing as an empty set
    assert keys.exclude[:2] == ("AutogradOther", "AutogradNestedTensor")
    assert "the AutogradFunctionality key inference_mode excludes, alone in a set, prints as DispatchKeySet()" in out
    # the call's set still holds ADInplaceOrView, a fallthrough for addmm that the dispatcher drops: addmm runs at CPU
    assert inference[1] == "CPU"
    assert "  a call on x, W, b: CPU, BackendSelect, ADInplaceOrView\n" in out
    assert "without aten::addmm's fallthroughs: CPU -> aten::addmm runs at CPU" in out
    assert "without aten::linear's fallthroughs: CPU, AutogradCPU -> aten::linear runs at AutogradCPU" in out
    from hood.capture.custom_ops import dispatch_rows
    adinplace = next(r for r in dispatch_rows("aten::addmm") if r.key == "ADInplaceOrView")
    assert adinplace.fallthrough
    y = inference[2]
    assert y.is_inference() and repr(torch._C._dispatch_keys(y)) == "DispatchKeySet(CPU, AutocastCPU)"
    assert ("inference_mode result in y * W.sum() (mul saves y): "
            "RuntimeError: Inference tensors cannot be saved for backward.") in out


def test_an_inference_result_enters_a_recorded_add_whose_backward_runs(capsys):
    """`y + b` records AddBackward0 and its backward runs, for the inference_mode result too."""
    outcomes = inference_results(grad_modes())
    assert {name: localize(said, "en") for name, said in outcomes.items()} == {
        "no_grad": "fine", "inference_mode": "RuntimeError: Inference tensors cannot be saved for backward."}
    out = localize(capsys.readouterr().out, "en")
    for name in ("no_grad", "inference_mode"):
        assert (f"{name} result in y + b (add saves no input): grad_fn AddBackward0, "
                "backward gives b a gradient of shape (600,)") in out


def test_autograd_key_records_then_redispatches():
    events = [localize(event, "en") for event in autograd_key_events()]
    assert events == [
        "Python key (below autograd) runs aten.t.default",
        "  its output: requires_grad=False, grad_fn=None",
        "autograd key saves (2, 64) for backward (x)",
        "autograd key saves (64, 600) for backward (W, transposed)",
        "Python key (below autograd) runs aten.addmm.default",
        "  its output: requires_grad=False, grad_fn=None",
        "back at the caller: y.grad_fn = AddmmBackward0",
    ]
    assert not any("linear" in event for event in events)  # linear never reaches the Python key


def test_a_dispatch_mode_sees_backward_on_the_calling_thread():
    """The second warning box: backward ops reach the mode, on the thread that called backward()."""
    threads = []

    class Threads(RecordOps):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            threads.append(threading.get_ident())
            return super().__torch_dispatch__(func, types, args, kwargs)

    x, W, b = running_example()
    y = F.linear(x, W, b)
    with Threads() as rec:
        y.sum().backward()
    assert "aten.mm.default" in rec.ops and set(threads) == {threading.get_ident()}
    assert rec.ops.count("aten.detach.default") == 3  # one per leaf, as AccumulateGrad stores it



def test_an_inference_tensor_can_enter_a_graph_but_is_never_saved_for_backward():
    with torch.inference_mode():
        t_inf = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    y = t_inf + w  # add saves neither input
    assert type(y.grad_fn).__name__ == "AddBackward0"
    y.sum().backward()
    assert torch.equal(w.grad, torch.ones(3))
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        t_inf * w  # mul saves both inputs


def test_inference_mode_excludes_three_autograd_keys_and_prints_two():
    x = torch.ones(2)
    with torch.inference_mode():
        exclude = torch._C._dispatch_tls_local_exclude_set()
        effective = key_names(effective_keys(x))
    assert "AutogradCPU" in key_names(effective_keys(x)) and "AutogradCPU" not in effective  # turned off
    assert exclude.has(torch._C.DispatchKey.AutogradFunctionality)
    assert key_names(exclude)[:2] == ("AutogradOther", "AutogradNestedTensor")
    assert repr(torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)) == "DispatchKeySet()"


def test_linear_holds_a_math_kernel_at_autograd_cpu_where_addmm_holds_an_autograd_kernel():
    rows = {op: {r.key: r for r in table_rows(op)} for op in ("aten::linear", "aten::addmm")}
    assert rows["aten::linear"]["AutogradCPU"].kind == "math kernel"
    assert rows["aten::addmm"]["AutogradCPU"].kind == "autograd kernel"


def test_autograd_slots_of_the_three_operators_of_linear(capsys):
    """What the block prints first: a math kernel for linear, generated autograd kernels for t and addmm."""
    slots = autograd_slots()
    out = localize(capsys.readouterr().out, "en")
    assert list(slots) == ["aten::linear", "aten::t", "aten::addmm"]
    linear = slots["aten::linear"]
    assert linear.kind == "math kernel" and linear.source.endswith("RegisterCompositeImplicitAutograd_0.cpp")
    for op in ("aten::t", "aten::addmm"):
        assert slots[op].kind == "autograd kernel"
        assert slots[op].source.startswith("torch/csrc/autograd/generated/VariableType_")
    assert "AutogradCPU of aten::linear  math kernel" in out


def test_t_and_addmm_have_derivative_formulas_in_derivatives_yaml():
    """The generated autograd kernels of t and addmm come from their entries in derivatives.yaml."""
    import torchgen

    formulas = (Path(torchgen.__file__).parent / "packaged" / "autograd" / "derivatives.yaml").read_text()
    names = set(re.findall(r"^- name: ([\w.]+)\(", formulas, flags=re.MULTILINE))
    assert {"t", "addmm"} <= names


def test_an_in_place_op_on_a_saved_tensor_bumps_its_version_and_backward_refuses_it(capsys):
    """Each in-place op (through a view too) adds one to `_version`; backward names the versions; out of place works."""
    versions, error = version_counter()
    out = localize(capsys.readouterr().out, "en")
    assert versions == [0, 1, 2, 3]
    assert error.startswith("one of the variables needed for gradient computation has been modified by an inplace")
    assert "[torch.FloatTensor [2, 600]]" in error and "is at version 3; expected version 0 instead." in error
    assert "out of place, h = h + 1: backward runs; W.grad (600, 64)" in out


def test_the_version_check_is_made_on_saved_tensors_when_backward_unpacks_them():
    """The in-place op itself succeeds; a tensor that no node saved can be modified in place freely."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    h = y.exp()
    y.add_(1)  # exp saved its output, not y: backward is fine
    h.sum().backward()
    h = F.linear(x, W, b).exp()
    h.add_(1)  # no error here, only at backward
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        h.sum().backward()


def test_what_the_version_counter_counts():
    """In-place methods, indexed writes and `out=` each add one; a view shares its base's counter."""
    t = torch.zeros(4)
    view = t[1:]
    t.add_(1)
    t[0] = 5.0
    torch.mul(torch.ones(4), 2, out=t)
    view.mul_(3)
    assert t._version == view._version == 4
    assert torch.zeros(4)._version == 0


def test_the_autograd_cuda_slot_holds_the_same_generated_kernel_as_the_cpu_one():
    """"On a GPU": AutogradCUDA holds the autograd kernel AutogradCPU holds (read on this CPU build)."""
    table = torch._C._dispatch_dump_table("aten::addmm")
    rows = {line.split(":", 1)[0]: line.split(":", 1)[1] for line in table.splitlines() if ":" in line}
    assert rows["AutogradCUDA"] == rows["AutogradCPU"]
    assert rows["AutogradCUDA"].endswith("[autograd kernel]") and "VariableType_" in rows["AutogradCUDA"]
