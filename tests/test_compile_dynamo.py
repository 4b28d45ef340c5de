"""Theory 03, Dynamo: what the page says about the captured graph, the guards, the breaks and the recompiles."""

import dis

import pytest
import torch

from hood.capture.common import localize
from hood.capture.compile import Guard, cache_entries, guard_failures, render_guards
from snippets.compile.dynamo_graph import dynamo_graph
from snippets.compile.graph_breaks import chatty_head, graph_breaks
from snippets.compile.guards import guards_of_head
from snippets.compile.heads import head
from snippets.compile.mark_dynamic import compiles_with_and_without_mark_dynamic
from snippets.compile.recompiles import recompiles
from snippets.compile.scalar_capture import scalar_capture_fix
from snippets.compile.torch_logs import torch_logs_recipes
from snippets.running_example import running_example


pytestmark = pytest.mark.usefixtures("like_a_block")


def test_bytecode_loads_softmax_and_linear_as_globals(capsys):
    dynamo_graph()
    ins = [(i.opname, i.argrepr) for i in dis.get_instructions(head)]
    assert ("LOAD_GLOBAL", "NULL + torch") in ins and ("LOAD_ATTR", "softmax") in ins
    assert ("LOAD_GLOBAL", "NULL + F") in ins and ("LOAD_ATTR", "linear") in ins
    assert "LOAD_ATTR     softmax" in capsys.readouterr().out


def test_dynamo_graph_has_two_torch_level_calls_and_named_inputs(capsys):
    (gm,) = dynamo_graph()
    calls = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert calls == [torch._C._nn.linear, torch.softmax]
    assert [n.target for n in gm.graph.nodes if n.op == "placeholder"] == ["L_x_", "L_W_", "L_b_"]
    assert "aten" not in gm.code  # linear is not decomposed yet
    out = localize(capsys.readouterr().out, "en")
    assert "linear = torch._C._nn.linear(l_x_, l_w_, l_b_)" in out and "graphs captured: 1" in out


def test_guards_pin_tensors_globals_and_global_state(capsys):
    entry = guards_of_head()
    kinds = [g.kind for g in entry.guards]
    tensor = [g.code for g in entry.guards if g.kind == "TENSOR_MATCH"]
    assert len(tensor) == 3
    x_guard = next(c for c in tensor if "L['x']" in c)
    for part in ("DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)", "torch.float32",
                 "requires_grad=True", "size=[2, 64]", "stride=[64, 1]"):
        assert part in x_guard
    ids = [g.code for g in entry.guards if g.kind == "ID_MATCH"]
    assert len(ids) == 4
    for source in ("G['torch']", "G['torch'].softmax", "G['F']", "G['F'].linear"):
        assert any(code.startswith(f"___check_obj_id({source}, <id>)") for code in ids), source
    (state,) = [g.code for g in entry.guards if g.kind == "GLOBAL_STATE"]
    assert '"grad_mode":true' in state and '"num_threads":2' in state
    assert kinds.count("GLOBAL_STATE") == 1
    out = localize(capsys.readouterr().out, "en")
    assert "a batch of 3 against version 0/0: tensor 'L['x']' size mismatch at index 0. expected 2, actual 3" in out


def test_guards_pass_for_the_same_shape_and_render_counts():
    x, W, b = running_example()
    torch.compile(head, backend="eager")(x, W, b)
    assert guard_failures(head, {"x": x, "W": W, "b": b}) == [("0/0", [])]
    text = render_guards(cache_entries(head)[0])
    assert "TENSOR_MATCH" in text and "x3" in text and "0x" not in text


def test_guard_text_loses_object_ids_and_user_comments():
    from hood.capture.compile import _clean

    raw = "___check_obj_id(G['torch'], 139977636944272), type=<class 'module'>  # return f(x)  # a.py:7 in f"
    assert _clean(raw) == "___check_obj_id(G['torch'], <id>), type=<class 'module'>"
    assert Guard("ID_MATCH", _clean(raw)).code.endswith("<class 'module'>")


def test_two_breaks_make_three_graphs(capsys):
    explanation = graph_breaks()
    out = localize(capsys.readouterr().out, "en")
    assert explanation.graph_count == 3 and explanation.graph_break_count == 2
    first, second = (r.reason.splitlines()[0] for r in explanation.break_reasons)
    assert "builtin operator" in first
    assert "Tensor.item()" in second
    assert out.splitlines()[0] == "logits: (2, 600)"  # the print ran in plain Python, before the summary
    assert "graph 1 calls: ['linear']" in out
    assert "graph 2 calls: ['max']" in out
    assert "graph 3 calls: ['sub', 'softmax']" in out


