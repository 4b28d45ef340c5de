"""Theory 03, beyond its example: the cases a skeptical read tried against its general sentences."""

import contextlib
import getpass
import inspect
import math
import os
import sys
import tempfile
from unittest import mock

import pytest
import torch
from torch._dynamo.backends.common import aot_autograd
from torch._dynamo.testing import CompileCounter, CompileCounterWithBackend

from hood.capture.compile import artifact_messages, cache_entries, guard_failures, inductor_output
from snippets.compile.aot_graphs import aot_graphs, saved_for_backward
from snippets.compile.heads import head, inductor_config
from snippets.compile.inductor_code import generated_code
from snippets.running_example import running_example

pytestmark = pytest.mark.usefixtures("like_a_block")


def graphs_made(fn, *args):
    """The kinds of graph AOTAutograd handed to its compilers for `fn(*args)`: forward, backward, inference."""
    made = []

    def keep(kind):
        def compiler(gm, example_inputs):
            made.append(kind)
            return gm.forward
        return compiler

    backend = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"),
                           inference_compiler=keep("inference"))
    torch._dynamo.reset()
    torch.compile(fn, backend=backend)(*args)
    return made


def test_an_inference_graph_when_no_output_requires_grad():
    """Bullet 2: an input that requires grad is not enough; an output must require grad, and not as a view."""
    x = torch.randn(2, 3, requires_grad=True)
    assert graphs_made(lambda t: t.sin(), x) == ["forward"]
    assert graphs_made(lambda t: t.argmax(-1), x) == ["inference"]
    assert graphs_made(lambda t: (t > 0).float(), x) == ["inference"]
    assert graphs_made(lambda t: t.view(-1), x) == ["inference"]  # a view of the input: no joint graph
    with torch.no_grad():
        assert graphs_made(lambda t: t.sin(), x) == ["inference"]


def test_a_parameter_or_a_global_that_requires_grad_counts_as_an_input():
    """Bullet 2: with an argument that needs no gradient, a module's parameter or a global tensor that does makes
    the joint graph all the same."""
    plain = torch.randn(2, 3)
    linear = torch.nn.Linear(3, 3)
    weight = torch.randn(3, 3, requires_grad=True)
    assert graphs_made(lambda t: linear(t), plain) == ["forward"]
    assert graphs_made(lambda t: t @ weight, plain) == ["forward"]
    with torch.no_grad():
        assert graphs_made(lambda t: linear(t), plain) == ["inference"]


def _break_in_try(x):
    x = x * 2
    try:
        print("a break inside try")
        x = x + 1
    except ValueError:
        pass
    return x.sin()


def _break_outside_try(x):
    x = x * 2
    print("a break outside try")
    x = x + 1
    return x.sin()


def test_a_break_inside_try_skips_the_whole_frame(capsys):
    """Graph breaks: inside a try block, as inside a loop, Dynamo skips the frame instead of splitting it."""
    for fn, graphs in ((_break_in_try, 0), (_break_outside_try, 2)):
        torch._dynamo.reset()
        counter = CompileCounter()
        torch.compile(fn, backend=counter)(torch.randn(3))
        assert counter.frame_count == graphs, fn.__name__


def _doubles_then_adds(y):
    y = y * 2
    print("a break inside the callee")
    return y + 1


def _calls_a_breaking_function(x):
    return _doubles_then_adds(x.sin()).cos()


def test_a_break_inside_a_callee_ends_the_callers_graph_at_the_call(capsys):
    """Graph breaks: a break inside a called function ends the caller's graph at the call; the callee is compiled
    as a frame of its own and splits at the break: four graphs, not two."""
    assert graph_calls(_calls_a_breaking_function) == [["sin"], ["mul"], ["add"], ["cos"]]  # f, g, g, f again


def graph_calls(fn) -> list[list[str]]:
    """The operators of each graph Dynamo captures when `fn` runs once on a vector of 3."""
    counter = CompileCounterWithBackend("eager")
    torch.compile(fn, backend=counter)(torch.randn(3))
    return [[getattr(n.target, "__name__", n.target) for n in gm.graph.nodes if n.op.startswith("call")]
            for gm in counter.graphs]


