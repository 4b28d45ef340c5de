"""Theory 01's general sentences, narrowed where a counterexample broke them: what linear and matmul decompose
into, the registration printer, the dispatch trace's #if, contexts and the fallthrough mask, enabling autocast,
the autocast keys, views with the base's own metadata, linear's bias added in place but out of place under a
mode, which functionality bits print alone, what the key-stack figure's orange cell is, autocast's cache under
inference_mode and in nested regions, composite views, linear's out-of-place add inside vmap, on meta tensors and
with a tangent, vmap's dynamic-layer keys, matmul of a vector, which biases let linear fold its input into one
addmm, a tensor-subclass bias added out of place (an nn.Parameter in place), which subclasses carry the Python key,
TORCH_LINEAR_FLATTEN_3D, what _dispatch_dump_table returns, the keys above the priority block's seven, who meets
the tables' Meta row, a (1, 1, N) bias that addmm refuses, which tensors made under inference_mode lack the
autograd keys, the order of the tables' rows, where a call starts relative to a key view's first key, which
calls a mode logs, which files a table names, how many rows a dumped table has, where the calls inside
a CPU kernel start, what the AutogradCPU fallback does for an operator with no formula, and why
_dispatch_dump_table('aten::add') is empty although torch.ops.aten.add has a default overload."""

from __future__ import annotations

import contextlib
import html
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hood.capture.common import key_names, localize
from hood.capture.dispatch import recording_dispatch
from hood.capture.keys import key_view
from hood.capture.ops import OpLog
from hood.capture.tables import table_rows
from hood.stdout import captured_stdout, printed
from snippets.dispatcher import key_stack
from snippets.running_example import running_example
from tests.pinned_source import tag_lines

K, S = torch._C.DispatchKey, torch._C.DispatchKeySet
MATMUL_BMM = ["aten::expand", "aten::view", "aten::expand", "aten::view", "aten::bmm", "aten::_unsafe_view"]
MATMUL_FOLDED = ["aten::clone", "aten::_unsafe_view", "aten::mm", "aten::_unsafe_view"]


def logged(call) -> list[str]:
    with OpLog() as log:
        call()
    return log.names


def test_linear_views_a_contiguous_input_around_addmm_and_otherwise_adds_after_matmul():
    """2-D: t and addmm (t and mm without a bias); other ranks: views around addmm only for a contiguous input
    with a bias, else t, matmul's operators and a separate add."""
    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    matrix = torch.randn(2, 64)
    assert logged(lambda: F.linear(matrix, W, b)) == ["aten::t", "aten::addmm"]
    assert logged(lambda: F.linear(matrix, W)) == ["aten::t", "aten::mm"]
    for shape in [(64,), (3, 2, 64), (2, 3, 2, 64)]:
        contiguous = torch.randn(shape)
        ops = logged(lambda contiguous=contiguous: F.linear(contiguous, W, b))
        assert ops == ["aten::view", "aten::t", "aten::addmm", "aten::view"]
    transposed = torch.randn(2, 3, 64).transpose(0, 1)
    assert not transposed.is_contiguous()
    assert logged(lambda: F.linear(transposed, W, b)) == ["aten::t", *MATMUL_BMM, "aten::add.Tensor"]
    assert logged(lambda: F.linear(transposed, W)) == ["aten::t", *MATMUL_BMM]
    Wg = W.clone().requires_grad_()
    assert logged(lambda: F.linear(transposed, Wg, b)) == ["aten::t", *MATMUL_FOLDED, "aten::add.Tensor"]


def test_matmul_folds_a_stride_0_operand_when_the_matrix_requires_grad():
    """matmul picks its operators from shapes, strides and whether the 2-D operand requires grad."""
    x, W, _ = running_example()
    x3 = x.detach().expand(3, 2, 64)
    Wt_plain, Wt_grad = W.detach().t(), W.t()
    assert logged(lambda: torch.matmul(x3, Wt_plain)) == MATMUL_BMM
    assert logged(lambda: torch.matmul(x3, Wt_grad)) == MATMUL_FOLDED