def test_fullgraph_turns_the_first_break_into_an_error():
    x, W, b = running_example()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="print"):
        torch.compile(chatty_head, backend="eager", fullgraph=True)(x, W, b)


def test_recompiles_then_dynamic_then_specialised_one(capsys):
    counter = recompiles()
    out = localize(capsys.readouterr().out, "en")
    counts = [int(line.rsplit(" ", 1)[1]) for line in out.splitlines() if line.startswith("batch")]
    assert counts == [1, 1, 2, 2, 2, 3]
    assert "graph 2 inputs: s77 SymInt, l_x_ (s77, 64)" in out
    assert "graph 3 inputs: l_x_ (1, 64)" in out
    static, dynamic, one = reversed(cache_entries(head))
    assert any("size=[2, 64]" in g.code for g in static.guards)
    assert any("size=[None, 64]" in g.code for g in dynamic.guards)
    assert [g.code for g in dynamic.shape_guards] == ["2 <= L['x'].size()[0]"]
    assert static.shape_guards == [] and one.shape_guards == []
    rendered = render_guards(dynamic)
    for language, label in (("en", "shape guards"), ("es", "guardas de forma")):  # aligned with the guard kinds
        lines = localize(rendered, language).splitlines()
        assert f"  {label:<32} x1" in lines, lines
    assert any("size=[1, 64]" in g.code for g in one.guards)
    assert counter.frame_count == 3


def test_dynamic_true_compiles_once_and_recompile_limit_is_eight():
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    compiled = torch.compile(head, backend=counter, dynamic=True)
    _, W, b = running_example()
    for n in (2, 3, 64):
        compiled(torch.randn(n, 64), W, b)
    assert counter.frame_count == 1
    assert torch._dynamo.config.recompile_limit == 8


def test_replacing_a_traced_global_invalidates_the_graph(monkeypatch):
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    compiled = torch.compile(head, backend=counter)
    x, W, b = running_example()
    compiled(x, W, b)
    compiled(x, W, b)
    assert counter.frame_count == 1
    original = torch.softmax
    monkeypatch.setattr(torch, "softmax", lambda *args, **kwargs: original(*args, **kwargs))
    compiled(x, W, b)
    assert counter.frame_count == 2  # the ID_MATCH guard on torch.softmax failed


def test_capture_scalar_outputs_removes_the_item_break_only(capsys):
    """The page: three graphs become two; the print break stays; the option is restored after the block."""
    assert scalar_capture_fix() == {False: 3, True: 2}
    out = localize(capsys.readouterr().out, "en")
    assert "capture_scalar_outputs=True: 2 graphs, breaks: ['Failed to trace builtin operator']" in out
    assert "Tensor.item()" in out.split("capture_scalar_outputs=True")[0]
    assert torch._dynamo.config.capture_scalar_outputs is False


def test_mark_dynamic_saves_the_recompile():
    """The page: over batches 2, 3, 4, 64 the head compiles twice as is, once with dimension 0 marked."""
    assert compiles_with_and_without_mark_dynamic() == {False: 2, True: 1}


def test_torch_logs_recipes_print_the_lines_the_page_reads(capsys):
    """The page: each recipe's lines to read, as the prose describes them."""
    shown = torch_logs_recipes()
    breaks = shown["graph_breaks"]
    assert [line for line in breaks if not line.startswith("Graph break in user code")] == [
        "Failed to trace builtin operator", "Unsupported Tensor.item() call with capture_scalar_outputs=False"]
    assert sum(line.startswith("Graph break in user code") for line in breaks) == 2
    assert shown["recompiles"][0].startswith("Recompiling function head")
    assert shown["recompiles"][1] == "- 0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3"
    x_guards = [line for line in shown["guards"] if "TENSOR_MATCH" in line]
    assert len(x_guards) == 2 and "size=[2, 64]" in x_guards[0] and "size=[None, 64]" in x_guards[1]
    assert "if not (2 <= L['x'].size()[0]):" in shown["guards"]
    assert shown["output_code"][0].startswith("cpp_fused__softmax_0 = async_compile")
    assert any(line.startswith("extern_kernels.addmm(") for line in shown["output_code"])
    assert "cpp_fused__softmax_0(buf0, buf1, buf3, buf4)" in shown["output_code"]
    out = localize(capsys.readouterr().out, "en")
    assert "TORCH_LOGS=guards:" in out and "r'''" not in out and "Guard eval latency" not in out