class _Quiet:
    """A context manager of one's own: Dynamo cannot resume a frame inside it after a break."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _break_in_with(context):
    def fn(x):
        x = x * 2
        with context():
            print("a break inside with")
            x = x + 1
        return x.sin()
    return fn


@pytest.mark.parametrize("context, graphs", [(_Quiet, 0), (contextlib.contextmanager(lambda: (yield)), 0),
                                             (torch.no_grad, 2), (contextlib.nullcontext, 2)])
def test_a_break_inside_a_with_block_of_ones_own_skips_the_frame(context, graphs, capsys):
    """Graph breaks: inside a `with` block Dynamo cannot resume, the frame is skipped; under no_grad it splits."""
    torch._dynamo.reset()
    counter = CompileCounter()
    torch.compile(_break_in_with(context), backend=counter)(torch.randn(3))
    assert counter.frame_count == graphs


def _softmax_kernel(torch_threads, cpp_threads):
    _, W, b = running_example()
    torch.set_num_threads(torch_threads)
    torch._dynamo.reset()
    with inductor_config.patch({"cpp.threads": cpp_threads, "force_disable_caches": True}):
        _, (code,) = generated_code(head, torch.randn(2, 64), W, b)
    return inductor_output(code).kernels["cpp_fused__softmax_0"]


@pytest.mark.parametrize("torch_threads, cpp_threads, openmp",
                         [(2, -1, True), (1, -1, False), (1, 2, True), (4, -1, False)])
def test_openmp_needs_more_than_one_thread_at_compile_time(torch_threads, cpp_threads, openmp):
    """Code generation: the head's softmax kernel uses OpenMP with 2 threads and not with 1, unless `cpp.threads`
    sets the count Inductor compiles for; with 4, 1,200 values are too little work. The simdlen note: the vector
    code, 8 floats a load, is there whatever the count."""
    kernel = _softmax_kernel(torch_threads, cpp_threads)
    assert ("#pragma omp" in kernel) is openmp
    assert "at::vec::Vectorized<float>::loadu(" in kernel and "static_cast<int64_t>(8)" in kernel


def test_simdlen_256_gives_no_vectors_off_linux_and_windows_or_without_avx2():
    """The simdlen note: 256 selects AVX2 only where Inductor looks for it and finds it."""
    from torch._inductor import cpu_vec_isa

    with inductor_config.patch({"cpp.simdlen": 256}):
        try:
            assert type(cpu_vec_isa.pick_vec_isa()).__name__ == "VecAVX2"  # this site's CPU and system
            cpu_vec_isa.valid_vec_isa_list.cache_clear()
            with mock.patch.object(sys, "platform", "darwin"):
                assert not cpu_vec_isa.pick_vec_isa()  # an x86-64 Mac: no vector ISA is looked for
            cpu_vec_isa.valid_vec_isa_list.cache_clear()
            with mock.patch.object(cpu_vec_isa, "x86_isa_checker", lambda: []):
                assert not cpu_vec_isa.pick_vec_isa()  # a CPU without AVX2: 256 matches nothing
        finally:
            cpu_vec_isa.valid_vec_isa_list.cache_clear()
    assert cpu_vec_isa.pick_vec_isa() is not None


def test_the_min_cut_counts_bytes_not_tensors():
    """Min-cut: saving the two inputs, (256, 1) and (1, 256), beats saving the one (256, 256) sum."""
    graphs = aot_graphs(lambda a, b: torch.sin(torch.sin(a + b)),
                        torch.randn(256, 1, requires_grad=True), torch.randn(1, 256, requires_grad=True))
    assert saved_for_backward(graphs) == [("primals_1", (256, 1)), ("primals_2", (1, 256))]
    backward = [n.target.__name__ for n in graphs["backward"].graph.nodes if n.op == "call_function"]
    assert backward[0] == "add.Tensor"  # the sum is computed again in the backward


def test_batches_of_1_and_of_0_each_compile_again():
    """Check yourself: after the dynamic recompile, a batch of 1 and a batch of 0 each compile once more."""
    _, W, b = running_example()
    counter = CompileCounterWithBackend("eager")
    compiled = torch.compile(head, backend=counter)
    seen = []
    for batch in (2, 3, 4, 64, 1, 0):
        compiled(torch.randn(batch, 64), W, b)
        seen.append(counter.frame_count)
    assert seen == [1, 2, 2, 2, 3, 4]


def test_the_cache_folder_follows_tmpdir(monkeypatch, tmp_path):
    """The caches: the default folder is torchinductor_<user> in Python's temporary folder, which TMPDIR moves."""
    from torch._inductor.runtime.cache_dir_utils import default_cache_dir

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir reads TMPDIR again
    assert default_cache_dir() == os.path.join(str(tmp_path), "torchinductor_" + getpass.getuser())
    monkeypatch.delenv("TMPDIR")
    monkeypatch.setenv("TEMP", str(tmp_path / "temp"))
    (tmp_path / "temp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    assert default_cache_dir() == os.path.join(str(tmp_path / "temp"), "torchinductor_" + getpass.getuser())


def test_simdlen_256_selects_other_architectures_own_256_bit_vectors():
    """256 is scalar only on x86-64 without AVX2 and on macOS: POWER's VSX has 256-bit vectors."""
    import platform

    from torch._inductor import cpu_vec_isa

    cpu_vec_isa.valid_vec_isa_list.cache_clear()
    try:
        with mock.patch.object(platform, "machine", lambda: "ppc64le"), inductor_config.patch({"cpp.simdlen": 256}):
            isa = cpu_vec_isa.pick_vec_isa()
            assert type(isa).__name__ == "VecVSX" and isa.bit_width() == 256
    finally:
        cpu_vec_isa.valid_vec_isa_list.cache_clear()


def test_the_debug_folder_is_fixed_when_torch_is_imported(monkeypatch, tmp_path):
    """TORCH_COMPILE_DEBUG: the folder is computed at import; changing directory afterwards does not move it."""
    from torch._dynamo import config
    from torch._dynamo.utils import get_debug_dir

    at_import = config.debug_dir_root
    monkeypatch.delenv("TORCH_COMPILE_DEBUG_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert config.default_debug_dir_root() == str(tmp_path / "torch_compile_debug")  # what a new import would pick
    assert get_debug_dir().startswith(at_import) and not get_debug_dir().startswith(str(tmp_path))


def _quoted(x):
    x = x * 2
    print("a line the message quotes")
    return x + 1


def test_a_graph_break_message_quotes_the_source_line(capsys):
    """Dynamo reads source lines only for what it reports: a graph-break message quotes the line when it can read
    it, and a function with no source file compiles the same, its message quoting nothing."""
    source = 'def quoted(x):\n    x = x * 2\n    print("a line the message quotes")\n    return x + 1\n'
    namespace = {}
    exec(compile(source, "<no file>", "exec"), namespace)  # noqa: S102 - a function with no source file
    for fn, quotes in ((_quoted, True), (namespace["quoted"], False)):
        torch._dynamo.reset()
        counter = CompileCounter()
        compiled = torch.compile(fn, backend=counter)
        (messages,) = artifact_messages(lambda compiled=compiled: compiled(torch.randn(2)), ("graph_breaks",)).values()
        assert counter.frame_count == 2 and len(messages) == 1
        assert ('print("a line the message quotes")' in messages[0]) is quotes


def test_a_dynamo_option_acts_when_dynamo_compiles_not_when_the_function_runs():
    """config.patch: a function compiled before the block keeps its break inside it; one compiled inside keeps its
    one graph after it."""
    def f(x):
        y = x * 2
        return y + y.max().item()

    x = torch.randn(4)
    torch._dynamo.reset()
    before = CompileCounter()
    g = torch.compile(f, backend=before)
    g(x)
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        g(x)
    torch._dynamo.reset()
    inside = CompileCounter()
    g = torch.compile(f, backend=inside)
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        g(x)
    g(x)
    torch._dynamo.reset()
    assert (before.frame_count, inside.frame_count) == (2, 1)


def test_the_heads_bytecode_loads_torch_and_f_as_globals_and_their_functions_as_attributes():
    import dis

    loads = [(i.opname, i.argval) for i in dis.get_instructions(head) if i.opname in ("LOAD_GLOBAL", "LOAD_ATTR")]
    assert loads == [("LOAD_GLOBAL", "torch"), ("LOAD_ATTR", "softmax"), ("LOAD_GLOBAL", "F"), ("LOAD_ATTR", "linear")]


def test_capture_scalar_outputs_keeps_the_item_but_an_if_on_it_still_breaks():
    """capture_scalar_outputs: arithmetic on the value stays in one graph; a branch on it breaks at the `if`."""
    def adds(x):
        y = x * 2
        return y + y.max().item()

    def branches(x):
        y = x * 2
        if y.max().item() > 0:
            return y + 1
        return y - 1

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        counts = {}
        for fn in (adds, branches):
            torch._dynamo.reset()
            explanation = torch._dynamo.explain(fn)(torch.randn(8))
            counts[fn.__name__] = (explanation.graph_count, [r.reason for r in explanation.break_reasons])
    assert counts["adds"] == (1, [])
    graphs, (reason,) = counts["branches"]
    assert graphs == 2 and reason.startswith("generic_jump") and "capture_scalar_outputs" not in reason


@pytest.mark.parametrize("first, compiles", [(0, 2), (1, 2), (2, 1)])
def test_mark_dynamic_on_a_size_of_0_or_1_is_dropped_without_a_warning(first, compiles, recwarn, capfd):
    """mark_dynamic: on a first batch of 0 or 1 the mark is dropped, the first graph is static and a batch of 3 compiles
    again; on a first batch of 2 it does not."""
    _, W, b = running_example()
    counter = CompileCounter()
    compiled = torch.compile(head, backend=counter)
    x = torch.randn(first, 64)
    torch._dynamo.mark_dynamic(x, 0)
    compiled(x, W, b)
    compiled(torch.randn(3, 64), W, b)
    assert counter.frame_count == compiles and not recwarn.list and not capfd.readouterr().err


@pytest.mark.parametrize("first, compiles", [(0, 2), (1, 2), (2, 1)])
def test_dynamic_true_on_a_first_batch_of_0_or_1_keeps_that_batch_fixed(first, compiles):
    """dynamic=True: every size is symbolic from the first graph, W's and b's too, but a first batch of 0 or 1 is
    specialised all the same, so a batch of 3 compiles again."""
    _, W, b = running_example()
    counter = CompileCounterWithBackend("eager")
    compiled = torch.compile(head, backend=counter, dynamic=True)
    compiled(torch.randn(first, 64), W, b)
    compiled(torch.randn(3, 64), W, b)
    assert counter.frame_count == compiles
    shapes = [n.meta["example_value"].shape for n in counter.graphs[0].graph.nodes
              if n.op == "placeholder" and isinstance(n.meta["example_value"], torch.Tensor)]
    batch, *others = [size for shape in shapes for size in shape]
    assert isinstance(batch, torch.SymInt) is (first > 1)
    assert all(isinstance(size, torch.SymInt) for size in others)  # 64 of x, then 600 and 64 of W, 600 of b


def _sine_cosine(x):
    return x.sin().cos()


def _break_in_loop_calling(x):
    x = x * 2
    for _ in range(2):
        x = _sine_cosine(x)
        print("a break inside a loop")
    return x + 1


def test_a_skipped_frame_still_compiles_the_functions_it_calls(capsys):
    """Graph breaks: the frame with a break in its loop runs eagerly, but the function it calls is compiled."""
    counter = CompileCounter()
    torch.compile(_break_in_loop_calling, backend=counter)(torch.randn(3))
    assert (counter.frame_count, counter.op_count) == (1, 2)  # one graph: the callee's sin and cos


def _reshaped(x):
    return x.reshape(4, -1)


def _branches_on_the_size(x):
    return x + 1 if x.shape[0] == 4 else x - 1


@pytest.mark.parametrize("fn", [_reshaped, _branches_on_the_size])
def test_mark_dynamic_on_a_size_the_function_fixes_fails_the_compile(fn):
    """mark_dynamic: a size the function fixes stops the compile with an error; maybe_mark_dynamic compiles it
    static."""
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    x = torch.randn(4, 3)
    torch._dynamo.mark_dynamic(x, 0)
    with pytest.raises(ConstraintViolationError):
        torch.compile(fn, backend=CompileCounter())(x)
    torch._dynamo.reset()
    x = torch.randn(4, 3)
    torch._dynamo.maybe_mark_dynamic(x, 0)
    counter = CompileCounterWithBackend("eager")
    torch.compile(fn, backend=counter)(x)
    (graph,) = counter.graphs
    assert [tuple(n.meta["example_value"].shape) for n in graph.graph.nodes if n.op == "placeholder"] == [(4, 3)]


def test_a_failed_guard_compiles_again_only_when_every_version_fails():
    """Recompiles: after batches 2, 3 and 1, a batch of 5 fails the first version Dynamo tries, that of the batch of 1,
    and runs the dynamic one."""
    _, W, b = running_example()
    counter = CompileCounter()
    compiled = torch.compile(head, backend=counter)
    for batch in (2, 3, 1):
        compiled(torch.randn(batch, 64), W, b)
    x5 = torch.randn(5, 64)
    failures = guard_failures(head, {"x": x5, "W": W, "b": b})
    assert failures[0][0] == "0/2" and failures[0][1] and ("0/1", []) in failures
    compiled(x5, W, b)
    assert counter.frame_count == 3


def test_a_triton_template_for_a_gpu_matmul_only_under_max_autotune():
    """On a GPU: matrix products stay extern kernels in the default mode; max-autotune may add a Triton template.
    No GPU here: a CUDA layout, with the size of the GPU and the backend's features taken as given."""
    from torch._inductor import utils
    from torch._inductor.ir import FixedLayout

    layout = FixedLayout(torch.device("cuda"), torch.float32, [64, 64])
    with mock.patch.object(utils, "is_big_gpu", lambda device: True), \
            mock.patch("torch._inductor.codegen.common.has_backend_feature", lambda device, feature: True):
        assert not utils.use_triton_template(layout)
        with inductor_config.patch(torch._inductor.list_mode_options("max-autotune")):
            assert utils.use_triton_template(layout)


def test_cuda_graphs_skip_a_graph_that_writes_into_an_input_that_is_not_a_parameter():
    """On a GPU: reduce-overhead's CUDA graph trees skip a function that mutates an input other than a static one
    (a parameter). The check itself runs on a CPU."""
    from types import SimpleNamespace

    from torch._inductor.cudagraph_utils import check_for_mutation, get_placeholder_info

    graph = torch.fx.symbolic_trace(lambda x, w: x.add_(w)).graph
    inputs = [torch.randn(3), torch.randn(3)]
    for static, skipped in (([], True), ([0], False)):
        func = SimpleNamespace(mutated_input_idxs=[0], static_input_idxs=static,
                               placeholders=get_placeholder_info(graph))
        reason = check_for_mutation(func, inputs, lambda tensor: False)
        assert (reason == "skipping cudagraphs due to mutated inputs (1 instances)") is skipped
        assert (reason is None) is not skipped


def test_inductor_generates_triton_for_nvidia_amd_and_intel_gpus_and_metal_for_an_apple_one():
    """Bullet 3 and code generation: a CUDA (NVIDIA or AMD) or XPU (Intel) device gets Triton kernels, an MPS
    (Apple) one Metal shaders. No GPU here: the schedulings Inductor registers for those devices, made bare."""
    from torch._inductor.codegen.common import get_scheduling_for_device, init_backend_registration
    from torch._inductor.codegen.triton import TritonScheduling

    init_backend_registration()
    for device in ("cuda", "xpu"):
        assert isinstance(get_scheduling_for_device(device)(None)._triton_scheduling, TritonScheduling), device
    metal = get_scheduling_for_device("mps")(None)
    assert type(metal).__name__ == "MetalScheduling" and not isinstance(metal, TritonScheduling)
    assert "kernel void" in inspect.getsource(metal.kernel_type)  # the Metal Shading Language's kernel functions


@pytest.mark.parametrize("function, graphs", [(math.sqrt, 1), (math.log2, 1), (math.log, 2), (math.exp, 2)])
def test_capture_scalar_outputs_still_breaks_at_a_math_function_with_no_symbolic_version(function, graphs):
    """capture_scalar_outputs: `math.sqrt` of the value stays in the graph; `math.log` and `math.exp`, which torch
    has no symbolic version of, need a plain float and break it."""
    def fn(x):
        y = x * 2
        return y * function(y.max().item())

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        explanation = torch._dynamo.explain(fn)(torch.rand(8) + 0.5)
    assert explanation.graph_count == graphs
    assert all("data-dependent" in r.reason for r in explanation.break_reasons)


def _sine_then_exp(x):
    y = x.sin()
    print("a break between the two graphs")
    return y.exp()


def test_aot_graphs_refuses_a_graph_break(capsys):
    """The setup: after a break, each kind would keep its last graph only, the forward of `exp` beside the backward
    of `sin`; `aot_graphs` compiles with fullgraph, so a break is an error instead."""
    from torch._dynamo.exc import Unsupported

    with pytest.raises(Unsupported):
        aot_graphs(_sine_then_exp, torch.randn(4, requires_grad=True))
    torch._dynamo.reset()
    kept = {}

    def keep(name):
        def compiler(gm, example_inputs):
            kept[name] = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
            return gm.forward
        return compiler

    backend = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))
    torch.compile(_sine_then_exp, backend=backend)(torch.randn(4, requires_grad=True)).sum().backward()
    assert "aten.exp.default" in kept["forward"] and "aten.cos.default" in kept["backward"]


