"""Theory 01's added topics: priorities, inference-mode exclusions, composites, autocast, overrides, C++."""

import torch

from hood.capture.common import localize
from hood.capture.tables import YOUR_CODE
from hood.stdout import printed
from snippets.dispatcher import (
    autocast, contexts, cpp_registration, half, inference_keys, inspect_apis, matmul, override, priority, tables,
    walk)


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_priority_order_of_cpu_keys():
    order = quiet(priority.key_priority)
    assert order == ["FuncTorchBatched", "AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Python",
                     "BackendSelect", "CPU"]
    assert order.index("AutocastCPU") < order.index("AutogradCPU")


def test_priority_order_of_cuda_keys_is_the_same():
    assert quiet(priority.key_priority, priority.CUDA_CALL_KEYS) == [
        "AutocastCUDA", "AutogradCUDA", "ADInplaceOrView", "BackendSelect", "CUDA"]
    assert torch.get_autocast_dtype("cuda") == torch.float16


def test_inference_mode_excludes_the_three_autograd_keys():
    excluded, out = printed(inference_keys.inference_mode_exclusions)
    assert excluded == {"AutogradFunctionality": True, "AutogradOther": True, "AutogradNestedTensor": True}
    assert "AutogradFunctionality  excluded: True  prints as DispatchKeySet()\n" in localize(out, "en")
    assert "AutogradFunctionality  excluida: True  se imprime como DispatchKeySet()\n" in localize(out, "es")


def test_only_other_and_nested_print_in_the_exclude_set():
    view = next(v for v in quiet(contexts.context_key_sets) if v.label == "torch.inference_mode()")
    assert [k for k in view.exclude if not k.startswith("Autocast")] == ["AutogradOther", "AutogradNestedTensor"]


def test_inspection_calls():
    exists, dumps = quiet(inspect_apis.inspection_calls)
    assert exists == {"_dispatch_print_registrations": False, "_dispatch_print_registrations_for_dispatch_key": True}
    assert dumps["aten::add"] == "" and len(dumps["aten::add.Tensor"].splitlines()) > 50


def test_add_walk_is_autograd_then_cpu():
    steps = [(s.op, s.key, s.kernel) for s in quiet(walk.add_walk)]
    assert steps == [("aten.add.Tensor", "AutogradCPU", "Autograd"), ("aten.add.Tensor", "CPU", "CPU")]
    add = {row.key: row for row in tables.table_rows("aten::add.Tensor")}
    assert add["ADInplaceOrView"].fallthrough and add["BackendSelect"].fallthrough


def test_dispatch_mode_sees_neither_matmul_nor_linear_while_autograd_is_on():
    row, seen = quiet(matmul.matmul_ops)
    assert row.kind == "math kernel" and row.source.startswith("RegisterCompositeImplicitAutograd")
    assert seen["torch.matmul(x, Wt)"] == seen["x @ Wt"] == ["aten::mm"]
    # same shape (3, 2, 64), other strides, other operators: the composite reads the strides too
    assert seen["torch.matmul(x3, Wt), x3 strides (0, 64, 1)"] == [
        "aten::expand", "aten::view", "aten::expand", "aten::view", "aten::bmm", "aten::_unsafe_view"]
    assert seen["torch.matmul(c3, Wt), c3 strides (128, 64, 1)"] == ["aten::view", "aten::mm", "aten::_unsafe_view"]
    assert seen["F.linear(x, W, b)"] == ["aten::t", "aten::addmm"]
    assert not any(op in ("aten::matmul", "aten::linear") for ops in seen.values() for op in ops)


def test_autocast_casts_once_per_region():
    first, second = quiet(autocast.autocast_casts)
    assert [c.op for c in first] == ["aten::_to_copy"] * 3 + ["aten::t", "aten::addmm"]
    assert [c.out for c in first[:3]] == ["bf16[600]", "bf16[600, 64]", "bf16[2, 64]"]
    assert first[-1].out == "bf16[2, 600]"
    assert [c.op for c in second] == ["aten::t", "aten::addmm"]
    again, _ = quiet(autocast.autocast_casts)  # a new region casts again: the cache ends with the region
    assert [c.op for c in again][:3] == ["aten::_to_copy"] * 3


def test_half_linear_casts_nothing():
    calls = quiet(half.half_linear)
    assert [c.op for c in calls] == ["aten::t", "aten::addmm"]
    assert all(c.out.startswith("f16") for c in calls)


def test_override_is_restored_and_leaks_nothing():
    rows, result, calls = quiet(override.override_add)
    rows = {localize(when, "en").strip(): row for when, row in rows.items()}
    assert rows["before"] == rows["restored"] == "kernel · RegisterCPU_0.cpp"
    assert rows["overridden"] == f"kernel · {YOUR_CODE}"  # code outside torch called impl
    assert result == [2.0, 2.0, 2.0] and len(calls) == 1
    assert (torch.ones(2) + torch.ones(2)).tolist() == [2.0, 2.0]
    assert tables.table_rows("aten::add.Tensor", ("CPU",))[0].source == "RegisterCPU_0.cpp"


def test_cpp_registration_compiles_and_fills_the_cpu_slot():
    rows, result = quiet(cpp_registration.compile_and_register)
    assert rows["CPU"].kind == "kernel" and rows["CPU"].source == "main.cpp"
    assert rows["AutogradCPU"].kind == "backend fallback"
    assert result.tolist() == [2.5, 2.5, 2.5]
