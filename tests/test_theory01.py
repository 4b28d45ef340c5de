"""Every claim theory 01 makes about its outputs, asserted on the same snippet functions."""

from __future__ import annotations


import pytest

from hood.capture.common import localize
from hood.capture.tables import YOUR_CODE
from hood.stdout import printed
from snippets.dispatcher import contexts as context_snippets
from snippets.dispatcher import (
    contiguity, key_sets, registration, strides, tables, trace_env, walk, walk_contexts)

DENSE_CPU = ["CPU", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_dense_cpu_tensors_share_four_keys_whatever_dtype_or_grad():
    views = {v.label.split(":")[0]: v for v in [*quiet(key_sets.tensor_key_sets), *quiet(key_sets.made_differently)]}
    dense = list(views.values())[:4]  # float32 with and without grad, float16, int64: made outside inference_mode
    assert [v.label.split(":")[0] for v in dense] == ["x", "x.detach()", "x.half()", "torch.arange(3)"]
    assert all(v.tensor == DENSE_CPU for v in dense)
    # the counterexamples the page shows: an inference tensor has no autograd key, lazy views add one
    made_inside = next(v for v in views.values() if "inference_mode" in v.label)
    assert made_inside.tensor == ["CPU", "AutocastCPU"]
    conj = next(v for v in views.values() if "conjugate view" in v.label)
    neg = next(v for v in views.values() if "negative view" in v.label)
    assert conj.tensor == ["CPU", "Conjugate", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]
    assert neg.tensor == ["CPU", "Negative", "ADInplaceOrView", "AutogradCPU", "AutocastCPU"]
    meta = next(v for v in views.values() if "meta" in v.label)
    assert "Meta" in meta.tensor and "AutogradMeta" in meta.tensor and "CPU" not in meta.tensor
    sparse = next(v for v in views.values() if "sparse" in v.label)
    assert "SparseCPU" in sparse.tensor


@pytest.fixture(scope="module")
def contexts():
    return {localize(v.label, "en"): v for v in quiet(context_snippets.context_key_sets)}


def test_tensor_keys_change_only_inside_vmap(contexts):
    assert len(contexts) == 5
    for label, view in contexts.items():
        assert (view.tensor == DENSE_CPU) != ("vmap" in label), label


def test_by_default_autocast_is_excluded_and_autograd_fires(contexts):
    default = contexts["no context"]
    assert "AutocastCPU" in default.exclude and "AutocastCPU" in default.tensor
    assert default.include == ["BackendSelect", "ADInplaceOrView"]
    assert default.first == "AutogradCPU"


def test_no_grad_changes_nothing_in_the_key_sets(contexts):
    default, no_grad = contexts["no context"], contexts["torch.no_grad()"]
    assert (no_grad.tensor, no_grad.include, no_grad.exclude, no_grad.first) == (
        default.tensor, default.include, default.exclude, default.first)


def test_inference_mode_drops_inplace_view_and_the_autograd_functionality(contexts):
    view = contexts["torch.inference_mode()"]
    assert "ADInplaceOrView" not in view.include
    assert [k for k in view.exclude if not k.startswith("Autocast")] == ["AutogradOther", "AutogradNestedTensor"]
    assert "AutogradCPU" in view.tensor and "AutogradCPU" not in view.effective
    assert view.first == "ADInplaceOrView"


def test_autocast_lifts_its_key_out_of_the_exclude_set(contexts):
    view = next(v for label, v in contexts.items() if label.startswith("torch.autocast"))
    assert "AutocastCPU" not in view.exclude
    assert view.first == "AutocastCPU"


def test_vmap_adds_batched_key_and_dynamic_layer_keys(contexts):
    view = next(v for label, v in contexts.items() if "vmap" in label)
    assert "FuncTorchBatched" in view.tensor
    assert {"FuncTorchDynamicLayerFrontMode", "FuncTorchDynamicLayerBackMode"} <= set(view.include)
    assert view.first == "FuncTorchDynamicLayerFrontMode"


def test_operator_tables():
    t = quiet(tables.operator_tables)
    linear, addmm, add = t["aten::linear"], t["aten::addmm"], t["aten::add.Tensor"]
    for key in ("CPU", "AutogradCPU"):
        assert linear[key].kind == "math kernel"
        assert linear[key].source.startswith("RegisterCompositeImplicitAutograd")
    for op in (addmm, add):
        assert op["AutogradCPU"].kind == "autograd kernel" and op["AutogradCPU"].source.startswith("VariableType_")
        assert op["CPU"].kind == "kernel" and op["CPU"].source.startswith("RegisterCPU_")
    for op in (linear, addmm, add):
        assert op["ADInplaceOrView"].fallthrough and op["BackendSelect"].fallthrough
    assert linear["AutocastCPU"].kind == addmm["AutocastCPU"].kind == "kernel"
    assert not linear["AutocastCPU"].fallthrough and not addmm["AutocastCPU"].fallthrough
    assert add["AutocastCPU"].fallthrough


def test_show_dispatch_trace_prints_nothing_in_the_release_wheel():
    assert quiet(trace_env.dispatch_trace_env) == ""


def pairs(steps):
    return [(s.op, s.key, s.kernel) for s in steps]


def test_linear_walk_in_order():
    steps = pairs(quiet(walk.linear_walk))
    assert steps[0] == ("aten.linear.default", "AutogradCPU", "CompositeImplicitAutograd")
    assert steps[1:4] == [
        ("aten.t.default", "AutogradCPU", "Autograd"),
        ("aten.t.default", "ADInplaceOrView", "ADInplaceOrView"),
        ("aten.t.default", "CPU", "CompositeExplicitAutograd"),
    ]
    assert [s[0] for s in steps[4:6]] == ["aten.transpose.int", "aten.as_strided.default"]
    i = steps.index(("aten.addmm.default", "AutogradCPU", "Autograd"))
    assert steps[i + 1] == ("aten.addmm.default", "CPU", "CPU")
    after = [s[0] for s in steps[i + 2:]]
    assert "aten.expand.default" in after and "aten.copy_.default" in after
    # the belief box: no matmul, mm or add below addmm's CPU kernel
    assert not {"aten.matmul.default", "aten.mm.default", "aten.add.Tensor"} & set(after)
    assert steps[-2:] == [("aten.resolve_conj.default", "CPU", "CompositeImplicitAutograd")] * 2


def test_walks_in_contexts():
    walks = {label: pairs(steps) for label, steps in quiet(walk_contexts.walk_in_contexts).items()}
    assert ("aten.linear.default", "AutogradCPU", "CompositeImplicitAutograd") in walks["torch.no_grad()"]
    assert ("aten.addmm.default", "AutogradCPU", "Autograd") in walks["torch.no_grad()"]
    inference = walks["torch.inference_mode()"]
    assert inference == [("aten.linear.default", "CPU", "CompositeImplicitAutograd"),
                         ("aten.addmm.default", "CPU", "CPU")]
    autocast = next(v for k, v in walks.items() if k.startswith("torch.autocast"))
    assert autocast[0] == ("aten.linear.default", "AutocastCPU", "AutocastCPU")
    assert autocast[1] == ("aten.linear.default", "AutogradCPU", "CompositeImplicitAutograd")


def test_registration_adds_a_cpu_row():
    (before, after, result), out = printed(registration.register_and_show)
    # one Markdown table, a column before impl() and one after, then the call's result in code spans
    header = localize(out, "en").splitlines()[0]
    assert header == "| key | after `define()`, before `impl()` | after `impl('scale', scale_cpu, 'CPU')` |"
    assert localize(out, "es").splitlines()[0] == (
        "| clave | tras `define()`, antes de `impl()` | tras `impl('scale', scale_cpu, 'CPU')` |")
    assert "| `CPU` | - | kernel · `" in out
    assert out.endswith("\n\n`torch.ops.hood_demo.scale(torch.ones(3), 2.5)` = `[2.5, 2.5, 2.5]`\n")
    assert "CPU" not in before
    assert after["CPU"].kind == "kernel" and not after["CPU"].fallthrough
    assert after["CPU"].source == YOUR_CODE  # registered from code outside torch: its file is not named
    assert after["AutogradCPU"].kind == "backend fallback"
    assert result.tolist() == [2.5, 2.5, 2.5]
    again = quiet(registration.register_and_show)  # the namespace was released: it can be defined again
    assert again[2].tolist() == [2.5, 2.5, 2.5]


def test_views_share_storage_and_rewrite_strides():
    layouts = {lay.name: lay for lay in quiet(strides.views_of_w)}
    W = layouts["W"]
    for name in ("W.t()", "W[10:20]", "W.narrow(1, 8, 16)"):
        assert layouts[name].storage == W.storage, name
    assert layouts["W.t()"].stride == (1, 64) and W.stride == (64, 1)
    assert layouts["W[10:20]"].offset == 640 and layouts["W.narrow(1, 8, 16)"].offset == 8
    copy = layouts["W.t().contiguous()"]
    assert copy.storage != W.storage and copy.stride == (600, 1) and copy.contiguous
    assert not layouts["W.t()"].contiguous


def test_when_contiguity_matters():
    view_error, reshape_shares_storage, y = quiet(contiguity.when_contiguity_matters)
    assert view_error and "view size is not compatible" in view_error
    assert reshape_shares_storage is False
    assert y.shape == (2, 600) and y.is_contiguous()


def test_the_full_table_has_more_than_a_hundred_rows():
    import torch

    assert len(torch._C._dispatch_dump_table("aten::linear").splitlines()) > 100
