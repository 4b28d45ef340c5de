"""Theory 01's figures: the facts each one draws and the page states, asserted on the data it was drawn from."""

import pytest
import torch

from hood.capture.common import key_names, localize
from hood.capture.figure import figure_data
from hood.capture.ops import OpLog
from hood.stdout import printed
from snippets.dispatcher import key_stack, nesting, storage_grid, tables, walk, walk_diagram
from snippets.running_example import running_example

LINEAR, ADDMM = key_stack.WALKED


@pytest.fixture(scope="module")
def stacks():
    result, out = printed(key_stack.key_stacks)
    return {s.label: s for s in result}, out


@pytest.fixture(scope="module")
def tree():
    return printed(walk_diagram.walk_diagram)


@pytest.fixture(scope="module")
def grid():
    return printed(storage_grid.storage_grid)


@pytest.mark.parametrize("name", ["stacks", "tree", "grid"])
def test_each_figure_speaks_both_languages_and_its_data_neither(name, request):
    out = request.getfixturevalue(name)[1]
    assert out.count('<figure class="hood-figure">') == 1
    assert localize(out, "en") != localize(out, "es")
    data = figure_data(out)
    assert "\u27e6" not in data and "<svg" not in data and data.startswith("[figure]\n")


def test_key_stack_columns_and_rows(stacks):
    by_label, _ = stacks
    assert list(by_label) == list(key_stack.CONTEXTS)
    everything = by_label["OpLog(), a TorchDispatchMode"].carried
    assert everything == ("PythonTLSSnapshot", "AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Python",
                          "BackendSelect", "CPU")  # highest priority first
    for s in by_label.values():  # the first coloured cell of a column is the top of the call's key set
        assert s.effective[0] == s.first and set(s.effective) | set(s.excluded) == set(s.carried)


def test_no_grad_draws_the_same_column_as_no_context(stacks):
    by_label, _ = stacks
    default, no_grad = by_label["no context"], by_label["torch.no_grad()"]
    assert (default.carried, default.effective, default.first, default.ran) == (
        no_grad.carried, no_grad.effective, no_grad.first, no_grad.ran)
    assert default.first == "AutogradCPU" and default.excluded == ("AutocastCPU",)
    assert default.ran == {LINEAR: ("AutogradCPU",), ADDMM: ("AutogradCPU", "CPU")}


def test_under_inference_mode_the_first_key_is_a_fallthrough_and_both_run_at_cpu(stacks):
    s = stacks[0]["torch.inference_mode()"]
    assert s.first == "ADInplaceOrView" and "AutogradCPU" in s.excluded
    assert s.ran == {LINEAR: ("CPU",), ADDMM: ("CPU",)}
    for op in ("aten::linear", "aten::addmm"):
        assert tables.table_rows(op, ("ADInplaceOrView",))[0].fallthrough


def test_autocast_fires_first_and_excludes_nothing_the_call_carries(stacks):
    s = next(v for label, v in stacks[0].items() if label.startswith("torch.autocast"))
    assert s.first == "AutocastCPU" and s.excluded == ()
    assert s.ran[LINEAR] == ("AutocastCPU", "AutogradCPU")


def test_a_dispatch_mode_adds_two_keys_and_addmm_goes_down_through_python(stacks):
    by_label, _ = stacks
    mode, default = by_label["OpLog(), a TorchDispatchMode"], by_label["no context"]
    added = set(mode.carried) - set(default.carried)
    assert added == {"PythonTLSSnapshot", "Python"}
    with OpLog():  # they come from the include set, not from the tensors
        assert added <= set(key_names(torch._C._dispatch_tls_local_include_set()))
    x, W, b = running_example()
    assert not added & {k for t in (x, W, b) for k in key_names(torch._C._dispatch_keys(t))}
    assert mode.first == "PythonTLSSnapshot"
    assert mode.ran[ADDMM] == ("PythonTLSSnapshot", "AutogradCPU", "Python", "CPU")
    assert "Python" not in mode.ran[LINEAR]


def test_the_walk_tree_numbers_the_walk_and_nests_its_calls(tree):
    calls, _ = tree
    steps, _ = printed(walk.linear_walk)
    assert sorted(n for c in calls for n in c.at) == list(range(1, 14))
    numbered = {n: (c.op, key, kernel) for c in calls for n, (key, kernel) in zip(c.at, c.keys)}
    assert [numbered[n] for n in range(1, 14)] == [(s.op, s.key, s.kernel) for s in steps]  # the 13 lines
    assert [(walk_diagram.short(c.op), c.level) for c in calls] == [
        ("linear", 0), ("t", 1), ("transpose.int", 2), ("as_strided", 3), ("addmm", 1), ("expand", 2),
        ("as_strided", 3), ("copy_", 2), ("resolve_conj", 2), ("resolve_conj", 2)]
    t = calls[1]
    assert [k for k, _ in t.keys] == ["AutogradCPU", "ADInplaceOrView", "CPU"] and t.at == [2, 3, 4]


def test_only_linear_and_what_its_composite_calls_go_through_autograd(tree):
    calls, _ = tree
    assert [walk_diagram.short(c.op) for c in calls if "AutogradCPU" in dict(c.keys)] == ["linear", "t", "addmm"]
    below = [c for c in calls if c.level >= 2]
    assert {walk_diagram.short(c.op) for c in below} == {
        "transpose.int", "as_strided", "expand", "copy_", "resolve_conj"}
    assert all(c.keys[0][0] == "CPU" for c in below)


def test_the_nested_recorder_takes_the_same_steps_as_the_flat_one():
    x, W, b = running_example()
    with nesting.nested_dispatch() as nested:
        torch.nn.functional.linear(x, W, b)
    steps, _ = printed(walk.linear_walk)
    assert [step for _, step in nested] == steps


def test_the_storage_grid(grid):
    (size, views), _ = grid
    x, W, b = running_example()
    assert W.numel() == 38400 and size == 12
    by_name = {v.layout.name: v for v in views}
    assert all(v.shared for v in views) and len(views) == 4
    for v in views:  # the cells read are those the strides and offset say
        lay = v.layout
        expected = [lay.offset + sum(i * s for i, s in zip(index, lay.stride))
                    for index in torch.cartesian_prod(*[torch.arange(n) for n in lay.shape]).tolist()]
        assert list(v.cells) == expected, lay.name
    assert by_name["W.t()"].cells[:6] == (0, 4, 8, 1, 5, 9) and sorted(by_name["W.t()"].cells) == list(range(12))
    assert by_name["W[1:3]"].layout.offset == 4 and by_name["W[1:3]"].cells == tuple(range(4, 12))
    narrow = by_name["W.narrow(1, 1, 2)"]
    assert narrow.layout.offset == 1 and narrow.layout.stride[0] == 4 and narrow.cells == (1, 2, 5, 6, 9, 10)


def test_the_views_share_a_storage_but_not_a_data_ptr(grid):
    (size, views), _ = grid
    W = torch.arange(float(size)).reshape(3, 4)  # the figure's W, and the views its rows name
    made = {"W": W, "W.t()": W.t(), "W[1:3]": W[1:3], "W.narrow(1, 1, 2)": W.narrow(1, 1, 2)}
    assert list(made) == [v.layout.name for v in views]
    for v in views:  # one storage address; each tensor's own data_ptr() is `offset` cells on
        t = made[v.layout.name]
        assert v.shared and t.untyped_storage().data_ptr() == W.untyped_storage().data_ptr()
        assert t.data_ptr() - W.data_ptr() == v.layout.offset * W.element_size()
    assert made["W[1:3]"].data_ptr() - W.data_ptr() == 16