def test_the_printer_lists_one_key_or_every_operator():
    """_dispatch_print_registrations_for_dispatch_key prints the operators with a kernel for the key named, and
    every registered operator when no key is named."""
    assert not hasattr(torch._C, "_dispatch_print_registrations")
    with captured_stdout() as everything:
        torch._C._dispatch_print_registrations_for_dispatch_key()
    with captured_stdout() as autocast:
        torch._C._dispatch_print_registrations_for_dispatch_key("AutocastCPU")
    every_op = set(torch._C._dispatch_get_all_op_names())
    assert set(everything.getvalue().split()) == every_op and len(every_op) > 3000
    named = set(autocast.getvalue().split())
    assert named == set(torch._C._dispatch_get_registrations_for_dispatch_key("AutocastCPU"))
    assert "aten::linear" in named and "aten::add.Tensor" not in named and len(named) < len(every_op)


def test_the_cited_line_guards_the_dispatch_trace():
    """Dispatcher.h line 780 (v2.13.0, the installed header): a debug build or HAS_TORCH_SHOW_DISPATCH_TRACE."""
    lines = tag_lines("include/ATen/core/dispatch/Dispatcher.h")
    assert lines[779].strip() == "#if defined(HAS_TORCH_SHOW_DISPATCH_TRACE) || !defined(NDEBUG)"
    assert "show_dispatch_trace()" in lines[781]


def masked_start(op: str, tensor: torch.Tensor) -> tuple[str, str]:
    """The top of the call's key set, and the top once the keys `op` falls through are removed."""
    effective = key_view("x", tensor).effective  # lowest priority first
    rows = {row.key: row for row in table_rows(op, tuple(effective))}
    return effective[-1], [key for key in effective if not rows[key].fallthrough][-1]


def test_contexts_change_the_walk_as_the_masked_key_sets_predict():
    """linear starts at the top of its key set once its fallthrough keys are removed; under inference_mode that
    is not the top of the unmasked set."""
    x, W, b = running_example()
    contexts = {"no_grad": torch.no_grad, "inference_mode": torch.inference_mode,
                "autocast": lambda: torch.autocast("cpu", dtype=torch.bfloat16)}
    starts = {}
    for name, context in contexts.items():
        with context():
            top, masked = masked_start("aten::linear", x)
            with recording_dispatch() as steps:
                F.linear(x, W, b)
        walked = next(s.key for s in steps if s.op == "aten.linear.default")
        assert walked == masked
        starts[name] = (top, masked)
    assert starts == {"no_grad": ("AutogradCPU", "AutogradCPU"), "inference_mode": ("ADInplaceOrView", "CPU"),
                      "autocast": ("AutocastCPU", "AutocastCPU")}


def test_autocast_fires_once_enabled_without_a_with_block():
    """torch.set_autocast_enabled lifts AutocastCPU out of the exclude set; torch.autocast calls it."""
    x, W, b = running_example()
    assert torch._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
    try:
        torch.set_autocast_enabled("cpu", True)
        assert not torch._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
        assert F.linear(x, W, b).dtype == torch.bfloat16
    finally:
        torch.set_autocast_enabled("cpu", False)
    assert torch._C._dispatch_tls_is_dispatch_key_excluded(K.AutocastCPU)
    assert F.linear(x, W, b).dtype == torch.float32


