"""Theory 03, AOTAutograd and Inductor: the joint graph, the partition, the generated code and the caches."""

import re
import tempfile
import xml.etree.ElementTree as ET

import pytest
import torch

from hood.capture.common import localize
from hood.capture.figure import figure_data, without_data
from hood.capture.compile import (
    CACHE_COUNTERS,
    CompileRun,
    inductor_output,
    render_compile_runs,
    render_inductor_summary,
)
from snippets.compile.aot_graphs import saved_for_backward
from snippets.compile.aot_partition import show_aot_graphs, side_of_each_node
from snippets.compile.caches import ARTIFACTS, cache_hit_hides_artifacts
from snippets.compile.heads import head
from snippets.compile.compile_debug import debug_folder_listing
from snippets.compile.inductor_code import generated_code
from snippets.compile.inductor_summary import show_inductor_code
from snippets.compile.partition_diagram import partition_diagram
from snippets.compile.pipeline_diagram import calls, pipeline_diagram
from snippets.running_example import running_example


pytestmark = pytest.mark.usefixtures("like_a_block")


def aten_ops(gm):
    return [n.target.__name__ for n in gm.graph.nodes if n.op == "call_function"]


@pytest.fixture(scope="module")
def shown_graphs():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        graphs = show_aot_graphs()
    return graphs, out.getvalue()


@pytest.fixture(scope="module")
def graphs(shown_graphs):
    return shown_graphs[0]


def test_joint_graph_is_printed_once_with_each_operator_tagged_by_its_side(shown_graphs):
    """The page: `t_1` sits among the backward operators but is tagged `fw`; two `detach`; `x = None` lines."""
    graphs, out = shown_graphs
    assert out.count("class inner_f") == 1 and "class GraphModule" not in out
    side = side_of_each_node(graphs)
    assert [name for name, s in side.items() if s == "fw"] == ["t", "addmm", "_softmax", "detach", "detach_1", "t_1"]
    names = list(side)
    assert names.index("t_1") > names.index("_softmax_backward_data") and side["t_1"] == "fw"
    tagged = {line.split()[1].rstrip(":"): line[:2] for line in out.splitlines() if line[:2] in ("fw", "bw")}
    assert tagged == side
    assert [n for n in names if n.startswith("detach")] == ["detach", "detach_1"]
    assert "primals_2 = None" in out and "addmm = None" in out
    assert len(out.splitlines()) <= 40


def test_joint_graph_runs_forward_then_backward(graphs):
    ops = aten_ops(graphs["joint"])
    assert ops[:3] == ["t.default", "addmm.default", "_softmax.default"]
    assert ops.index("_softmax_backward_data.default") > ops.index("_softmax.default")
    assert ops.count("mm.default") == 2 and "sum.dim_IntList" in ops and "view.default" in ops
    placeholders = [n.name for n in graphs["joint"].graph.nodes if n.op == "placeholder"]
    assert placeholders == ["primals_1", "primals_2", "primals_3", "tangents_1"]
    (output,) = [n for n in graphs["joint"].graph.nodes if n.op == "output"]
    assert len(output.args[0]) == 4  # the output and the three gradients


def test_forward_saves_x_the_softmax_output_and_w_but_not_the_logits(graphs):
    assert saved_for_backward(graphs) == [("primals_1", (2, 64)), ("detach_1", (2, 600)), ("t_1", (600, 64))]
    (output,) = [n for n in graphs["forward"].graph.nodes if n.op == "output"]
    returned = [a.name for a in output.args[0]]
    assert returned == ["_softmax", "primals_1", "detach_1", "t_1"]
    assert "addmm" not in returned


