"""What the release notes under traces/lens/ say about the pinned torch, checked on the pinned torch; and that each
difference's label (release, build or both) agrees with the lines its diff changes."""

import contextlib
import io
import re
from collections import Counter
from pathlib import Path

import pytest
import torch

from hood.capture.compile import inductor_output
from hood.engine import lens
from hood.engine.traces import trace_body, without_header
from snippets.compile.guards import guards_of_head
from snippets.compile.heads import head

ROOT = Path(__file__).resolve().parents[1]
RELEASES = {r.release: r for r in lens.load(ROOT / "traces" / lens.LENS_DIR)}


def _pinned(entry: lens.LensEntry) -> str:
    return trace_body(ROOT / "traces" / entry.page.removesuffix(".md") / f"{entry.block_id}.txt") or ""


def test_the_head_has_five_dynamic_marking_guards_per_tensor_not_one_per_dimension():
    marking = [g.code for g in guards_of_head().guards if g.kind == "DIMENSION_DYNAMIC_MARKING_GUARD"]
    assert len(marking) == 15
    tensors = Counter(re.match(r"hasattr\(L\['(\w+)'\]", code)[1] for code in marking)
    assert tensors == {"W": 5, "b": 5, "x": 5}  # b has one dimension, W and x two: not one guard per dimension
    assert all(re.fullmatch(r"hasattr\(L\['\w+'\], '_dynamo_\w+_indices'\) == False", code) for code in marking)


def _guard_objects(manager):
    yield from manager.get_leaf_guards()
    for child in manager.get_child_managers():
        yield from _guard_objects(child)


def test_the_head_has_17_guards_checking_29_conditions_which_the_output_counts(capsys):
    """2.13.0 builds as many guard objects as 2.12.1 (17): three DIMENSION_DYNAMIC_MARKING_GUARD, one per tensor,
    of five conditions each, and no NO_HASATTR. render_guards' "N guards" counts the conditions (code parts)."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    guards_of_head()
    assert "compiled version 0/0: 29 guards" in capsys.readouterr().out
    (entry,) = _debug_get_cache_entry_list(head)
    guards = list(_guard_objects(entry.guard_manager.root))
    assert (len(guards), sum(len(g.verbose_code_parts()) for g in guards)) == (17, 29)
    kinds = Counter(type(g).__name__ for g in guards)
    assert kinds["DIMENSION_DYNAMIC_MARKING_GUARD"] == 3 and "NO_HASATTR" not in kinds
    assert [len(g.verbose_code_parts()) for g in guards if type(g).__name__ == "DIMENSION_DYNAMIC_MARKING_GUARD"] == [
        5, 5, 5]


def test_the_in_place_error_prints_the_nodes_name_without_backward():
    """Not the operator's name: aten::max's node MaxBackward1 is printed Max1."""
    h = torch.rand(2, 3, requires_grad=True).max()
    assert type(h.grad_fn).__name__ == "MaxBackward1"
    h.add_(1)
    with pytest.raises(RuntimeError, match="output 0 of Max1, is at version 1"):
        h.backward()


class _Exp(torch.autograd.Function):
    """exp as a custom Function: its node is _ExpBackward, with no number."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.saved_tensors[0]


@pytest.mark.parametrize("make, node, printed", [
    (torch.exp, "ExpBackward0", "Exp"),
    (lambda x: torch.pow(x, x + 1), "PowBackward1", "Pow1"),
    (lambda x: torch.pow(2.0, x), "PowBackward2", "Pow2"),
    (_Exp.apply, "_ExpBackward", "_Exp"),
])
def test_the_in_place_error_drops_backward_and_a_0_after_it(make, node, printed):
    """Each node saves its own output; after an in-place add the error names it: a 0 goes, another number stays."""
    h = make(torch.rand(3, requires_grad=True) + 0.5)
    assert h.grad_fn.name() == node
    h.add_(1)
    with pytest.raises(RuntimeError, match=f"output 0 of {printed}, is at version 1"):
        h.sum().backward()
    note = RELEASES["2.12.1"].notes["theory/02-autograd-and-custom-ops.md#inplace"]
    assert "and the number after it when that number is 0" in note["en"]