def test_autocast_keys_are_keys_of_their_own_above_autograd():
    """AutogradCUDA is the autograd functionality plus the CUDA bit; AutocastCUDA is not the autocast key plus it.
    Every Autocast key outranks every Autograd key (DispatchKey.h lines 319-346, cited by the page)."""
    assert (S(K.AutogradCPU) | S(K.CUDA)).has(K.AutogradCUDA)
    assert not (S(K.AutocastCPU) | S(K.CUDA)).has(K.AutocastCUDA)
    autocast = [name for name in K.__members__ if name.startswith("Autocast")]  # the ones Python binds
    assert {"AutocastCPU", "AutocastCUDA"} <= set(autocast)
    for name in autocast:
        for autograd in (K.AutogradCPU, K.AutogradCUDA, K.AutogradOther):
            assert (S(getattr(K, name)) | S(autograd)).highestPriorityTypeId() == getattr(K, name)
    lines = tag_lines("include/c10/core/DispatchKey.h")  # L318-L345
    assert lines[317].strip() == "AutogradFunctionality,"
    assert lines[330].strip() == "// TODO: make Autocast a functionality key"
    assert [line.strip().rstrip(",") for line in lines[333:345] if line.strip().startswith("Autocast")] == [
        "AutocastCPU", "AutocastMTIA", "AutocastMAIA", "AutocastXPU", "AutocastIPU", "AutocastHPU", "AutocastXLA",
        "AutocastMPS", "AutocastCUDA", "AutocastPrivateUse1"]


def test_a_view_may_keep_its_base_metadata():
    """W[:] is a view (a new TensorImpl over the same storage) with sizes, strides and offset equal to W's."""
    W = running_example()[1].detach()
    view = W[:]
    assert view._is_view() and view is not W and view._base is W
    assert (view.shape, view.stride(), view.storage_offset()) == (W.shape, W.stride(), W.storage_offset())
    assert view.untyped_storage().data_ptr() == W.untyped_storage().data_ptr()


def test_some_in_place_operators_fall_through_ad_inplace_or_view_and_call_one_that_does_not():
    def falls_through(op):
        row = next(line for line in torch._C._dispatch_dump_table(op).splitlines()
                   if line.startswith("ADInplaceOrView"))
        return "fallthrough" in row

    assert not falls_through("aten::add_.Tensor")
    assert all(falls_through(op) for op in ("aten::multiply_.Scalar", "aten::clip_", "aten::_foreach_add_.Scalar"))


def test_linear_adds_the_bias_in_place_unless_a_dispatch_mode_is_on():
    """A non-contiguous 3-D input: linear adds the bias with add_; under a dispatch mode, with an out-of-place add."""
    _, W, b = running_example()
    transposed = torch.randn(2, 3, 64).transpose(0, 1)
    with recording_dispatch() as steps:
        F.linear(transposed, W, b)
    assert {s.op for s in steps if s.op.startswith("aten.add")} == {"aten.add_.Tensor"}
    adds = [name for name in logged(lambda: F.linear(transposed, W, b)) if name.startswith("aten::add")]
    assert adds == ["aten::add.Tensor"]


def test_only_a_per_backend_functionality_bit_prints_empty_alone():
    """AutogradFunctionality and Dense alone print as an empty set; with the CPU bit they make a key. AutogradOther,
    AutogradNestedTensor and ADInplaceOrView are bits of their own and print alone."""
    for bit, completed in ((K.AutogradFunctionality, "AutogradCPU"), (K.Dense, "CPU")):
        assert str(S(bit)) == "DispatchKeySet()"
        assert (S(bit) | S(K.CPU)).has(getattr(K, completed))  # the CPU key brings the CPU backend bit
    for name in ("AutogradOther", "AutogradNestedTensor", "ADInplaceOrView"):
        assert str(S(getattr(K, name))) == f"DispatchKeySet({name})"


def test_the_key_stack_figure_calls_its_orange_cell_the_top_of_the_key_set():
    """Under inference_mode the orange cell, the top of the call's key set, is a key where neither linear nor addmm
    ran a kernel: the legend and the caption do not say it fires first."""
    stacks, out = printed(key_stack.key_stacks)
    inference = next(s for s in stacks if s.label == "torch.inference_mode()")
    assert inference.first == "ADInplaceOrView"
    assert all(inference.first not in keys for keys in inference.ran.values())
    english = html.unescape(localize(out, "en"))
    assert "fires first" not in english and english.count("top of the call's key set") == 2