def test_pipeline_diagram_counts(capsys):
    """The pipeline figure: its boxes carry the counts of the real graphs; its trace keeps only those counts."""
    graphs = pipeline_diagram()
    out = capsys.readouterr().out
    assert [calls(graphs[k]) for k in ("dynamo", "joint", "forward", "backward")] == [2, 14, 6, 8]

    def details(language):
        svg = localize(without_data(out), language)
        root = ET.fromstring(svg[svg.index("<svg"):svg.index("</svg>") + len("</svg>")])
        return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "detail"]

    english, spanish = details("en"), details("es")
    assert "joint, 14 ATen ops" in english and "6 ATen ops" in english and "8 ATen ops" in english
    assert "FX, 2 torch calls" in english and "FX, 2 llamadas a torch" in spanish
    assert "grafo conjunto, 14 operadores de ATen" in spanish and "6 operadores de ATen" in spanish
    assert localize(out, "en") != localize(out, "es")
    kept = figure_data(out)
    assert "\u27e6" not in kept
    assert kept.splitlines()[2:] == ["dynamo graph: 2 calls", "joint graph: 14 calls", "forward graph: 6 calls",
                                     "backward graph: 8 calls"]


@pytest.fixture(scope="module")
def partition(graphs):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cut = partition_diagram(graphs)
    return cut, out.getvalue()


def test_partition_figure_saves_three_tensors_and_recomputes_nothing(partition, graphs):
    """The page: three arrows from primals_1, detach_1, t_1 (returned after _softmax) to the backward's first
    three inputs, the fourth is tangents_1; gradients of x, W, b are mm, t_4, view; nothing is recomputed."""
    cut, _ = partition
    assert cut.saved == ["primals_1", "detach_1", "t_1"] == [name for name, _ in saved_for_backward(graphs)]
    (output,) = [n for n in graphs["forward"].graph.nodes if n.op == "output"]
    assert [a.name for a in output.args[0]] == ["_softmax", *cut.saved]
    assert [v.name for v in cut.backward[:4]] == [*cut.saved, "tangents_1"]
    assert [v.role for v in cut.backward[:4]] == ["saved", "saved", "saved", "tangent"]
    assert {v.name: v.role for v in cut.forward if v.role != "op"} == {
        "primals_1": "saved", "primals_2": "input", "primals_3": "input", "_softmax": "output",
        "detach_1": "saved", "t_1": "saved"}
    gradients = [(v.name, v.of) for v in cut.backward if v.role == "gradient"]
    assert sorted(gradients, key=lambda g: "xWb".index(g[1])) == [("mm", "x"), ("t_4", "W"), ("view", "b")]
    (bw_output,) = [n for n in graphs["backward"].graph.nodes if n.op == "output"]
    assert [a.name for a in bw_output.args[0]] == ["mm", "t_4", "view"]
    assert cut.recomputed == [] and not any(v.role == "recomputed" for v in cut.backward)
    forward_ops = {v.name for v in cut.forward}
    assert not forward_ops & {v.name for v in cut.backward if v.role != "saved"}


def test_partition_figure_draws_one_arrow_per_saved_tensor_in_both_languages(partition):
    cut, out = partition
    english, spanish = localize(out, "en"), localize(out, "es")
    assert english != spanish and "forward graph" in english and "grafo del forward" in spanish
    assert "recomputed in the backward: nothing" in english and "recalculado en el backward: nada" in spanish
    assert english.count('marker-end="url(#arrow)"') == len(cut.saved) == 3
    # "primals_1 is x itself ... its box has the colour of the saved tensors and not that of the inputs W and b"
    forward_boxes = re.findall(r'<g class="node ([^"]*)">.*?<text[^>]*>([^<]*)</text>', english)[:len(cut.forward)]
    colour = {name: css for css, name in forward_boxes}
    assert colour["primals_1"] == colour["detach_1"] == colour["t_1"] == "accent"
    assert colour["primals_2"] == colour["primals_3"] == "c1"
    assert [v.of for v in cut.forward[:3]] == ["x", "W", "b"]
    kept = figure_data(out)
    assert "\u27e6" not in kept and "<svg" not in kept
    assert "saved: primals_1, detach_1, t_1" in kept and "recomputed: none" in kept
    assert len(kept.splitlines()) == 1 + len(cut.forward) + len(cut.backward) + 2


@pytest.fixture(scope="module")
def head_code():
    torch.set_num_threads(2)
    return show_inductor_code()


