"""Every claim the page "How to read these outputs" makes, asserted on the functions its blocks print."""

from __future__ import annotations

import operator
import re

import pytest
import torch

from hood.capture.collectives import render_ranks, run_ranks
from hood.capture.common import localize
from snippets.reading.ranks import all_reduce_rank
from hood.capture.compile import inductor_output, render_inductor_summary
from hood.engine.normalize import normalise
from hood.stdout import printed
from snippets.reading import compiled, grad_chain, key_set, mode_lines, profile_table, table_cells, walk_line
from snippets.reading.tiny import tiny_inputs


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_key_set_four_tensor_keys_autocast_excluded_autograd_first():
    view = quiet(key_set.read_key_set)
    assert view.tensor == ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]
    assert view.include == ["BackendSelect", "ADInplaceOrView"]
    assert view.exclude and all(k.startswith("Autocast") for k in view.exclude) and "AutocastCPU" in view.exclude
    assert "AutocastCPU" not in view.effective and "BackendSelect" in view.effective
    assert view.first == "AutogradCPU"


def test_table_matmul_is_math_mm_has_autograd_and_cpu_kernels_both_fall_through():
    tables = quiet(table_cells.read_table)
    matmul, mm = tables["aten::matmul"], tables["aten::mm"]
    for key in ("AutogradCPU", "CPU"):
        assert (matmul[key].kind, matmul[key].source) == ("math kernel", "RegisterCompositeImplicitAutograd_0.cpp")
    assert mm["AutogradCPU"].kind == "autograd kernel" and mm["AutogradCPU"].source.startswith("VariableType_")
    assert (mm["CPU"].kind, mm["CPU"].source) == ("kernel", "RegisterCPU_0.cpp")
    for table in (matmul, mm):
        for key in ("ADInplaceOrView", "BackendSelect"):
            assert table[key].fallthrough and table[key].kind == "backend fallback"


def test_walk_t_redispatches_through_three_keys_and_nested_calls_start_at_cpu():
    steps = quiet(walk_line.read_walk)
    assert [(s.op, s.key, s.kernel) for s in steps if s.op == "aten.t.default"] == [
        ("aten.t.default", "AutogradCPU", "Autograd"),
        ("aten.t.default", "ADInplaceOrView", "ADInplaceOrView"),
        ("aten.t.default", "CPU", "CompositeExplicitAutograd"),
    ]
    nested = [s for s in steps if s.op in ("aten.transpose.int", "aten.as_strided.default")]
    assert {s.op for s in nested} == {"aten.transpose.int", "aten.as_strided.default"}
    assert all(s.key == "CPU" for s in nested)
    assert [s.kernel for s in nested if s.op == "aten.as_strided.default"] == ["CPU"]
    assert steps[0].op == "aten.t.default"


def test_grad_fn_chain_nodes_edges_and_saved_values():
    graph = quiet(grad_chain.read_grad_chain)
    assert graph.labels() == ["AddBackward0", "ReluBackward0", "MmBackward0", "AccumulateGrad(x)",
                              "AccumulateGrad(w)"]
    labels = {n.id: n.label for n in graph.nodes}
    edges = [(labels[a], labels[b]) for a, b in graph.edges]
    assert ("MmBackward0", "AccumulateGrad(x)") in edges and ("MmBackward0", "AccumulateGrad(w)") in edges
    assert not [e for e in edges if e[0].startswith("AccumulateGrad")]
    add, relu, mm = (graph.node(label) for label in ("AddBackward0", "ReluBackward0", "MmBackward0"))
    assert [(v.name, v.shape, v.value) for v in add.saved] == [("alpha", None, "1")]
    assert [(v.name, v.shape) for v in relu.saved] == [("result", (2, 4))]
    assert {v.name: v.is_name for v in mm.saved} == {"self": "x", "mat2": "w"}


def test_mode_log_no_matmul_detach_from_autograd_results_never_grad():
    calls = quiet(mode_lines.read_mode_lines)
    assert [c.op for c in calls] == ["aten::mm", "aten::relu", "aten::detach", "aten::add.Tensor"]
    assert calls[0].args == ("f32[2, 3] grad", "f32[3, 4] grad")
    assert calls[-1].args == ("f32[2, 4] grad", "1")
    assert not any("grad" in c.out for c in calls)
    with torch.no_grad():
        without_grad = quiet(mode_lines.read_mode_lines)
    assert "aten::detach" not in [c.op for c in without_grad]


@pytest.fixture(scope="module")
def compiled_tiny():
    graph, code = quiet(compiled.compile_tiny)
    return graph, inductor_output(code)


def test_fx_graph_two_placeholders_three_python_level_calls_one_output(compiled_tiny):
    graph, _ = compiled_tiny
    nodes = list(graph.graph.nodes)
    assert [n.op for n in nodes] == ["placeholder", "placeholder", "call_function", "call_function",
                                     "call_function", "output"]
    assert [n.target for n in nodes[:2]] == ["L_x_", "L_w_"]
    assert [n.target for n in nodes[2:5]] == [operator.matmul, torch.relu, operator.add]
    assert "l_x_ = l_w_ = None" in graph.code
    assert "return (add,)" in graph.code