def test_a_version_a_call_reuses_moves_to_the_front_of_the_order_dynamo_tries():
    """cache_entries: the list is most recently used first, not newest first; after batches 2, 3, 1, a batch of 2
    reuses the dynamic version 0/1, which goes back to the front."""
    _, W, b = running_example()
    compiled = torch.compile(head, backend="eager")
    order = []
    for batch in (2, 3, 1, 2):
        compiled(torch.randn(batch, 64), W, b)
        order.append([entry.compile_id for entry in cache_entries(head)])
    assert order[2:] == [["0/2", "0/1", "0/0"], ["0/1", "0/2", "0/0"]]
    failures = guard_failures(head, {"x": torch.randn(5, 64), "W": W, "b": b})
    assert [compile_id for compile_id, _ in failures] == ["0/1", "0/2", "0/0"] and failures[0][1] == []


def test_inductors_decompositions_split_the_softmax_of_the_aot_graphs_it_receives():
    """AOTAutograd: the block's graphs have no decompositions; Inductor's split `_softmax` and write `t` as `permute`:
    eight forward operators and nine backward ones, the same three tensors saved. Inductor stops before its code."""
    from functorch.compile import make_boxed_func
    from torch._inductor.compile_fx import compile_fx

    kept = []

    def keep(gm, example_inputs, **kwargs):
        kept.append(gm)
        return make_boxed_func(gm.forward)

    def inductor(gm, example_inputs):
        return compile_fx(gm, example_inputs, inner_compile=keep)

    with inductor_config.patch(force_disable_caches=True):
        torch.compile(head, backend=inductor)(*running_example()).sum().backward()
    forward, backward = ([n.target.__name__.split(".")[0] for n in gm.graph.nodes if n.op == "call_function"]
                         for gm in kept)
    assert forward == ["permute", "addmm", "amax", "sub", "exp", "sum", "div", "permute"]
    assert len(backward) == 9 and "_softmax_backward_data" not in backward
    saved = [n.name for n in kept[1].graph.nodes if n.op == "placeholder" and not n.name.startswith("tangents")]
    assert saved == ["primals_1", "div", "permute_1"]  # x, the softmax output, W as (600, 64)