def test_the_in_place_error_does_not_always_name_the_node_that_saved_the_tensor():
    """sin saves h, which exp made; after h.mul_(3) the error names Mul, neither Sin nor Exp."""
    h = torch.rand(2, 3, requires_grad=True).exp()
    y = h.sin()
    assert torch.equal(y.grad_fn._saved_self, h)  # SinBackward0 saved h
    h.mul_(3)
    with pytest.raises(RuntimeError, match="output 0 of Mul, is at version 1"):
        y.sum().backward()
    note = RELEASES["2.12.1"].notes["theory/02-autograd-and-custom-ops.md#inplace"]
    assert "here ExpBackward0, which made the tensor and saved it" in note["en"]
    assert "aquí ExpBackward0, que creó el tensor y lo guardó" in note["es"]


def test_add_has_95_rows_on_the_cpu_build_missing_two_cuda_keys_and_named():
    """2.12.1's CUDA wheel prints 98 rows: the two CUDA keys the CPU build lacks, and a Named row 2.13.0 dropped."""
    rows = {line.split(":")[0] for line in torch._C._dispatch_dump_table("aten::add.Tensor").splitlines()}
    assert len(rows) == 95
    assert {k for k in torch._C.DispatchKey.__members__ if "CUDA" in k} - rows == {"SparseCUDA", "NestedTensorCUDA"}
    assert "Named" not in rows and "Named" not in torch._C.DispatchKey.__members__


def test_each_difference_is_labelled_by_the_lines_it_changes():
    """A difference is `build` when every changed line names CUDA, `both` when some do; the dump's row count keeps
    no names, so its label follows the count: two more rows are the two CUDA keys, more is the release too."""
    for release in RELEASES.values():
        for entry in release.entries.values():
            if entry.matched:
                continue
            label = release.origin(entry)
            if entry.key == "theory/01-dispatcher-and-aten.md#inspection-calls":
                more = int(re.search(r"returns (\d+) lines", without_header(entry.output))[1]) - 95
                assert label == ("build" if more == 2 else "both"), release.release
                continue
            assert label == lens.origin(_pinned(entry), without_header(entry.output)), (release.release, entry.key)


def test_a_release_page_diff_shows_no_trace_header():
    page = lens.release_page(RELEASES["2.12.1"], ROOT / "traces", "en")
    assert "+# page:" not in page and "A difference of the release and of the build (CUDA)." in page


def test_the_custom_op_output_is_aliased_not_allocated_in_2_13():
    """In the forward wrapper, buf1 only renames the op's output; 2.14.1 drops that name, so each later buffer
    is numbered one lower there."""
    from torch._inductor.utils import run_and_get_code

    from snippets.custom_ops.head import TemperatureHead, train_step
    from snippets.custom_ops.scaled_linear import define_scaled_linear
    from snippets.running_example import running_example

    define_scaled_linear()
    torch._dynamo.reset()
    x, W, b = running_example()
    with contextlib.redirect_stdout(io.StringIO()):
        _, codes = run_and_get_code(train_step, torch.compile(TemperatureHead(W, b), fullgraph=True), x,
                                    torch.tensor([3, 17]))
    forward = inductor_output(codes[0])
    assert "buf0 = torch.ops.hood.scaled_linear.default(" in forward.call
    assert re.search(r"^buf1 = buf0$", forward.call, re.MULTILINE)
    assert [name for name, _ in forward.buffers] == ["buf2", "buf3"]
    torch._dynamo.reset()
    entry = RELEASES["2.14.1"].entries["labs/02-custom-op.md#compiled"]
    numbers = [[int(n) for n in re.findall(r"buf(\d+)", line)] for text in (_pinned(entry), entry.output)
               for line in text.splitlines() if line.strip().startswith("cpp_fused__log_softmax_0(")]
    assert [n - 1 for n in numbers[0]] == numbers[1]


