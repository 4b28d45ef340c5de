"""The reading guide's general sentences, narrowed where a counterexample broke them: fallthrough keys are skipped,
nested calls start below keys their caller excluded, an in-place result stays marked, the detach comes from the
mode, matmul reaches a mode under inference_mode, blocks that need an earlier one, what MmBackward0 saves and what an
FX graph's lines are; and the glossary's definitions, each against the case that broke it."""

from __future__ import annotations

import contextlib
from pathlib import Path

import torch
from torch._ops import OpOverload

from hood.capture.common import dispatch_table
from hood.capture.dispatch import recording_dispatch
from hood.capture.keys import key_view
from hood.capture.ops import OpLog
from hood.engine.blocks import executed_blocks, expand_includes, project_snippets_config
from hood.engine.traces import trace_body
from snippets.reading.tiny import tiny, tiny_inputs

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "en" / "reference" / "reading-outputs.md"
K, S = torch._C.DispatchKey, torch._C.DispatchKeySet


@contextlib.contextmanager
def excluded_at_each_step(*keys: K):
    """`recording_dispatch`, plus, for each step, which of `keys` the thread-local exclude set removed then (it
    holds the autograd functionality, which removes AutogradCPU whatever the backend)."""
    with recording_dispatch() as steps:
        recording, excluded = OpOverload._get_dispatch, []

        def spy(self, key):
            exclude = torch._C._dispatch_tls_local_exclude_set()
            excluded.append({k.name for k in keys if not (S(k) - exclude).has(k)})
            return recording(self, key)

        OpOverload._get_dispatch = spy
        try:
            yield steps, excluded
        finally:
            OpOverload._get_dispatch = recording


def test_a_fallthrough_key_is_skipped_before_the_lookup():
    """ADInplaceOrView and BackendSelect are in mm's key set, and mm falls through at both: no step is made there."""
    x, w = tiny_inputs()
    effective = key_view("x", x).effective
    assert {"ADInplaceOrView", "BackendSelect"} <= set(effective)
    with recording_dispatch() as steps:
        torch.mm(x, w)
    assert [s.key for s in steps if s.op == "aten.mm.default"] == ["AutogradCPU", "CPU"]