def test_autocast_caches_no_cast_under_inference_mode():
    """Under no_grad the second call in the region casts nothing; under inference_mode each call casts x, W and b
    again, and a mode sees aten::to, whose _to_copy runs below it."""
    x, W, b = running_example()
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.no_grad():
        assert [logged(lambda: F.linear(x, W, b)).count("aten::_to_copy") for _ in range(2)] == [3, 0]
    with torch.autocast("cpu", dtype=torch.bfloat16), torch.inference_mode():
        for _ in range(2):
            assert logged(lambda: F.linear(x, W, b)) == ["aten::to.dtype"] * 3 + ["aten::linear"]
        with recording_dispatch() as steps:
            F.linear(x, W, b)
    assert [s.key for s in steps if s.op == "aten._to_copy.default"].count("CPU") == 3


def test_a_composite_view_falls_through_ad_inplace_or_view_and_calls_one_that_does_not():
    """Under inference_mode t starts at ADInplaceOrView; swapaxes and view_as, views written as composites, start
    at CPU, and the transpose or view they call starts at ADInplaceOrView."""
    W = running_example()[1].detach()
    calls = {"aten.t.default": (lambda: W.t(), None),
             "aten.swapaxes.default": (lambda: W.swapaxes(0, 1), "aten.transpose.int"),
             "aten.view_as.default": (lambda: W.view_as(W), "aten.view.default")}
    for op, (call, inner) in calls.items():
        with torch.inference_mode(), recording_dispatch() as steps:
            call()
        assert steps[0].op == op
        if inner is None:
            assert steps[0].key == "ADInplaceOrView"
        else:
            assert steps[0].key == "CPU"
            assert next(s.key for s in steps if s.op == inner) == "ADInplaceOrView"


def bias_adds(call) -> set[str]:
    """The add operators linear's composite runs for a non-contiguous 3-D input."""
    with recording_dispatch() as steps:
        call()
    return {s.op for s in steps if s.op.startswith("aten.add")}


def test_linear_adds_the_bias_out_of_place_inside_vmap_on_meta_and_with_a_tangent():
    """The separate add is in place for plain CPU tensors, out of place inside vmap, on meta tensors and for a bias
    with a forward-mode tangent."""
    import torch.autograd.forward_ad as fwAD

    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    transposed = torch.randn(2, 3, 64).transpose(0, 1)
    assert bias_adds(lambda: F.linear(transposed, W, b)) == {"aten.add_.Tensor"}
    batch = torch.randn(4, 2, 3, 64).transpose(1, 2)
    assert bias_adds(lambda: torch.vmap(lambda row: F.linear(row, W, b))(batch)) == {"aten.add.Tensor"}
    meta = [t.to("meta") for t in (transposed, W, b)]
    assert bias_adds(lambda: F.linear(*meta)) == {"aten.add.Tensor"}
    with fwAD.dual_level():
        dual = fwAD.make_dual(b, torch.randn_like(b))
        assert bias_adds(lambda: F.linear(transposed, W, dual)) == {"aten.add.Tensor"}


def test_autocast_keeps_its_casts_until_the_outermost_region_ends():
    """Leaving a nested region keeps the cached casts: the outer region's next call casts nothing."""
    x, W, b = running_example()

    def casts() -> int:
        return logged(lambda: F.linear(x, W, b)).count("aten::_to_copy")

    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert casts() == 3
        assert casts() == 0
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert casts() == 3


def test_vmap_adds_two_dynamic_layer_keys_and_the_front_one_tops_the_set():
    """Inside vmap the include set gains FuncTorchDynamicLayerBackMode and FrontMode; the set prints the back one
    first (lowest priority first), and the front one is the highest key."""
    x = running_example()[0]
    seen = []

    def look(row):
        seen.append(torch._C._dispatch_tls_local_include_set())
        return row

    torch.vmap(look)(x)
    names = [n for n in key_names(seen[0]) if n.startswith("FuncTorchDynamicLayer")]
    assert names == ["FuncTorchDynamicLayerBackMode", "FuncTorchDynamicLayerFrontMode"]
    assert seen[0].highestPriorityTypeId() == K.FuncTorchDynamicLayerFrontMode