def test_report_md_names_the_torch_that_ran_lab_00_and_trace_log_does_not():
    """The deliverables block prints trace.log and the manifest, not REPORT.md, whose header is torch.__version__."""
    from hood.capture.common import localize
    from snippets.lab00 import run

    with contextlib.redirect_stdout(io.StringIO()):
        files = run.lab00_files()
    assert f"torch {torch.__version__}, seed 42." in localize(files["REPORT.md"], "en")
    assert "torch" not in files["trace.log"]
    for release in RELEASES.values():
        entry = release.entries["labs/00-trace-the-dispatcher.md#deliverables"]
        changed = [line for line in lens.diff(_pinned(entry), entry.output, release.release).splitlines()[2:]
                   if line[:1] in "+-"]
        assert changed == [f"{sign}manifest.json: lab lab00, torch {v}, seed 42" for sign, v in (("-", "2.13.0"),
                                                                                            ("+", release.release))]
        version = re.search(r"torch: (\S+)", release.entries["theory/00-why-open-the-hood.md#first-look"].output)[1]
        note = release.notes[entry.key]
        assert f"names it too (torch {version}); trace.log does not change" in note["en"]
        assert f"también lo nombra (torch {version}); trace.log no cambia" in note["es"]


def test_an_autograd_cuda_row_changes_with_the_release_not_the_build():
    """A CPU build has no CUDA kernel, yet its AutogradCUDA row shows AutogradCPU's autograd kernel. Under 2.12.1 both
    rows move to VariableType_3.cpp: a change of the release, and the label's guess says so."""
    assert not torch.backends.cuda.is_built()
    for op in ("aten::add.Tensor", "aten::mm"):
        rows = dict(line.split(": ", 1) for line in torch._C._dispatch_dump_table(op).splitlines())
        assert rows["AutogradCUDA"] == rows["AutogradCPU"] and "VariableType_" in rows["AutogradCPU"]
    entry = RELEASES["2.12.1"].entries["labs/00-trace-the-dispatcher.md#exercise-1"]

    def row(text: str, key: str) -> str:
        return next(line for line in text.splitlines() if line.startswith(f"| `{key}` |"))

    before, after = _pinned(entry), without_header(entry.output)
    for text in (before, after):
        assert row(text, "AutogradCUDA") == row(text, "AutogradCPU").replace("AutogradCPU", "AutogradCUDA")
    assert "VariableType_8.cpp" in row(before, "AutogradCUDA") and "VariableType_3.cpp" in row(after, "AutogradCUDA")
    assert lens.origin(row(before, "AutogradCUDA"), row(after, "AutogradCUDA")) == "release"
    for language, said in (("en", "`AutogradCUDA` shows the same autograd kernel as `AutogradCPU` in either build"),
                           ("es", "`AutogradCUDA` muestra el mismo kernel de autograd que `AutogradCPU` tanto en")):
        for release in RELEASES:
            page = ROOT / "docs" / language / "releases" / f"{release}.md"
            text = " ".join(page.read_text(encoding="utf-8").split())
            assert said in text and "only names CUDA" not in text and "solo menciona CUDA" not in text


def test_an_autograd_cuda_row_can_change_with_the_build_for_an_op_with_no_cuda_kernel_here():
    """mish_backward has a CPU and a math kernel here, so AutogradCUDA shows the math kernel, not AutogradCPU's
    autograd kernel. A CUDA build registers its CUDA kernel (native_functions.yaml); registering one turns the row into
    the autograd kernel, so that row follows the build."""
    from hood.capture.common import dispatch_table

    table = dispatch_table("aten::mish_backward")
    assert table["AutogradCPU"].kind == "autograd kernel" and "VariableType_" in table["AutogradCPU"].path
    assert table["AutogradCUDA"].kind == "math kernel" and "CompositeImplicitAutograd" in table["AutogradCUDA"].path
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("mish_backward", lambda grad, self: grad, "CUDA")
        registered = dispatch_table("aten::mish_backward")["AutogradCUDA"]
        assert (registered.kind, registered.path) == (table["AutogradCPU"].kind, table["AutogradCPU"].path)
    finally:
        lib._destroy()
    assert dispatch_table("aten::mish_backward")["AutogradCUDA"] == table["AutogradCUDA"]
    assert torch.__version__.startswith("2.13.0")  # the wheel packages native_functions.yaml at its tag
    packaged = Path(torch.__file__).parent.parent / "torchgen" / "packaged" / "ATen" / "native"
    lines = (packaged / "native_functions.yaml").read_text().splitlines()[5251:5257]  # L5252-L5257
    assert lines[0].startswith("- func: mish_backward(") and lines[3].strip() == "CPU, CUDA: mish_backward"
    assert lines[-1].strip() == "CompositeImplicitAutograd: math_mish_backward"
    anchor = "blob/v2.13.0/aten/src/ATen/native/native_functions.yaml#L5252-L5257"
    said = {"en": ("for `add` and `mm`", "so there that row can change with the build"),
            "es": ("para `add` y `mm`", "así que ahí esa fila puede cambiar por ser una versión para CUDA")}
    for language in said:
        for release in RELEASES:
            text = " ".join((ROOT / "docs" / language / "releases" / f"{release}.md").read_text().split())
            assert anchor in text and all(part in text for part in said[language]), (language, release)