def test_inductor_wrapper_asserts_one_buffer_reused_extern_mm_one_fused_kernel(compiled_tiny):
    _, wrapper = compiled_tiny
    assert "assert_size_stride(arg0_1, (2, 3), (3, 1)" in wrapper.call
    assert "assert_size_stride(arg1_1, (3, 4), (4, 1)" in wrapper.call
    assert wrapper.buffers == [("buf0", "(2, 4)")]
    assert "buf1 = buf0; del buf0  # reuse" in wrapper.call
    assert wrapper.extern_calls == ["extern_kernels.mm"]
    assert wrapper.kernel_calls == ["cpp_fused_add_relu_0"] and list(wrapper.kernels) == ["cpp_fused_add_relu_0"]
    assert "cpp_fused_add_relu_0(buf1)" in wrapper.call
    source = wrapper.kernels["cpp_fused_add_relu_0"]
    assert "in_out_ptr0" in source and "at::vec::Vectorized" in source
    assert "library calls: extern_kernels.mm" in render_inductor_summary(wrapper)


@pytest.fixture(scope="module")
def profiled():
    return quiet(profile_table.read_profile)


def test_profiler_trace_keeps_names_calls_shapes_and_drops_times(profiled):
    table, _ = profiled
    header = next(line for line in table.splitlines() if "Name" in line).split("  ")
    header = [cell.strip() for cell in header if cell.strip()]
    assert header == ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls",
                      "Input Shapes"]
    traced = normalise(table)
    assert "profiler table: Name | # of Calls | Input Shapes" in traced
    assert "Self CPU time total: <time>" in traced
    rows = [line for line in traced.splitlines() if line.startswith("aten::")]
    assert rows == sorted(rows)


def test_profiler_prints_rows_by_decreasing_cpu_total(profiled):
    table, _ = profiled
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
    totals = []
    for line in table.splitlines():
        if line.strip().startswith("aten::"):
            value = line.split()[4]  # Name, Self CPU %, Self CPU, CPU total %, CPU total
            number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()
            totals.append(float(number) * scale[unit])
    assert len(totals) > 1 and totals == sorted(totals, reverse=True)


def test_profiler_rows_nested_calls_and_scalar_conversion(profiled):
    _, rows = profiled
    shapes = {(r.name, r.shapes) for r in rows}
    assert ("aten::matmul", "[[2, 3], [3, 4]]") in shapes and ("aten::mm", "[[2, 3], [3, 4]]") in shapes
    names = {r.name for r in rows}
    assert {"aten::relu", "aten::clamp_min"} <= names
    conversion = ("aten::to", "aten::_to_copy", "aten::empty_strided", "aten::copy_")
    for name in conversion:
        row = next(r for r in rows if r.name == name)
        assert set(row.shapes.replace(" ", "")[1:-1].split(",")) == {"[]"}
    x, w = tiny_inputs(requires_grad=False)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        torch.relu(x @ w)
    alone = {e.key for e in prof.key_averages()}
    assert not alone & set(conversion)


def test_rank_dictionary_before_differs_after_is_the_sum():
    results = [{localize(key, "en"): value for key, value in r.items()} for r in run_ranks(all_reduce_rank)]
    assert [r["before all_reduce"] for r in results] == [[1.0], [2.0]]
    assert [r["after all_reduce"] for r in results] == [[3.0], [3.0]]
    assert all(r["world size"] == 2 for r in results)
    spanish = localize(render_ranks(run_ranks(all_reduce_rank)), "es").splitlines()
    assert spanish[:4] == ["rank 0", "  número de ranks: 2", "  antes del all_reduce: [1.0]",
                           "  después del all_reduce: [3.0]"]


def test_key_set_sentences_hold_outside_a_context_and_name_their_exceptions():
    include, exclude = torch._C._dispatch_tls_local_include_set, torch._C._dispatch_tls_local_exclude_set
    assert "ADInplaceOrView" in str(include()) and "BackendSelect" in str(include())
    with torch.no_grad():  # grad mode is a flag, not a key: the sets stay as they are
        assert "ADInplaceOrView" in str(include())
    with torch.inference_mode():  # inference mode drops ADInplaceOrView and excludes autograd keys
        assert "ADInplaceOrView" not in str(include()) and "Autograd" in str(exclude())
    with torch.autocast("cpu"):  # asking for autocast takes AutocastCPU out of the exclude set
        assert "AutocastCPU" not in str(exclude())
    assert "AutocastCPU" in str(exclude())


def test_the_intro_no_longer_sends_the_reader_to_the_projects_files():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "docs"
    for lang in ("en", "es"):
        text = (root / lang / "reference" / "reading-outputs.md").read_text()
        assert "project's files" not in text and "archivos del\nproyecto" not in text
        assert "Windows" in text and "fork" in text