def test_matmul_of_a_vector_by_a_matrix_is_three_operators_and_by_a_vector_one_dot():
    """A 1-D left operand with a 2-D right one: unsqueeze, mm, squeeze_; with a 1-D right one: one dot."""
    x, W, _ = running_example()
    v, Wt = x.detach()[0], W.detach().t()
    assert logged(lambda: torch.matmul(v, Wt)) == ["aten::unsqueeze", "aten::mm", "aten::squeeze_.dim"]
    assert logged(lambda: torch.matmul(v, v)) == ["aten::dot"]


def test_linear_views_the_input_as_one_matrix_only_for_a_contiguous_1d_bias():
    """A contiguous 3-D or 4-D input: one addmm with b or a bias that squeezes to 1-D; with a 0-dim, a 2-D or a
    non-contiguous bias, matmul's operators and a separate add."""
    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    fused = ["aten::view", "aten::t", "aten::addmm", "aten::view"]
    row = b[None].contiguous()

    def run(contiguous, bias):
        return logged(lambda: F.linear(contiguous, W, bias))

    for contiguous in (torch.randn(3, 2, 64), torch.randn(2, 3, 2, 64)):
        assert run(contiguous, b) == fused and run(contiguous, row) == ["aten::squeeze", *fused]
        for bias in (torch.tensor(0.5), b.expand(2, 600).contiguous(), torch.randn(1200)[::2]):
            ops = run(contiguous, bias)
            assert "aten::addmm" not in ops and ops[-1] == "aten::add.Tensor" and "aten::mm" in ops
    contiguous = torch.randn(3, 2, 64)
    assert bias_adds(lambda: F.linear(contiguous, W, torch.tensor(0.5))) == {"aten.add_.Tensor"}


class PlainSubclass(torch.Tensor):
    """A tensor subclass with neither __torch_function__ nor __torch_dispatch__ of its own."""


class FunctionSubclass(torch.Tensor):
    """A tensor subclass with only a __torch_function__, which runs before the dispatcher."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs or {})


def test_linear_adds_a_torch_dispatch_subclass_bias_out_of_place_and_a_parameter_in_place():
    """A bias that is a subclass with __torch_dispatch__ (TwoTensor) is added with an out-of-place add; an
    nn.Parameter, nn.Linear's bias included, or a plain subclass is added in place."""
    from torch.testing._internal.two_tensor import TwoTensor

    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    transposed = torch.randn(2, 3, 64).transpose(0, 1)
    assert bias_adds(lambda: F.linear(transposed, W, TwoTensor(b, b.clone()))) == {"aten.add.Tensor"}
    for bias in (torch.nn.Parameter(b.clone()), b.as_subclass(PlainSubclass)):
        assert bias_adds(lambda bias=bias: F.linear(transposed, W, bias)) == {"aten.add_.Tensor"}
    layer = torch.nn.Linear(64, 600)
    assert isinstance(layer.bias, torch.nn.Parameter) and bias_adds(lambda: layer(transposed)) == {"aten.add_.Tensor"}


def test_only_a_subclass_with_torch_dispatch_carries_the_python_key():
    """TwoTensor (a __torch_dispatch__ subclass) carries Python; nn.Parameter, a plain subclass and one with only
    __torch_function__ carry the four keys of a dense CPU tensor and no Python key."""
    from torch.testing._internal.two_tensor import TwoTensor

    b = running_example()[2].detach()
    assert "Python" in key_names(torch._C._dispatch_keys(TwoTensor(b, b.clone())))
    for tensor in (torch.nn.Parameter(b.clone()), b.as_subclass(PlainSubclass), b.as_subclass(FunctionSubclass)):
        assert list(key_names(torch._C._dispatch_keys(tensor))) == ["CPU", "ADInplaceOrView", "AutogradCPU",
                                                                    "AutocastCPU"]