def test_cell_stands_for_the_block_that_defined_the_code_not_the_block_shown(tmp_path):
    """A function defined in one block and traced in a later one: its graph's `File:` names the first block.
    So 2.14.1's aot-graphs diff shows `<cell> in head`, `head` coming from theory 03's setup block."""
    from hood.engine.blocks import page_blocks, project_snippets_config
    from hood.engine.engine import Block, Engine
    from hood.engine.normalize import normalise_text
    from hood.engine.settings import Settings

    setup = "import torch\n\n\ndef head(x):\n    return torch.sin(x)\n"
    shown = ("from snippets.compile.aot_graphs import aot_graphs, readable\n"
             "print(readable(aot_graphs(head, torch.randn(2, requires_grad=True))['joint']))\n")
    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-cell")
    try:
        engine.run(Block("p.md", "setup", setup, "s"))
        output = engine.run(Block("p.md", "shown", shown, "s")).output
    finally:
        engine.close()
        torch._dynamo.reset()
    assert "File: <p.md#setup>:5 in head" in output and "<p.md#shown>" not in output
    assert "File: <cell> in head" in normalise_text(output)
    page = "theory/03-compile.md"
    blocks = {p.block.block_id: p.block.code for p in page_blocks(
        page, (ROOT / "docs" / "en" / page).read_text(encoding="utf-8"), project_snippets_config(ROOT))}
    assert "def head(" in blocks["setup"] and "def head(" not in blocks["aot-graphs"]
    assert "File: <cell> in head" in RELEASES["2.14.1"].entries[f"{page}#aot-graphs"].output
    said = {"en": "`<cell>` stands for the file name of the block that defined the code, which may be the page's "
                  "setup block rather than the block shown",
            "es": "`<cell>` sustituye al nombre de archivo del bloque que definió el código, que puede ser el "
                  "bloque de preparación de la página y no el bloque mostrado"}
    for language, sentence in said.items():
        for release in RELEASES:
            text = " ".join((ROOT / "docs" / language / "releases" / f"{release}.md").read_text().split())
            assert sentence in text and "own file name" not in text and "propio bloque" not in text


@pytest.mark.usefixtures("like_a_block")
def test_the_integer_division_flag_is_four_kernel_lines_two_above_and_two_below_every_cited_line():
    """So the cited kernel lines move by two, not four: the flag's other two lines close the kernel."""
    from snippets.lab03.annotated_kernel import listing, place_notes
    from snippets.lab03.compile_head import compile_head

    with torch._inductor.config.patch({"cpp.threads": 2}), contextlib.redirect_stdout(io.StringIO()):
        head_code, _ = compile_head()
    kernel = listing(head_code, "kernel")
    flag = [n for n, line in enumerate(kernel, 1) if "integer_div_error" in line]
    cited = {n for note in place_notes(head_code) for n in note.lines["kernel"]}
    assert len(kernel) == 73 and len(flag) == 4
    assert flag[:2] == [n for n in flag if n < min(cited)] and flag[2:] == [n for n in flag if n > max(cited)]
    note = RELEASES["2.12.1"].notes["labs/03-compile-and-survey.md#annotated-kernel"]
    assert "two lines at its top and two at its end (these two below every line cited)" in note["en"]
    assert "dos líneas al principio y dos al final (estas dos, por debajo de todas las líneas citadas)" in note["es"]