def test_nested_calls_start_at_cpu_because_ts_kernels_excluded_the_keys_above():
    """Called directly, transpose.int has its own AutogradCPU and ADInplaceOrView steps; nested in t, it starts at
    CPU: t's autograd kernel excluded the autograd keys, then t's ADInplaceOrView kernel excluded ADInplaceOrView."""
    x, _ = tiny_inputs()
    with recording_dispatch() as direct:
        x.transpose(0, 1)
    assert [s.key for s in direct if s.op == "aten.transpose.int"] == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    with excluded_at_each_step(K.AutogradCPU, K.ADInplaceOrView) as (steps, excluded):
        x.t()
    seen = [(s.op, s.key, sorted(e)) for s, e in zip(steps, excluded)]
    assert seen == [
        ("aten.t.default", "AutogradCPU", []),
        ("aten.t.default", "ADInplaceOrView", ["AutogradCPU"]),
        ("aten.t.default", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
        ("aten.transpose.int", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
        ("aten.as_strided.default", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
    ]


def test_an_in_place_result_is_its_input_still_marked_grad():
    x, w = tiny_inputs()
    h = x @ w
    with OpLog() as log:
        h.add(1)
        h.add_(1)
    assert [(c.op, c.out) for c in log.calls] == [("aten::add.Tensor", "f32[2, 4]"),
                                                  ("aten::add_.Tensor", "f32[2, 4] grad")]


def _detach_calls(mode: bool, requires_grad: bool = True) -> int:
    """How many aten::detach the profiler sees in one call of tiny, under OpLog or without any mode."""
    x, w = tiny_inputs(requires_grad)
    with OpLog() if mode else contextlib.nullcontext(), torch.profiler.profile() as prof:
        tiny(x, w)
    return sum(e.name == "aten::detach" for e in prof.events())


def test_the_detach_runs_only_under_a_dispatch_mode_and_only_when_a_result_is_saved():
    assert (_detach_calls(mode=False), _detach_calls(mode=True)) == (0, 1)
    assert _detach_calls(mode=True, requires_grad=False) == 0
    with torch.no_grad():
        assert _detach_calls(mode=True) == 0


def test_under_inference_mode_matmul_itself_reaches_the_mode():
    x, w = tiny_inputs()
    with torch.inference_mode(), OpLog() as log:
        x @ w
    assert log.names == ["aten::matmul"]
    with OpLog() as log:
        x @ w
    assert log.names == ["aten::mm"]


def test_only_the_inductor_block_needs_an_earlier_block_than_the_setup():
    """The setup defines neither `graph` nor `generated`; the FX-graph block defines `generated`, and the
    Inductor-wrapper block, after it, reads it."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = {options["id"]: body for options, body in executed_blocks(text)}
    setup = expand_includes(blocks["setup"], project_snippets_config(ROOT))
    assert "generated =" not in setup and "generated," not in setup
    assert "graph, generated = compile_tiny()" in blocks["fx-graph"]
    assert "inductor_output(generated)" in blocks["inductor-wrapper"]
    order = list(blocks)
    assert order.index("fx-graph") < order.index("inductor-wrapper")


def test_mm_also_saves_sizes_and_strides_which_the_render_leaves_out():
    x, w = tiny_inputs()
    node = (x @ w).grad_fn
    assert sorted(a for a in dir(node) if a.startswith("_saved_")) == [
        "_saved_mat2", "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides",
        "_saved_self", "_saved_self_sym_sizes", "_saved_self_sym_strides"]
    rendered = trace_body(ROOT / "traces" / "reference" / "reading-outputs" / "grad-fn-chain.txt")
    assert "sym_sizes" not in rendered and "sym_strides" not in rendered


def test_fx_code_renames_the_placeholders_then_three_calls_and_none_only_drops_references():
    """After the signature, two lines rename the placeholders; the three lines before `return` are the call nodes.
    `l_x_ = l_w_ = None` drops the graph's names for its inputs, which the caller still holds: it frees nothing."""
    lines = trace_body(ROOT / "traces" / "reference" / "reading-outputs" / "fx-graph.txt").splitlines()
    body = [line.strip() for line in lines[1:]]
    assert body[:2] == ["l_x_ = L_x_", "l_w_ = L_w_"]
    assert [line.split(" = ", 1)[0] for line in body[2:5]] == ["matmul", "relu", "add"]
    assert body[5] == "return (add,)" and len(body) == 6
    assert body[2].endswith("l_x_ = l_w_ = None")


def test_an_op_with_nothing_to_do_returns_its_input_still_marked_under_inference_mode():
    """Not every result of an out-of-place op is unmarked: under inference_mode, `to` with the tensor's own dtype and
    dropout in eval reach the mode and return their input, which still requires grad."""
    x, _ = tiny_inputs()
    with torch.inference_mode(), OpLog() as log:
        same = x.to(torch.float32)
        torch.nn.functional.dropout(x, training=False)
    assert same is x
    assert [(c.op, c.out) for c in log.calls] == [("aten::to.dtype", "f32[2, 3] grad"),
                                                  ("aten::dropout", "f32[2, 3] grad")]
    with OpLog() as log:
        x.to(torch.float32)  # outside inference_mode it does not reach the mode at all
    assert log.calls == []


# ---------------------------------------------------------------- the glossary's definitions (glossary.yml)


def _definition(word: str) -> str:
    from hood import glossary

    terms = glossary.load(ROOT / glossary.GLOSSARY_FILE, ["en"])["en"]
    return next(t.definition for t in terms if t.word == word)


def test_autograd_combines_with_every_backend_autocast_has_a_few_keys_of_its_own():
    """Functionality key: AutogradMeta and AutogradLazy exist, AutocastMeta and AutocastLazy do not; the header
    itself says Autocast is not yet a per-backend functionality."""
    members = set(K.__members__)
    backends = ("CPU", "CUDA", "Lazy", "Meta", "MPS", "HPU", "XPU", "PrivateUse1")
    assert all(f"Autograd{b}" in members for b in backends)
    assert {b for b in backends if f"Autocast{b}" not in members} == {"Lazy", "Meta"}
    header = (Path(torch.__file__).parent / "include/c10/core/DispatchKey.h").read_text()
    assert "// TODO: make Autocast a functionality key" in header
    assert "Autocast has a key of its own for a few devices only" in _definition("functionality key")


def test_a_default_backend_kernel_fills_only_the_backends_its_alias_covers():
    """add.Tensor's CompositeExplicitAutogradNonFunctional kernel fills CUDA but leaves XLA, Lazy and SparseCUDA
    without a row; ones_like's CompositeExplicitAutograd kernel fills all three."""
    def rows(op):
        return {line.split(":")[0]: line for line in torch._C._dispatch_dump_table(op).splitlines()}
    add, ones_like = rows("aten::add.Tensor"), rows("aten::ones_like")
    assert "default backend kernel" in add["CUDA"]
    assert not {"XLA", "Lazy", "SparseCUDA"} & set(add)
    assert all("default backend kernel" in ones_like[k] for k in ("XLA", "Lazy", "SparseCUDA"))


def test_a_view_made_under_inference_mode_is_not_an_inference_tensor():
    base = torch.randn(3)
    with torch.inference_mode():
        view, made = base[:2], torch.ones(2)
    assert made.is_inference() and not view.is_inference()
    assert "AutogradCPU" in str(torch._C._dispatch_keys(view))


def test_a_dispatch_mode_sees_composite_explicit_ops_whole_and_implicit_ones_only_without_autograd():
    """t (CompositeExplicitAutograd) reaches the mode whole; linear (CompositeImplicitAutograd) only under
    inference_mode."""
    x, w = tiny_inputs()
    weight = w.t()  # linear takes (out, in)
    assert "RegisterCompositeExplicitAutograd" in torch._C._dispatch_dump_table("aten::t")
    with OpLog() as log:
        x.t()
        torch.nn.functional.linear(x, weight)
    assert log.names == ["aten::t", "aten::t", "aten::mm"]
    with torch.inference_mode(), OpLog() as log:
        torch.nn.functional.linear(x, weight)
    assert log.names == ["aten::linear"]


def test_autograd_grad_leaves_the_leafs_grad_alone():
    """The glossary's leaf and the grad_fn chain's AccumulateGrad: only backward() writes x.grad."""
    x, _ = tiny_inputs()
    (g,) = torch.autograd.grad((x * x).sum(), x)
    assert x.grad is None and g.shape == x.shape
    (x * x).sum().backward()
    assert torch.equal(x.grad, g)


def test_addmm_saves_only_the_matrices_the_gradients_need():
    """W requires grad, x does not: AddmmBackward0 keeps x (mat1) for W's gradient and no mat2."""
    x, W, b = torch.randn(2, 4), torch.randn(5, 4, requires_grad=True), torch.randn(5, requires_grad=True)
    node = torch.nn.functional.linear(x, W, b).grad_fn
    assert type(node).__name__ == "AddmmBackward0"
    assert node._saved_mat1 is not None and node._saved_mat1.shape == (2, 4) and node._saved_mat2 is None
    node = torch.nn.functional.linear(x.requires_grad_(), W, b).grad_fn
    assert node._saved_mat1 is not None and node._saved_mat2 is not None


def test_the_version_counter_belongs_to_the_tensor_not_to_its_storage():
    """A view and detach() share it; .data shares the storage but not the counter, so backward does not see a
    change made through it."""
    t = torch.zeros(4)
    t[:2].add_(1)
    t.detach().add_(1)
    assert t._version == 2
    t.data.add_(1)
    assert t._version == 2 and t.data.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    w = torch.ones(3, requires_grad=True)
    y = w.exp()  # ExpBackward0 saves its result
    y.data.mul_(2)
    y.sum().backward()  # no error: the saved result was changed behind the counter's back
    assert torch.allclose(w.grad, 2 * torch.ones(3).exp())


def test_a_guard_failure_reuses_an_earlier_version_and_compiling_stops_at_the_limit(like_a_block):
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    f = torch.compile(lambda t: t.sin() + 1, backend=counter)
    for dtype in (torch.float32, torch.float64, torch.float32):
        f(torch.ones(2, dtype=dtype))
    assert counter.frame_count == 2  # float32 again passes the first version's guards
    dtypes = (torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8,
              torch.complex64)
    for dtype in dtypes:
        f(torch.ones(2, dtype=dtype))
    assert torch._dynamo.config.recompile_limit == 8 and counter.frame_count == 8


def test_a_graph_break_inside_try_makes_no_graph(like_a_block):
    """The glossary's graph break, against theory 03's two functions: outside try, two graphs; inside, none."""
    from torch._dynamo.testing import CompileCounter

    from tests.test_theory03_generality import _break_in_try, _break_outside_try

    for fn, graphs in ((_break_in_try, 0), (_break_outside_try, 2)):
        torch._dynamo.reset()
        counter = CompileCounter()
        with contextlib.redirect_stdout(None):
            torch.compile(fn, backend=counter)(torch.randn(3))
        assert counter.frame_count == graphs, fn.__name__
    assert "skips the whole frame" in _definition("graph break")


def test_a_graph_break_inside_a_with_block_of_ones_own_makes_no_graph(like_a_block):
    """The glossary's graph break, against theory 03's with blocks: a context manager of one's own skips the frame,
    torch.no_grad splits it in two graphs."""
    from torch._dynamo.testing import CompileCounter

    from tests.test_theory03_generality import _break_in_with, _Quiet

    for context, graphs in ((_Quiet, 0), (torch.no_grad, 2)):
        torch._dynamo.reset()
        counter = CompileCounter()
        with contextlib.redirect_stdout(None):
            torch.compile(_break_in_with(context), backend=counter)(torch.randn(3))
        assert counter.frame_count == graphs, context.__name__
    assert "or a with block whose context manager Dynamo cannot resume" in _definition("graph break")


def test_past_the_recompile_limit_a_call_that_passes_a_versions_guards_still_runs_it(like_a_block):
    """The glossary's guard: at the limit, float32 still runs version 0; only a dtype no version accepts runs
    eagerly (the backend's wrapper is not called)."""
    ran: list[int] = []

    def numbered(gm, example_inputs):
        number = numbered.count = getattr(numbered, "count", 0) + 1

        def run(*args):
            ran.append(number)
            return gm(*args)
        return run

    f = torch.compile(lambda t: t.sin() + 1, backend=numbered)
    dtypes = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
              torch.int8, torch.uint8)
    with contextlib.redirect_stderr(None):
        for dtype in dtypes:
            f(torch.ones(2, dtype=dtype))
    assert numbered.count == torch._dynamo.config.recompile_limit == 8
    ran.clear()
    f(torch.ones(2, dtype=torch.float32))
    f(torch.ones(2, dtype=torch.uint8))
    assert ran == [1]
    assert "still runs that version" in _definition("guard")


def test_a_fused_softmax_writes_each_rows_max_and_sum_to_buffers(like_a_block):
    """The glossary's fusion: one generated kernel, yet the wrapper allocates two (rows, 1) buffers that it
    writes, beside the output."""
    from torch._inductor.utils import run_and_get_code

    from hood.capture.compile import inductor_output
    from snippets.compile.heads import AVX2, inductor_config

    with inductor_config.patch(AVX2):
        _, (code,) = run_and_get_code(torch.compile(lambda t: torch.softmax(t, -1) * 2), torch.randn(4, 8))
    out = inductor_output(code)
    assert len(out.kernels) == 1 and out.extern_calls == []
    assert sorted(shape for _, shape in out.buffers) == ["(4, 1)", "(4, 1)", "(4, 8)"]
    (kernel,) = out.kernels.values()
    assert "out_ptr0[" in kernel and "out_ptr1[" in kernel
    assert "over rows of 8 elements or more still writes each row's max and sum" in _definition("fusion")


def test_opcheck_fails_a_fake_kernel_with_the_right_shape_and_dtype_but_other_strides_or_device():
    """The glossary's fake kernel: strides and device are part of what it computes."""
    @torch.library.custom_op("hood_reading::column_major", mutates_args=())
    def column_major(x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous().t()

    @column_major.register_fake
    def _(x):
        return torch.empty_like(x, memory_format=torch.contiguous_format)

    @torch.library.custom_op("hood_reading::on_meta", mutates_args=())
    def on_meta(x: torch.Tensor) -> torch.Tensor:
        return x * 2

    @on_meta.register_fake
    def _(x):
        return torch.empty(x.shape, dtype=x.dtype, device="meta")

    x = torch.randn(3, 4)
    strides = torch.library.opcheck(column_major, (x,), raise_exception=False)["test_faketensor"]
    device = torch.library.opcheck(on_meta, (x,), raise_exception=False)["test_faketensor"]
    assert "Stride mismatch" in str(strides) and "Devices cpu and meta" in str(device)
    assert "strides and device" in _definition("fake kernel")


def test_vmaps_fallback_stacks_the_samples_results_and_fails_when_their_shapes_differ():
    """The glossary's batching rule: bincount has none; the loop runs, with the warning, then stacking fails."""
    import warnings

    import pytest

    counts = torch.tensor([[0, 1], [1, 1], [0, 2]])
    with warnings.catch_warnings(record=True) as caught, pytest.raises(RuntimeError, match="stack expects each"):
        warnings.simplefilter("always")
        torch.vmap(torch.bincount)(counts)
    assert any("batching rule for aten::bincount" in str(w.message) for w in caught)
    assert "fails when their shapes differ" in _definition("batching rule")


def test_vmap_has_no_fallback_loop_for_an_out_variant_without_a_batching_rule():
    """The glossary's batching rule: add.out has none, and vmap raises instead of looping."""
    import pytest

    with pytest.raises(RuntimeError, match="the fallback path doesn't work on out= or view ops"):
        torch.vmap(lambda t: torch.add(t, 1, out=torch.empty(4)))(torch.randn(3, 4))
    assert "An out= or view operator without one has no such loop" in _definition("batching rule")


def test_an_int_argument_becomes_a_symint_too(like_a_block):
    """The glossary's SymInt: compiled with dynamic=True, `n` reaches the graph as a SymInt, not only sizes."""
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm

    torch.compile(lambda t, n: t * n, backend=keep, dynamic=True)(torch.ones(3), 2)
    assert "L_n_ : torch.SymInt" in graphs[0].code
    assert "or an int argument" in _definition("SymInt")


def test_a_non_functional_composite_can_call_a_view_and_no_mutating_op():
    """The glossary's CompositeExplicitAutogradNonFunctional: t_copy's kernel calls t (a view) and clone."""
    table = torch._C._dispatch_dump_table("aten::t_copy")
    assert "CPU: registered at" in table and "RegisterCompositeExplicitAutogradNonFunctional" in table
    with torch.profiler.profile() as prof:
        torch.t_copy(torch.randn(3, 4))
    (t_copy,) = [e for e in prof.events() if e.name == "aten::t_copy"]
    assert [c.name for c in t_copy.cpu_children] == ["aten::t", "aten::clone"]
    assert torch.ops.aten.t.default._schema.returns[0].alias_info is not None  # t returns a view of its input
    assert "or return a view of one" in _definition("CompositeExplicitAutogradNonFunctional")


def test_an_inference_tensor_has_no_version_counter():
    """The glossary's version counter: a normal tensor changed in place under inference_mode still counts, and a
    view of it taken there shares its counter; a tensor made there has none, nor has a view of it, while a detach()
    of it taken outside has one of its own."""
    import pytest

    normal = torch.zeros(2)
    with torch.inference_mode():
        made = torch.zeros(2)
        normal.add_(1)
        made.add_(1)
        normal_view, made_view = normal[:1], made[:1]
    assert normal._version == normal_view._version == 1 and not normal_view.is_inference()
    normal_view.add_(1)
    assert normal._version == 2
    for tensor in (made, made_view, made[:1]):
        with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
            _ = tensor._version
    outside = made.detach()
    assert outside.is_inference() and outside._version == 0
    definition = _definition("version counter")
    assert "A tensor allocated under inference_mode has none, nor has a view of it" in definition
    assert "a view of a normal tensor taken there shares that tensor's" in definition


def test_a_write_around_the_dispatcher_or_under_saved_tensors_hooks_goes_unchecked():
    """The glossary's version counter: apply_ and a write into numpy() add nothing; with saved_tensors_hooks the
    backward uses a modified saved tensor without a word, where it refuses it otherwise."""
    import pytest

    t = torch.zeros(3)
    t.apply_(lambda v: v + 1)
    t.numpy()[0] = 5
    assert t._version == 0

    def exp_doubled_after_save(hooks):
        w = torch.ones(3, requires_grad=True)
        with hooks:
            y = w.exp()  # ExpBackward0 saves its result
        y.detach().mul_(2)
        y.sum().backward()
        return w.grad

    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        exp_doubled_after_save(contextlib.nullcontext())
    same = torch.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
    assert torch.allclose(exp_doubled_after_save(same), 2 * torch.ones(3).exp())
    definition = _definition("version counter")
    assert "apply_, a write into numpy()" in definition and "add nothing" in definition
    assert "unless saved_tensors_hooks were active" in definition


def test_a_fused_optimizer_step_leaves_the_version_counter_alone():
    """The glossary's version counter: SGD's step moves the weight that MulBackward0 saved, by 0.1; the plain and
    foreach steps count it and backward refuses the weight, the fused step does not and backward uses the new one: its
    operator falls through ADInplaceOrView (theory 02)."""
    import pytest

    def step_then_backward(**kind):
        w, x = torch.nn.Parameter(torch.ones(3)), torch.ones(3, requires_grad=True)
        y = (x * w).sum()  # MulBackward0 saves w for x's gradient
        w.grad = torch.ones(3)
        torch.optim.SGD([w], lr=0.1, **kind).step()
        y.backward()
        return w._version, x.grad

    for kind in ({}, {"foreach": True}):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            step_then_backward(**kind)
    version, grad = step_then_backward(fused=True)
    assert version == 0 and torch.allclose(grad, torch.full((3,), 0.9))
    assert "a fused optimizer's step (fused=True) add nothing" in _definition("version counter")
    for op in ("aten::_fused_sgd_", "aten::_fused_adam_", "aten::_fused_adamw_"):  # theory 02 says why
        assert dispatch_table(op)["ADInplaceOrView"].fallthrough
    page = " ".join((ROOT / "docs" / "en" / "theory" / "02-autograd-and-custom-ops.md").read_text().split())
    assert "Neither does the step of an optimizer made with `fused=True`: its operator lets the call pass at" in page


def test_aotautograds_inference_graph_names_its_inputs_arg0_1_not_primals(like_a_block):
    """The glossary's primals: the forward graph's inputs are primals_1, primals_2; with grad mode off, the
    inference graph's are arg0_1, arg1_1."""
    from torch._dynamo.backends.common import aot_autograd

    inputs = {}

    def keep(kind):
        def compiler(gm, example_inputs):
            inputs[kind] = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
            return gm.forward
        return compiler

    backend = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"),
                           inference_compiler=keep("inference"))
    f = torch.compile(lambda x, w: x @ w, backend=backend)
    x, w = torch.randn(2, 3), torch.randn(3, 4, requires_grad=True)
    f(x, w)
    with torch.no_grad():
        f(x, w)
    assert inputs == {"forward": ["primals_1", "primals_2"], "inference": ["arg0_1", "arg1_1"]}
    assert "its inference graph names them arg0_1" in _definition("primals")


def test_a_fused_chain_also_writes_what_the_backward_needs_when_the_input_requires_grad(like_a_block):
    """The glossary's fusion: relu then + 1 is one kernel with one output buffer; when the input requires grad, the
    same kernel also writes a bool mask (relu's output <= 0) that the backward graph reads."""
    from torch._inductor.utils import run_and_get_code

    from hood.capture.compile import inductor_output
    from snippets.compile.heads import AVX2, inductor_config

    def chain(t):
        return torch.relu(t) + 1

    with inductor_config.patch(AVX2):
        _, (code,) = run_and_get_code(torch.compile(chain), torch.randn(4, 8))
        torch._dynamo.reset()
        x = torch.randn(4, 8, requires_grad=True)
        _, (forward, backward) = run_and_get_code(lambda: torch.compile(chain)(x).sum().backward())
    inference, training = inductor_output(code), inductor_output(forward)
    assert len(inference.kernels) == len(training.kernels) == 1 and inference.buffers == [("buf0", "(4, 8)")]
    assert [shape for _, shape in training.buffers] == ["(4, 8)", "(4, 8)"]
    assert "torch.bool" in training.call and inductor_output(backward).call.startswith("le, tangents_1 = args")
    assert "the kernel also writes a bool mask of where relu gave zero" in _definition("fusion")


def test_a_graph_break_in_a_called_function_ends_the_callers_graph_at_the_call(like_a_block):
    """The glossary's graph break: a print inside g, which f calls between sin and cos, makes four graphs, not two:
    f's graph ends at the call, g is compiled as a frame of its own and split at the print, then f resumes."""
    from tests.test_theory03_generality import _calls_a_breaking_function, graph_calls

    with contextlib.redirect_stdout(None):
        assert graph_calls(_calls_a_breaking_function) == [["sin"], ["mul"], ["add"], ["cos"]]
    assert "ends the frame's graph at that call" in _definition("graph break")


def test_a_fused_chain_writes_no_mask_under_no_grad(like_a_block):
    """The glossary's fusion: the input requires grad, but under no_grad AOTAutograd builds its inference graph and
    relu then + 1 writes its one output buffer, no bool mask."""
    from torch._inductor.utils import run_and_get_code

    from hood.capture.compile import inductor_output
    from snippets.compile.heads import AVX2, inductor_config

    x = torch.randn(4, 8, requires_grad=True)
    with inductor_config.patch(AVX2), torch.no_grad():
        _, (code,) = run_and_get_code(torch.compile(lambda t: torch.relu(t) + 1), x)
    out = inductor_output(code)
    assert len(out.kernels) == 1 and out.buffers == [("buf0", "(4, 8)")] and "torch.bool" not in out.call
    assert "when the input requires grad and grad mode is on" in _definition("fusion")


def test_past_the_recompile_limit_fullgraph_raises_instead_of_running_eagerly(like_a_block):
    """The glossary's guard: with fullgraph=True, the call that no version accepts at the limit raises."""
    import pytest
    from torch._dynamo.exc import FailOnRecompileLimitHit

    f = torch.compile(lambda t: t.sin() + 1, backend="eager", fullgraph=True)
    dtypes = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
              torch.int8)
    with contextlib.redirect_stderr(None):
        for dtype in dtypes:
            f(torch.ones(2, dtype=dtype))
        with pytest.raises(FailOnRecompileLimitHit, match="fullgraph=True"):
            f(torch.ones(2, dtype=torch.uint8))
    assert len(dtypes) == torch._dynamo.config.recompile_limit
    assert "runs eagerly (with fullgraph=True, it raises an error)" in _definition("guard")


def test_a_fused_softmax_keeps_its_max_and_sum_in_buffers_because_the_cpu_kernel_has_three_loop_nests(like_a_block):
    """The glossary's fusion: the CPU kernel generates the softmax as three loop nests (max; exp and sum; output),
    each a kernel object of its own, so the max and sum cross from one to the next through buffers. Inductor's
    Kernel drops a buffer that one kernel object both writes and last uses, and on GPU (not run here) the whole
    fused softmax is one TritonKernel: the sentence says "on CPU"."""
    import inspect
    from unittest import mock

    from torch._inductor.codegen import cpp
    from torch._inductor.codegen.common import Kernel
    from torch._inductor.codegen.triton import TritonKernel
    from torch._inductor.utils import run_and_get_code

    from snippets.compile.heads import AVX2, inductor_config

    nests = []
    codegen = cpp.CppKernelProxy.codegen_functions

    def spy(self, fn_list, var_sizes_list):
        nests.append(len(fn_list))
        return codegen(self, fn_list, var_sizes_list)

    with mock.patch.object(cpp.CppKernelProxy, "codegen_functions", spy), \
            inductor_config.patch({**AVX2, "force_disable_caches": True}), contextlib.redirect_stderr(None):
        run_and_get_code(torch.compile(lambda t: torch.softmax(t, -1) * 2), torch.randn(4, 8))
    assert nests == [1, 2, 1]
    assert issubclass(TritonKernel, Kernel) and "self.remove_kernel_local_buffers()" in inspect.getsource(Kernel)
    assert "created and have a last use in the\n        same kernel can be removed" in inspect.getsource(Kernel)
    assert "on CPU, a fused softmax over rows of 8 elements or more still writes" in _definition("fusion")


def test_a_fused_softmax_over_rows_shorter_than_8_keeps_no_max_or_sum_buffer(like_a_block):
    """The glossary's fusion: Inductor unrolls a reduction of fewer than unroll_reductions_threshold (8) elements
    into element-wise code, so over rows of 7 the max and sum stay in registers and the exponentials go to a buffer
    instead; over rows of 8 the two (rows, 1) buffers appear."""
    from torch._inductor.utils import run_and_get_code

    from hood.capture.compile import inductor_output
    from snippets.compile.heads import AVX2, inductor_config

    shapes = {}
    for width in (7, 8):
        torch._dynamo.reset()
        with inductor_config.patch(AVX2):
            _, (code,) = run_and_get_code(torch.compile(lambda t: torch.softmax(t, -1) * 2), torch.randn(4, width))
        shapes[width] = sorted(shape for _, shape in inductor_output(code).buffers)
    assert torch._inductor.config.unroll_reductions_threshold == 8
    assert shapes == {7: ["(4, 7)", "(4, 7)"], 8: ["(4, 1)", "(4, 1)", "(4, 8)"]}
    assert "a fused softmax over rows of 8 elements or more" in _definition("fusion")


def test_an_mkldnn_tensor_carries_autograd_other_not_a_per_backend_autograd_key():
    """The glossary's functionality key: MkldnnCPU has no backend bit for Autograd to combine with."""
    keys = str(torch._C._dispatch_keys(torch.randn(2, 2).to_mkldnn()))
    assert "MkldnnCPU" in keys and "AutogradOther" in keys and "AutogradCPU" not in keys
    assert "Autograd combines with most backends" in _definition("functionality key")
    assert "(an MkldnnCPU tensor carries AutogradOther)" in _definition("functionality key")


def test_an_alias_keys_kernel_fills_a_slot_before_the_backend_fallback():
    """The glossary's fallback: scale has no kernel for AutogradCPU and gets the fallback; linear has none of its own
    either, but its CompositeImplicitAutograd kernel fills the slot."""
    lib = torch.library.Library("hood_reading_fb", "DEF")
    try:
        lib.define("scale(Tensor x) -> Tensor")
        lib.impl("scale", lambda x: x * 2, "CPU")
        scale = dispatch_table("hood_reading_fb::scale")["AutogradCPU"]
    finally:
        lib._destroy()
    linear = dispatch_table("aten::linear")["AutogradCPU"]
    assert scale.kind == "backend fallback" and "VariableFallbackKernel" in scale.path
    assert linear.kind == "math kernel" and "RegisterCompositeImplicitAutograd" in linear.path
    assert "neither its own nor one from an alias key" in _definition("fallback")


def test_fullgraph_turns_a_graph_break_into_an_error(like_a_block):
    """The glossary's graph break: the print that splits theory 03's function in two graphs raises under
    fullgraph=True."""
    import pytest

    from tests.test_theory03_generality import _break_outside_try

    with contextlib.redirect_stdout(None), pytest.raises(torch._dynamo.exc.Unsupported, match="print"):
        torch.compile(_break_outside_try, backend="eager", fullgraph=True)(torch.randn(3))
    assert "(with fullgraph=True, it raises an error instead)" in _definition("graph break")