def test_wrapper_leaves_the_matmul_to_the_library_and_launches_one_kernel(head_code):
    assert head_code.extern_calls == ["extern_kernels.addmm"]
    assert list(head_code.kernels) == ["cpp_fused__softmax_0"]
    assert head_code.kernel_calls == ["cpp_fused__softmax_0"]
    assert "out=buf0)" in next(line for line in head_code.call.splitlines() if "extern_kernels.addmm" in line)
    assert "cpp_fused__softmax_0(buf0, buf1, buf3, buf4)" in head_code.call
    assert dict(head_code.buffers) == {"buf0": "(2, 600)", "buf1": "(2, 1)", "buf3": "(2, 1)", "buf4": "(2, 600)"}
    assert "return (buf4, )" in head_code.call


def test_kernel_uses_openmp_and_avx2_vectors(head_code):
    src = head_code.kernels["cpp_fused__softmax_0"]
    assert "#pragma omp" in src and "at::vec::Vectorized<float>" in src
    summary = render_inductor_summary(head_code)
    assert "uses OpenMP, at::vec::Vectorized" in localize(summary, "en")
    assert localize(summary, "es").splitlines()[-2:] == [
        "    cpp_fused__softmax_0: 73 líneas de C++, usa OpenMP, at::vec::Vectorized",
        "kernels externos: extern_kernels.addmm"]


def test_simdlen_counts_bits():
    import torch._inductor.config as inductor_config
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    with inductor_config.patch({"cpp.simdlen": 256}):
        isa = pick_vec_isa()
        assert type(isa).__name__ == "VecAVX2" and isa.bit_width() == 256 and isa.nelements(torch.float) == 8
    with inductor_config.patch({"cpp.simdlen": 8}):
        assert not pick_vec_isa()  # no instruction set is 8 bits wide: Inductor falls back to scalar code


def test_simdlen_8_generates_plain_loops():
    import torch._inductor.config as inductor_config
    from torch._inductor.utils import run_and_get_code

    x, W, b = running_example()
    with inductor_config.patch({"cpp.simdlen": 8}), torch.no_grad():
        _, (code,) = run_and_get_code(torch.compile(head), x, W, b)
    out = inductor_output(code)
    src = out.kernels["cpp_fused__softmax_0"]
    assert "at::vec::Vectorized" not in src and "Vectorized" not in render_inductor_summary(out)
    assert src.count("x1+=static_cast<int64_t>(1L)") == 3  # one float at a time


def test_inductor_output_parses_a_minimal_module():
    code = (
        "cpp_fused_x_0 = async_compile.cpp_pybinding(['const float*'], r'''\nvoid kernel() {}\n''')\n\n"
        "class Runner:\n    def call(self, args):\n        buf0 = empty_strided_cpu((3, ), (1, ), torch.float32)\n"
        "        extern_kernels.mm(a, b, out=buf0)\n        cpp_fused_x_0(buf0)\n        return (buf0, )\n\n"
        "runner = Runner(partitions=[])\n"
    )
    out = inductor_output(code)
    assert out.kernels == {"cpp_fused_x_0": "void kernel() {}\n"}
    assert out.extern_calls == ["extern_kernels.mm"] and out.kernel_calls == ["cpp_fused_x_0"]
    assert out.buffers == [("buf0", "(3, )")]
    assert out.call.splitlines()[0].startswith("buf0 = ")


def test_generated_code_is_inference_only_and_matches_eager():
    x, W, b = running_example()
    y, modules = generated_code(head, x, W, b)
    assert len(modules) == 1 and "_inference']" in modules[0].splitlines()[0]
    assert torch.allclose(y, head(x, W, b), atol=1e-6)


def test_a_cache_hit_skips_post_grad_and_ir_logs(capsys):
    first, second = cache_hit_hides_artifacts()
    out = capsys.readouterr().out
    assert first.cache == {
        "fxgraph_cache_miss": 1, "fxgraph_cache_hit": 0, "autograd_cache_miss": 1, "autograd_cache_hit": 0}
    assert second.cache == {
        "fxgraph_cache_miss": 0, "fxgraph_cache_hit": 1, "autograd_cache_miss": 0, "autograd_cache_hit": 1}
    for artifact in ("post_grad_graphs", "ir_pre_fusion", "ir_post_fusion"):
        assert first.artifacts[artifact] > 0 and second.artifacts[artifact] == 0, artifact
    assert 0 < second.artifacts["aot_graphs"] < first.artifacts["aot_graphs"]
    assert second.artifacts["output_code"] > 0
    assert first.code == second.code
    assert "same generated code both times: True" in localize(out, "en")
    assert "el mismo código generado las dos veces: True" in localize(out, "es")
    assert set(first.artifacts) == set(ARTIFACTS)