@pytest.mark.usefixtures("like_a_block")
def test_backward_of_forward_node_marks_nodes_the_backward_traced_even_those_the_forward_graph_computes():
    """2.13.0 already tags them (autograd_backward): from detach_1 on, though the partitioner computes detach_1 and
    t_1 in the forward. 2.14.1 prints its new comment above detach_1, tagged fw, and inside lab 03's forward graph."""
    from snippets.compile.aot_graphs import aot_graphs
    from snippets.compile.aot_partition import side_of_each_node
    from snippets.compile.heads import TinyHead, head
    from snippets.running_example import running_example

    graphs = aot_graphs(head, *running_example())
    side = side_of_each_node(graphs)
    traced = [n.name for n in graphs["joint"].graph.nodes if n.meta.get("autograd_backward")]
    assert traced[:3] == ["detach_1", "_softmax_backward_data", "t_1"]
    assert side["detach_1"] == side["t_1"] == "fw"
    torch._dynamo.reset()
    forward = aot_graphs(TinyHead(), torch.randn(2, 64))["forward"]
    assert [n.name for n in forward.graph.nodes if n.meta.get("autograd_backward")] == ["detach_1"]
    joint = RELEASES["2.14.1"].entries["theory/03-compile.md#aot-graphs"].output.splitlines()
    at = next(i for i, line in enumerate(joint) if "# Backward of forward node:" in line)
    assert joint[at + 1].startswith("fw         detach_1:")
    lab = RELEASES["2.14.1"].entries["labs/03-compile-and-survey.md#head-graphs"].output
    forward_part = lab.split("forward graph")[1].split("-----")[0]
    assert "# Backward of forward node:" in forward_part and "detach_1: " in forward_part
    notes = RELEASES["2.14.1"].notes
    for key, en, es in (
            ("theory/03-compile.md#aot-graphs", "ties the nodes the backward traced to the forward line; the first, "
             "detach_1, is tagged fw", "ata los nodos que trazó el backward a la línea del forward; el primero, "
             "detach_1, lleva fw"),
            ("labs/03-compile-and-survey.md#head-graphs", "annotates the nodes the backward traced",
             "anota los nodos que trazó el backward")):
        assert en in notes[key]["en"] and es in notes[key]["es"], key


@pytest.mark.usefixtures("like_a_block")
def test_the_tiny_kernel_without_openmp_carries_the_four_line_flag_too():
    """reading-outputs' kernel has no parallel region, yet 2.13.0 writes the flag: 24 lines, 20 without it."""
    from snippets.reading.compiled import compile_tiny

    with contextlib.redirect_stdout(io.StringIO()):
        _, generated = compile_tiny()
    (source,) = inductor_output(generated).kernels.values()
    lines = source.splitlines()
    assert "omp" not in source and len(lines) == 24
    assert len([line for line in lines if "integer_div_error" in line]) == 4
    assert "a kernel 4 lines shorter without the integer-division error flag" in RELEASES["2.12.1"].notes[
        "reference/reading-outputs.md#inductor-wrapper"]["en"]


@pytest.mark.usefixtures("like_a_block")
def test_the_partitioner_marks_the_sin_it_recomputes_as_a_backward_node():
    """In the joint graph sin is a forward node; its copy in the backward graph carries autograd_backward, so 2.14.1
    prints "Backward of forward node" right above it."""
    from snippets.compile.recompute import recomputed_in_backward

    with contextlib.redirect_stdout(io.StringIO()):
        graphs = recomputed_in_backward()
    joint = {n.name: n.meta.get("autograd_backward") for n in graphs["joint"].graph.nodes if n.op == "call_function"}
    backward = [(n.name, n.meta.get("autograd_backward")) for n in graphs["backward"].graph.nodes
                if n.op == "call_function"]
    assert joint["sin"] is None and backward[0] == ("sin", True) and all(mark for _, mark in backward)
    output = RELEASES["2.14.1"].entries["theory/03-compile.md#recompute"].output.splitlines()
    at = next(i for i, line in enumerate(output) if "# Backward of forward node:" in line)
    assert output[at + 1].strip().startswith("sin: ")
    assert "comment on the sin it computes again" in RELEASES["2.14.1"].notes["theory/03-compile.md#recompute"]["en"]