FLATTEN_3D = """
import torch, torch.nn.functional as F
from hood.capture.ops import OpLog
W, b = torch.randn(600, 64), torch.randn(600)
for transposed in (torch.randn(2, 3, 64).transpose(0, 1), torch.randn(2, 3, 2, 64).transpose(0, 1)):
    for bias in (b, torch.tensor(0.5)):
        with OpLog() as log:
            F.linear(transposed, W, bias)
        print(",".join(log.names))
"""


def test_torch_linear_flatten_3d_copies_a_non_contiguous_input_into_one_addmm():
    """With TORCH_LINEAR_FLATTEN_3D=1 (read by a fresh process), a non-contiguous 3-D or 4-D input with a 1-D bias
    is copied (clone) and goes through one addmm; with a 0-dim bias it still goes through matmul's bmm and an add."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "TORCH_LINEAR_FLATTEN_3D": "1", "PYTHONPATH": f"{root / 'src'}{os.pathsep}{root}"}
    run = subprocess.run([sys.executable, "-W", "ignore", "-c", FLATTEN_3D], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    rows = [line.split(",") for line in run.stdout.split()]
    folded = ["aten::clone", "aten::view", "aten::t", "aten::addmm", "aten::view"]
    assert rows[0] == rows[2] == folded
    for ops in (rows[1], rows[3]):
        assert "aten::addmm" not in ops and "aten::bmm" in ops and ops[-1] == "aten::add.Tensor"


def test_dump_table_returns_the_table_and_prints_nothing():
    """_dispatch_dump_table returns a string with one line per key; calling it writes nothing to stdout."""
    with captured_stdout() as out:
        table = torch._C._dispatch_dump_table("aten::addmm")
    assert out.getvalue() == ""
    assert isinstance(table, str) and any(line.startswith("AutogradCPU") for line in table.splitlines())


def test_a_mode_and_vmap_add_keys_above_the_seven_of_the_priority_block():
    """The priority block's seven keys top out at FuncTorchBatched; PythonTLSSnapshot (a dispatch mode's) and
    FuncTorchDynamicLayerFrontMode (vmap's) outrank all seven."""
    from snippets.dispatcher import priority

    order, _ = printed(priority.key_priority)
    assert len(order) == 7 and order[0] == "FuncTorchBatched"
    with OpLog():
        mode_include = torch._C._dispatch_tls_local_include_set()
    assert mode_include.has(K.PythonTLSSnapshot)
    seven = S(K.Undefined)
    for name in order:
        seven = seven | S(getattr(K, name))
    for extra in (K.PythonTLSSnapshot, K.FuncTorchDynamicLayerFrontMode):
        assert (seven | S(extra)).highestPriorityTypeId() == extra


def test_the_tables_meta_row_is_met_by_meta_tensors_and_never_by_a_cpu_call():
    """The tables block shows a Meta row; the CPU walk of F.linear never reaches Meta, the meta walk never CPU."""
    from snippets.dispatcher import tables

    shown, _ = printed(tables.operator_tables)
    assert all("Meta" in rows for rows in shown.values())
    x, W, b = running_example()
    for args, met, never in (((x, W, b), "CPU", "Meta"), ([t.detach().to("meta") for t in (x, W, b)], "Meta", "CPU")):
        with recording_dispatch() as steps:
            F.linear(*args)
        keys = {s.key for s in steps}
        assert met in keys and never not in keys


def test_linear_hands_addmm_the_bias_as_passed_so_a_1_1_n_bias_raises_there():
    """A (1, 600) bias works; a (1, 1, 600) one makes addmm raise for a 2-D or a contiguous input, while the matmul
    path (a non-contiguous input) adds it."""
    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    row, cube = b[None].contiguous(), b[None, None].contiguous()
    transposed = torch.randn(2, 3, 64).transpose(0, 1)
    for inp in (torch.randn(2, 64), torch.randn(64), torch.randn(3, 2, 64)):
        assert F.linear(inp, W, row).shape[-1] == 600
        with pytest.raises(RuntimeError, match=r"expand\(torch.FloatTensor\{\[1, 1, 600\]\}"):
            F.linear(inp, W, cube)
    assert torch.allclose(F.linear(transposed, W, cube), transposed @ W.t() + cube, atol=1e-5)


def test_only_a_tensor_allocated_under_inference_mode_lacks_the_autograd_keys():
    """Under inference_mode a new tensor carries CPU and AutocastCPU; a view or a detach() of an ordinary tensor
    keeps all four keys."""
    x = running_example()[0]
    with torch.inference_mode():
        made, view, detached = torch.ones(3), x[0], x.detach()
    assert list(key_names(torch._C._dispatch_keys(made))) == ["CPU", "AutocastCPU"]
    for tensor in (view, detached):
        assert list(key_names(torch._C._dispatch_keys(tensor))) == ["CPU", "ADInplaceOrView", "AutogradCPU",
                                                                    "AutocastCPU"]


def test_the_tables_list_their_keys_by_priority_then_meta():
    """The tables' rows run from the highest-priority key down (FuncTorchBatched first), then Meta."""
    from hood.capture.tables import KEYS

    cpu_keys = S(K.Undefined)
    for name in KEYS[:-1]:
        cpu_keys = cpu_keys | S(getattr(K, name))
    assert list(KEYS[:-1]) == list(reversed(key_names(cpu_keys))) and KEYS[0] == "FuncTorchBatched"
    assert KEYS[-1] == "Meta"


def test_a_call_starts_at_the_key_views_first_key_unless_its_operator_falls_through_it():
    """Under inference_mode key_view's first key is ADInplaceOrView: add_ on an ordinary tensor starts there,
    linear, which falls through it, starts at CPU."""
    x, W, b = running_example()
    y = torch.zeros(3)
    with torch.inference_mode():
        first = key_view("x", x).first
        with recording_dispatch() as steps:
            F.linear(x, W, b)
            y.add_(1)
    starts = {op: next(s.key for s in steps if s.op == op) for op in ("aten.linear.default", "aten.add_.Tensor")}
    assert first == "ADInplaceOrView"
    assert starts == {"aten.linear.default": "CPU", "aten.add_.Tensor": first}


def test_a_mode_logs_the_calls_reaching_the_python_key_not_those_the_kernels_below_make():
    """addmm's CPU kernel calls expand and copy_ below the Python key; the mode logs only t and addmm."""
    x, W, b = running_example()
    with recording_dispatch() as steps:
        F.linear(x, W, b)
    below = {s.op for s in steps if s.key == "CPU"}
    assert {"aten.expand.default", "aten.copy_.default"} <= below
    assert logged(lambda: F.linear(x, W, b)) == ["aten::t", "aten::addmm"]


def test_a_table_names_a_cpp_file_outside_torch_and_hides_a_python_one():
    """load_inline writes main.cpp outside torch, and the table names it; a Python file there is YOUR_CODE."""
    from torch.utils.cpp_extension import _get_build_directory

    from hood.capture.tables import YOUR_CODE, source_name

    main = f"{_get_build_directory('hood_cpp', verbose=False)}/main.cpp"  # where the C++ registration block's file is
    assert not main.startswith(str(Path(torch.__file__).parent))
    assert source_name(main) == "main.cpp"
    assert source_name(main.removesuffix(".cpp") + ".py") == YOUR_CODE


def test_a_dumped_table_has_a_row_only_for_the_keys_with_an_entry():
    """Dozens of rows, fewer than there are keys, and fewer for a new operator than for addmm."""
    lib = torch.library.Library("hood_rows", "DEF")
    try:
        lib.define("f(Tensor x) -> Tensor")
        rows = {op: len(torch._C._dispatch_dump_table(op).splitlines()) for op in ("aten::addmm", "hood_rows::f")}
    finally:
        lib._destroy()
    assert 24 <= rows["hood_rows::f"] < rows["aten::addmm"] < len(K.__members__)


def test_calls_inside_a_cpu_kernel_start_at_cpu_only_below_a_kernel_that_excludes_ad_inplace_or_view():
    """Outside a context every call inside a CPU kernel starts at CPU. Under inference_mode t's ADInplaceOrView
    kernel still excludes that key for the transpose below it, but addmm goes straight to CPU, and the expand and
    copy_ its kernel calls start at ADInplaceOrView (at CPU again once the key is excluded)."""
    x, W, b = running_example()
    inner = ("aten.transpose.int", "aten.expand.default", "aten.copy_.default")

    def starts(*contexts) -> list[str]:
        with contextlib.ExitStack() as stack:
            for context in contexts:
                stack.enter_context(context)
            with recording_dispatch() as steps:
                F.linear(x, W, b)
        return [next(s.key for s in steps if s.op == op) for op in inner]

    assert starts() == ["CPU", "CPU", "CPU"]
    assert starts(torch.inference_mode()) == ["CPU", "ADInplaceOrView", "ADInplaceOrView"]
    assert starts(torch.inference_mode(), torch._C._AutoDispatchBelowADInplaceOrView()) == ["CPU", "CPU", "CPU"]


def test_the_autograd_fallback_lets_autograd_record_inside_the_kernel_and_warns():
    """With no formula for scale, the AutogradCPU fallback runs the kernel with autograd on: the mul inside is
    recorded and backward gives the right gradient with a warning; a kernel that detaches gives no gradient."""
    lib = torch.library.Library("hood_fallback", "DEF")
    try:
        for name, kernel in (("scale", lambda x, factor: x * factor),
                             ("hidden", lambda x, factor: x.detach() * factor)):
            lib.define(f"{name}(Tensor x, float factor) -> Tensor")
            lib.impl(name, kernel, "CPU")
        a = torch.ones(3, requires_grad=True)
        with recording_dispatch() as steps:
            out = torch.ops.hood_fallback.scale(a, 2.5)
        assert ("aten.mul.Tensor", "AutogradCPU") in [(s.op, s.key) for s in steps]
        with pytest.warns(UserWarning, match="an autograd kernel was not registered"):
            out.sum().backward()
        assert a.grad.tolist() == [2.5, 2.5, 2.5]
        a.grad = None
        with pytest.warns(UserWarning, match="an autograd kernel was not registered"):
            torch.ops.hood_fallback.hidden(a, 2.5).sum().backward()
        assert a.grad is None
    finally:
        lib._destroy()


def test_aten_add_has_a_default_overload_only_in_torchscript_so_its_table_is_empty():
    """torch.ops.aten.add.default is TorchScript's add of two scalars; the dispatcher holds only add.Tensor,
    add.Scalar and their out forms, so the table of 'aten::add' is empty and that of 'aten::linear' is not."""
    assert "default" in torch.ops.aten.add.overloads() and torch.ops.aten.add.default(2, 3) == 5
    assert str(torch.ops.aten.add.default._schema) == "aten::add(Scalar a, Scalar b) -> Scalar"
    assert str(torch.ops.aten.add.default._schema) in map(str, torch._C._jit_get_schemas_for_operator("aten::add"))
    held = {name for name in torch._C._dispatch_get_all_op_names() if name.split(".")[0] == "aten::add"}
    assert held == {"aten::add.Tensor", "aten::add.Scalar", "aten::add.out", "aten::add.Scalar_out"}
    assert torch._C._dispatch_dump_table("aten::add") == ""
    assert "aten::linear" in torch._C._dispatch_get_all_op_names() and torch._C._dispatch_dump_table("aten::linear")