def test_the_watch_leaves_logging_as_it_found_it():
    import logging

    from torch._logging._internal import log_registry

    before = {name: list(logging.getLogger(name).handlers) for name in log_registry.get_log_qnames()}
    cache_hit_hides_artifacts()
    after = {name: list(logging.getLogger(name).handlers) for name in log_registry.get_log_qnames()}
    assert [len(h) for h in before.values()] == [len(h) for h in after.values()]


def test_cache_folder_default_and_the_switch_to_disable_it():
    import torch._inductor.config as inductor_config
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    assert default_cache_dir().startswith(tempfile.gettempdir())
    assert inductor_config.force_disable_caches is False


def test_render_compile_runs_has_one_column_per_run():
    runs = [CompileRun(dict.fromkeys(CACHE_COUNTERS, 0), {"graph_code": 1}, ""),
            CompileRun(dict.fromkeys(CACHE_COUNTERS, 1), {"graph_code": 0}, "")]
    table = render_compile_runs(runs)
    lines, spanish = localize(table, "en").splitlines(), localize(table, "es").splitlines()
    assert lines[0].split() == ["empty", "cache", "cache", "hit"]
    assert lines[-1].split() == ["graph_code", "1", "0"]
    assert spanish[0].split() == ["caché", "vacía", "con", "acierto"] and "entradas de TORCH_LOGS:" in spanish
    for language in (lines, spanish):  # each column's heading ends where its numbers end
        assert {len(line) for line in language if "TORCH_LOGS" not in line} == {len(language[0])}


def test_compile_debug_writes_under_the_working_directory_and_a_cache_hit_writes_no_graph_folder(capsys):
    """The page: everything under torch_compile_debug/, one folder for the one graph with its artefacts; a cache
    hit writes the logs and no graph folder."""
    listing = debug_folder_listing()
    assert all(path.startswith("torch_compile_debug/") for path in listing)
    graph = "torch_compile_debug/run_<date>-pid_<pid>/torchinductor/model__0_inference_0.0/"
    for name in ("fx_graph_readable.py", "fx_graph_runnable.py", "fx_graph_transformed.py", "ir_pre_fusion.txt",
                 "ir_post_fusion.txt", "output_code.py"):
        assert graph + name in listing, name
    assert "torch_compile_debug/run_<date>-pid_<pid>/torchdynamo/debug.log" in listing
    assert capsys.readouterr().out.splitlines() == listing
    debug_folder_listing(graph_caches=True)  # fills the cache, if an earlier run has not
    hit = debug_folder_listing(graph_caches=True)
    assert not any("model__0_inference" in path for path in hit)
    assert any(path.endswith("debug.log") for path in hit)


@pytest.mark.parametrize("page", ["theory/03-compile.md", "labs/03-compile-and-survey.md"])
def test_no_two_modules_of_a_setup_block_define_the_same_name(page):
    """A setup block runs its modules in one namespace: a name defined twice would silently replace the first
    (a drawing's box height, say), so each top-level name comes from one module."""
    import ast
    import re

    from tests.sitekit import ROOT

    text = (ROOT / "docs" / "en" / page).read_text(encoding="utf-8")
    setup = text[text.index('id="setup"'):].split("```", 1)[0]
    owners: dict[str, list[str]] = {}
    for include in re.findall(r'--8<-- "([^"]+)"', setup):
        path, _, section = include.partition(":")
        source = next(p for p in (ROOT / "snippets" / path, ROOT / "src" / path) if p.exists()).read_text()
        if section:
            source = source.split(f"# --8<-- [start:{section}]")[1].split(f"# --8<-- [end:{section}]")[0]
        for node in ast.parse(source).body:
            targets = ([node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else
                       [n.id for t in getattr(node, "targets", [getattr(node, "target", None)]) if t is not None
                        for n in ast.walk(t) if isinstance(n, ast.Name)])
            for name in targets:
                owners.setdefault(name, []).append(path)
    assert {name: paths for name, paths in owners.items() if len(paths) > 1} == {}
