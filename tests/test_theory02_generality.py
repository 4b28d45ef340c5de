"""Theory 02's general sentences, narrowed where a counterexample broke them: which operations leave a node,
which outputs have a grad_fn, where a node keeps what it saved, what the version counter counts, where a tensor
hook stays after an in-place update, and the keys a dispatch mode meets under inference_mode."""

from __future__ import annotations

import threading

import pytest
import torch
import torch.nn.functional as F
from torch.testing._internal.optests.generate_tests import OpCheckError

from hood.capture.common import dispatch_table
from hood.capture.dispatch import recording_dispatch
from snippets.autograd.autograd_key import BelowAutograd
from snippets.custom_ops.record_ops import RecordOps
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example
from tests.pinned_source import tag_lines


@pytest.fixture(scope="module")
def scaled_linear():
    """The page's custom op, under a name of this module's own (a second definition would replace it)."""
    return define_scaled_linear("hood_theory02::scaled_linear")


def saved_attributes(node) -> set[str]:
    return {name for name in dir(node) if name.startswith("_saved_")}


def test_a_node_needs_grad_mode_and_a_new_tensor():
    """No node under no_grad; a conversion with nothing to do returns the tensor itself."""
    x = running_example()[0]
    assert (x * 2).grad_fn is not None
    assert x.contiguous() is x and x.float() is x
    with torch.no_grad():
        assert (x * 2).grad_fn is None


def test_enable_grad_inside_inference_mode_turns_grad_mode_on_and_still_records_no_node():
    """The intro's condition needs 'outside inference_mode' as well as grad mode on."""
    x = running_example()[0]
    with torch.inference_mode(), torch.enable_grad():
        assert torch.is_grad_enabled()
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad and y.is_inference()


def test_outputs_with_no_derivative_have_no_grad_fn():
    """Integer outputs (indices of max, sort) and native_layer_norm's mean and rstd have no grad_fn."""
    x = running_example()[0]
    values, indices = x.max(0)
    assert values.grad_fn is not None and indices.grad_fn is None and indices.dtype == torch.int64
    assert x.sort(1).indices.grad_fn is None
    out, mean, rstd = torch.native_layer_norm(x, (64,), None, None, 1e-5)
    assert out.grad_fn is not None and mean.dtype == rstd.dtype == torch.float32
    assert mean.grad_fn is None and rstd.grad_fn is None


def test_saved_attributes_name_arguments_outputs_or_derived_values(scaled_linear):
    """derivatives.yaml nodes: _saved_<argument>, _saved_<output>, _saved_<derived value>; Python-made nodes keep
    their tensors in saved_tensors and have no _saved_ attribute."""
    x, W, b = running_example()
    assert "_saved_mat1" in saved_attributes(F.linear(x, W, b).grad_fn)
    assert "_saved_indices" in saved_attributes(x.max(0).values.grad_fn)
    layer_norm = saved_attributes(F.layer_norm(x, (64,)).grad_fn)
    assert {"_saved_result1", "_saved_result2"} <= layer_norm and "_saved_result" not in layer_norm
    assert saved_attributes(x.exp().grad_fn) == {"_saved_result"}
    assert "_saved_self_sym_sizes" in saved_attributes(x.sum().grad_fn)
    node = scaled_linear(x, W, b, 0.5).grad_fn
    assert saved_attributes(node) == set() and len(node.saved_tensors) == 2

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            return 2 * grad * ctx.saved_tensors[0]

    node = Square.apply(x).grad_fn
    assert saved_attributes(node) == set() and node.saved_tensors[0] is x


def test_a_new_tensor_can_start_at_version_1():
    """matmul of a vector ends with squeeze_: the fresh result is at version 1."""
    assert torch.matmul(torch.ones(3), torch.ones(3, 2))._version == 1
    assert torch.ones(3)._version == 0


def test_a_mutating_custom_op_adds_two():
    """One call of a custom op whose kernel mutates its input in place adds two, not one."""

    @torch.library.custom_op("hood_theory02::double_in_place", mutates_args=("x",))
    def double_in_place(x: torch.Tensor) -> None:
        x.mul_(2)

    t = torch.ones(3)
    double_in_place(t)
    assert t._version == 2 and t.tolist() == [2.0, 2.0, 2.0]


def test_writes_that_bypass_the_dispatcher_add_nothing_and_go_unnoticed():
    """apply_, map_ and a NumPy view change the data at version 0; the backward runs and is silently wrong."""
    t = torch.zeros(3)
    t.apply_(lambda v: v + 1)
    t.map_(torch.ones(3), lambda a, c: a + c)
    t.numpy()[0] = 5
    assert t._version == 0 and t.tolist() == [5.0, 2.0, 2.0]
    W = torch.tensor([0.5, 1.0], requires_grad=True)
    h = (W * 2).exp()  # exp saves h
    h.detach().apply_(lambda v: v * 10)
    assert h._version == 0
    h.sum().backward()  # no version error
    assert torch.allclose(W.grad, 10 * 2 * (W.detach() * 2).exp())  # ten times the true gradient


def test_a_tensor_hook_stays_on_the_node_it_was_registered_on():
    """After y.mul_(5) y has a new grad_fn; the hook registered before runs with the old node's prehooks,
    before them."""
    x = running_example()[0]
    y = x * 2
    fired = []
    y.register_hook(lambda grad: fired.append("tensor hook"))
    old = y.grad_fn
    y.mul_(5)
    assert y.grad_fn is not old
    old.register_prehook(lambda grad_outputs: fired.append("prehook of the old node"))
    y.grad_fn.register_prehook(lambda grad_outputs: fired.append("prehook of y.grad_fn"))
    y.sum().backward()
    assert fired == ["prehook of y.grad_fn", "tensor hook", "prehook of the old node"]


def test_torch_autograd_grad_runs_no_accumulate_grad_but_still_calls_a_leaf_hook():
    """The leaf hook's replacement is the gradient grad() returns; .grad and AccumulateGrad's prehook stay untouched."""
    x = torch.randn(3, requires_grad=True)
    y = x * 3
    ran = []
    y.grad_fn.next_functions[0][0].register_prehook(lambda grad_outputs: ran.append("AccumulateGrad"))
    x.register_hook(lambda grad: ran.append("leaf hook") or grad * 2)
    (grad,) = torch.autograd.grad(y.sum(), x)
    assert ran == ["leaf hook"] and x.grad is None
    assert torch.equal(grad, torch.full((3,), 6.0))


def test_opcheck_misses_a_missing_backward_unless_an_input_requires_grad():
    """custom_op always has an Autograd kernel; only the AOTAutograd test, given an input that requires grad,
    runs the backward and fails."""
    bare = define_scaled_linear("hood_theory02::scaled_linear_bare", autograd=False)
    x, W, b = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3)
    assert set(torch.library.opcheck(bare, (x, W, b, 0.5)).values()) == {"SUCCESS"}
    x.requires_grad_()
    registration = torch.library.opcheck(bare, (x, W, b, 0.5), test_utils="test_autograd_registration")
    assert registration == {"test_autograd_registration": "SUCCESS"}
    with pytest.raises(OpCheckError, match="test_aot_dispatch_dynamic failed.*no autograd formula"):
        torch.library.opcheck(bare, (x, W, b, 0.5))


def test_under_inference_mode_linear_meets_python_tls_snapshot_then_python():
    """With RecordOps active, linear's first keys are PythonTLSSnapshot, then Python (the mode), then CPU."""
    x, W, b = running_example()
    with torch.inference_mode(), RecordOps() as rec, recording_dispatch() as steps:
        F.linear(x, W, b)
    linear = [s.key for s in steps if s.op == "aten.linear.default"]
    assert linear == ["PythonTLSSnapshot", "Python", "CPU"]
    assert rec.ops == ["aten.linear.default"]


def test_an_input_declared_non_differentiable_gets_no_entry_in_next_functions():
    """'an input the operator declares non-differentiable … gets no entry at all', unlike one that needs no grad."""
    import torch.nn.functional as F

    logp = torch.randn(2, 5, requires_grad=True).log_softmax(-1)
    assert len(F.nll_loss(logp, torch.tensor([1, 2])).grad_fn.next_functions) == 1
    w = torch.randn(5, 3, requires_grad=True)
    assert len(w.index_select(0, torch.tensor([0, 2])).grad_fn.next_functions) == 1
    a = torch.randn(3, requires_grad=True)
    assert (a * torch.randn(3)).grad_fn.next_functions[1][0] is None


FLASH, MATH = "ScaledDotProductFlashAttentionForCpuBackward0", "UnsafeViewBackward0"


def attention_node(shape, key=None, value=None, **kwargs) -> str:
    """The class of the last node scaled_dot_product_attention records, for a query of `shape` that requires grad."""
    q = torch.randn(shape, requires_grad=True)
    k = q if key is None else key
    out = F.scaled_dot_product_attention(q, k, k if value is None else value, **kwargs)
    return type(out.grad_fn).__name__


def test_attention_records_the_cpu_flash_node_only_for_a_4d_input_without_dropout():
    """And only when query, key and value share batch size, number of heads (fewer for key and value with
    enable_gqa=True) and head size, each with a last dimension of stride 1."""
    node, flash, math = attention_node, FLASH, MATH
    assert node((1, 2, 4, 8)) == flash
    assert node((2, 4, 8)) == node((1, 2, 4, 8), dropout_p=0.5) == math
    assert node((1, 2, 4, 8), value=torch.randn(1, 2, 4, 16)) == math  # another head size for value
    assert node((2, 2, 4, 8), key=torch.randn(1, 2, 4, 8)) == math  # key and value broadcast over the batch
    assert node((1, 2, 4, 8), key=torch.randn(1, 1, 4, 8)) == math  # key and value broadcast over the heads
    assert node((1, 4, 4, 8), key=torch.randn(1, 2, 4, 8), enable_gqa=True) == flash  # fewer heads, grouped
    transposed = torch.randn(1, 2, 8, 4).transpose(-1, -2)  # (1, 2, 4, 8), last stride 4
    assert node((1, 2, 4, 8), key=transposed) == math


def test_attention_keeps_the_flash_node_only_with_a_2d_or_4d_mask_that_does_not_require_grad():
    """A 3-D attn_mask, or one that requires grad (a learned bias), sends the call down the math path."""
    shape = (2, 2, 4, 8)
    for mask in (torch.zeros(4, 4), torch.ones(4, 4, dtype=torch.bool), torch.zeros(2, 1, 4, 4)):
        assert attention_node(shape, attn_mask=mask) == FLASH
    assert attention_node(shape, attn_mask=torch.zeros(2, 4, 4)) == MATH
    assert attention_node(shape, attn_mask=torch.zeros(4, 4, requires_grad=True)) == MATH


def test_an_autograd_function_records_its_node_outside_the_dispatcher():
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = torch.randn(3, requires_grad=True)
    autograd = torch._C.DispatchKeySet(torch._C.DispatchKey.AutogradFunctionality)
    with torch._C._ExcludeDispatchKeyGuard(autograd):
        assert torch.is_grad_enabled() and (x * 2).grad_fn is None
        assert type(Double.apply(x).grad_fn).__name__ == "DoubleBackward"


def test_operations_with_nothing_to_do_return_their_input_and_record_no_node():
    x = torch.randn(8, requires_grad=True)
    for same in (F.dropout(x, 0.5, training=False), F.dropout(x, 0.0), x.flatten(), x.contiguous()):
        assert same is x and same.grad_fn is None


def test_a_view_with_nothing_to_do_still_returns_a_new_tensor_with_a_node():
    """Only some operations with nothing to do return x: x.view(x.shape), x[:] and the like record a node."""
    x = torch.randn(3, 4, requires_grad=True)
    for view, node in ((x.view(x.shape), "ViewBackward0"), (x[:], "SliceBackward0"), (x.squeeze(), "SqueezeBackward0")):
        assert view is not x and type(view.grad_fn).__name__ == node


def test_a_python_number_torch_wraps_is_saved_without_pack():
    x, packed = torch.randn(3, requires_grad=True), []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        x * 2.0
    assert packed == []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        x * torch.tensor(2.0)
    assert packed == [torch.Size([])]


def test_an_in_place_write_to_a_saved_leaf_that_requires_grad_is_refused_at_once():
    x, W = torch.randn(2, 4, requires_grad=True), torch.randn(6, 4, requires_grad=True)
    F.linear(x, W)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)


def test_a_view_of_such_a_leaf_and_an_output_of_unbind_or_split_are_refused_at_once_too():
    """Outside no_grad only: the W.t() addmm saved, and a split output that requires grad, saved by mul."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    assert y.grad_fn._saved_mat2._base is W
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        y.grad_fn._saved_mat2.mul_(2)
    z = torch.randn(4, requires_grad=True) * 1
    for multiple in (z.unbind(), z.split(2)):
        part = multiple[0]
        part * part  # saves part
        with pytest.raises(RuntimeError, match="output of a function that returns multiple views"):
            part.mul_(2)
    with torch.no_grad():
        W.t().mul_(1)
        z.split(2)[0].mul_(1)


def test_sequence_numbers_are_per_thread_so_an_older_node_can_run_first():
    """exp, made first on a busy thread, outnumbers sin, made later on a fresh one, and runs before it."""
    x, made = torch.randn(3, requires_grad=True), {}

    def busy_then_exp():
        for _ in range(20):
            x * 1
        made["older"] = x.exp()

    def sin_on_a_fresh_thread():
        made["newer"] = x.sin()

    for target in (busy_then_exp, sin_on_a_fresh_thread):
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    older, newer, ran = made["older"], made["newer"], []
    assert older.grad_fn._sequence_nr() > newer.grad_fn._sequence_nr()
    older.grad_fn.register_prehook(lambda grad_outputs: ran.append("older"))
    newer.grad_fn.register_prehook(lambda grad_outputs: ran.append("newer"))
    (older.sum() + newer.sum()).backward()
    assert ran == ["older", "newer"]


def test_under_inference_mode_only_new_tensors_are_inference_tensors():
    """A view, a detach() and an in-place update of a normal tensor stay normal; the update still counts."""
    x, W, b = running_example()
    t = torch.zeros(3)
    with torch.inference_mode():
        y = F.linear(x, W, b)
        view, detached, updated = W.t(), W.detach(), t.add_(1)
    assert y.is_inference()
    assert not any(out.is_inference() for out in (view, detached, updated))
    assert updated is t and t._version == 1


def test_with_saved_tensors_hooks_a_pack_that_copies_keeps_the_gradient_right():
    """No version check either way; only a pack that kept the tensor itself sees the in-place change."""

    def gradient_after_an_in_place_change(hooks):
        W = torch.tensor([0.5, 1.0], requires_grad=True)
        with hooks:
            h = (W * 2).exp()  # exp saves h
        h.add_(1)
        h.sum().backward()  # no version error
        return W.grad

    W = torch.tensor([0.5, 1.0])
    right = 2 * (W * 2).exp()
    same = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
    copy = torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t)
    assert torch.allclose(gradient_after_an_in_place_change(same), right + 2)
    assert torch.allclose(gradient_after_an_in_place_change(copy), right)
    pinned = torch.autograd.graph.save_on_cpu(pin_memory=True)
    assert torch.allclose(gradient_after_an_in_place_change(pinned), right)


def test_an_autograd_kernel_saves_an_input_before_the_redispatch_and_an_output_after_it():
    """addmm packs x before the Python key runs it; exp and relu pack their result after."""
    x, W, b = running_example()
    for call, op, saves_first in ((lambda: F.linear(x, W, b), "aten.addmm", True),
                                  (lambda: x.exp(), "aten.exp", False), (lambda: x.relu(), "aten.relu", False)):
        events = []
        with torch.autograd.graph.saved_tensors_hooks(lambda t, events=events: events.append("pack") or t, lambda t: t):
            with BelowAutograd(events):
                call()
        runs = next(i for i, event in enumerate(events) if f"runs {op}.default" in event)
        assert (events.index("pack") < runs) is saves_first


def test_a_view_made_under_no_grad_or_inference_mode_and_an_out_write_are_refused_at_once_too():
    """Three more refusals of an in-place write into a saved h (exp saves it) that requires grad."""
    x = torch.randn(3, requires_grad=True)
    modes = ((torch.no_grad, "created in no_grad mode"), (torch.inference_mode, "created in inference mode"))
    for mode, message in modes:
        h = x.exp()
        with mode():
            view = h[:2]
        with pytest.raises(RuntimeError, match=message):
            view.add_(1)
    h = x.exp()
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        torch.add(torch.ones(3), 1, out=h)
    assert h._version == 0


def test_a_composite_in_place_operation_can_add_more_than_one():
    """F.alpha_dropout(h, inplace=True) is mul_ then add_ on h: two in-place calls, two versions."""
    h = torch.randn(2, 4, requires_grad=True) * 1
    F.alpha_dropout(h, 0.5, training=True, inplace=True)
    assert h._version == 2


def test_under_inference_mode_no_in_place_write_is_refused():
    """The refusals need grad mode on: under inference_mode a leaf, a view of it, an unbind output and an out=
    write all go through; the version goes up and the node that saved h fails at backward time."""
    b, z = torch.randn(3, requires_grad=True), torch.randn(4, requires_grad=True) * 1
    h = b.exp()  # exp saves h
    with torch.inference_mode():
        b.add_(1)
        b[:2].mul_(2)
        z.unbind()[0].mul_(2)
        torch.add(torch.ones(3), 1, out=h)
    assert (b._version, z._version, h._version) == (2, 1, 1)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        h.sum().backward()


def test_outside_inference_mode_an_in_place_update_of_an_inference_tensor_raises_after_writing():
    """The error comes from the version bump, after the kernel ran: the data has changed. Through a detach() taken
    outside, an inference tensor with a counter of its own, nothing raises. The leaf refusal, by contrast, comes
    before the write."""
    with torch.inference_mode():
        t = torch.ones(3)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        _ = t._version
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        t.add_(1)
    assert t.tolist() == [2.0, 2.0, 2.0]
    detached = t.detach()
    assert detached.is_inference() and detached._version == 0
    detached.add_(1)
    assert detached._version == 1 and t.tolist() == [3.0, 3.0, 3.0]
    b = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        b.add_(1)
    assert b.tolist() == [1.0, 1.0, 1.0] and b._version == 0


def test_a_view_made_under_no_grad_of_a_saved_tensor_that_needs_no_grad_is_not_refused():
    """The refusal needs a base that requires grad: x, saved by mm for W's gradient, is written through such a view;
    the write goes through and the backward fails."""
    x, W = torch.randn(2, 4), torch.randn(4, 3, requires_grad=True)
    y = x @ W  # mm saves x
    for mode in (torch.no_grad, torch.inference_mode):
        with mode():
            view = x[:1]
        view.add_(1)
    assert x._version == 2
    with pytest.raises(RuntimeError, match="is at version 2; expected version 0"):
        y.sum().backward()


def test_a_view_of_an_inference_tensor_has_no_version_counter_wherever_it_is_taken():
    """Taken outside inference_mode, of the tensor or of a detach() of it (which has a counter): reading _version
    raises."""
    with torch.inference_mode():
        t = torch.ones(4)
    detached = t.detach()
    assert detached._version == 0
    for view in (t[:2], t.view(2, 2), detached[:2]):
        assert view.is_inference()
        with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
            _ = view._version


def test_a_node_with_several_outputs_gets_one_gradient_per_output():
    """Gradients are summed per output, not across outputs: split's node gets two, and None for an unused one."""
    x, seen = torch.randn(5, requires_grad=True), []
    y = x * 1
    y.grad_fn.register_prehook(lambda grad_outputs: seen.append([g.tolist() for g in grad_outputs]))
    (y * 2 + y * 3).sum().backward()  # two edges into one output: summed
    assert seen == [[[5.0] * 5]]
    for used in ("both", "first"):
        a, b = (x * 1).split([2, 3])
        seen.clear()
        a.grad_fn.register_prehook(lambda outputs: seen.append([g if g is None else g.shape for g in outputs]))
        (a.sum() + b.sum() if used == "both" else a.sum()).backward()
        assert seen == [[(2,), (3,)] if used == "both" else [(2,), None]]


def test_an_in_place_op_saves_a_copy_of_an_input_it_overwrites_and_needs():
    """sin_ and mul_(w) need the old y: the autograd kernel clones it before the write; exp_ saves its output."""
    a, w = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    for op in (lambda y: y.sin_(), lambda y: y.mul_(w)):
        y = a * 1
        before = y.detach().clone()
        with RecordOps() as rec:
            op(y)
        saved = y.grad_fn._saved_self
        assert rec.ops[0] == "aten.clone.default"
        assert saved.data_ptr() != y.data_ptr() and torch.equal(saved, before) and not torch.equal(y, before)
    y = a * 1
    y.exp_()
    assert y.grad_fn._saved_result.data_ptr() == y.data_ptr()


def test_mul_copies_the_tensor_it_writes_into_only_when_the_other_factor_requires_grad():
    """y.mul_(w) with a w that needs no gradient clones nothing: only w's gradient needs the old y."""
    a = torch.randn(3, requires_grad=True)
    for w, copied in ((torch.randn(3), False), (torch.randn(3, requires_grad=True), True)):
        y = a * 1
        with RecordOps() as rec:
            y.mul_(w)
        assert ("aten.clone.default" in rec.ops) is copied
        assert (y.grad_fn._saved_self is not None) is copied and y.grad_fn._saved_other is w


def test_an_out_call_is_refused_at_once_when_any_argument_requires_grad():
    """The out= tensor t needs no grad (mul saved it for w's gradient); an input that requires grad is enough."""
    w, t, a = torch.randn(3, requires_grad=True), torch.randn(3), torch.randn(3, requires_grad=True)
    y = t * w  # saves t
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        torch.mul(a, 2, out=t)
    assert t._version == 0
    with torch.no_grad():
        torch.mul(a, 2, out=t)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()



def test_an_out_call_of_an_operator_with_no_derivative_is_let_through():
    """torch.eq(x, y, out=t) with x requiring grad writes into a saved t (the backward then fails) and into a leaf;
    sign, which has a derivative, is refused."""
    x, w, t = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True), torch.randn(3)
    y = t * w  # saves t
    torch.eq(x, x, out=t)
    assert t._version == 1 and t.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()
    torch.eq(x, x, out=w)
    assert w.is_leaf and w.requires_grad and w._version == 1
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        torch.sign(x, out=torch.zeros(3))

def test_an_out_call_of_a_composite_that_copies_into_out_is_let_through():
    """torch.inner(a, a, out=t) computes apart and copy_s into t: no refusal, t gets CopyBackwards and a version, the
    node that saved t fails at backward; a leaf out is still refused; mm, with its own autograd kernel, refuses."""
    a, w, t = torch.randn(3, 3, requires_grad=True), torch.randn(3, requires_grad=True), torch.zeros(3, 3)
    y = (t * w.sum()).sum()  # mul saves t
    with RecordOps() as rec:
        torch.inner(a, a, out=t)
    assert rec.ops[-1] == "aten.copy_.default" and "aten.mm.default" in rec.ops
    assert t._version == 1 and type(t.grad_fn).__name__ == "CopyBackwards"
    t.sum().backward()
    assert a.grad is not None
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.backward()
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.inner(a, a, out=torch.zeros(3, 3, requires_grad=True))
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        torch.mm(a, a, out=torch.zeros(3, 3))


def test_an_in_place_op_copies_only_the_argument_it_writes_into():
    """y.mul_(y) clones its self, once; its other is the overwritten y itself, so the backward raises."""
    a = torch.randn(3, requires_grad=True)
    y = a * 1
    with RecordOps() as rec:
        y.mul_(y)
    assert rec.ops == ["aten.clone.default", "aten.mul_.Tensor"]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_a_fused_optimizer_step_on_a_saved_weight_never_fails():
    """The Check yourself answer: the step adds nothing to the counter, and the backward uses the new weight."""
    for cls in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.Adagrad):
        w, x = torch.nn.Parameter(torch.ones(3)), torch.ones(3, requires_grad=True)
        y = (x * w).sum()  # MulBackward0 saves w for x's gradient
        w.grad = torch.ones(3)
        cls([w], lr=0.1, fused=True).step()
        y.backward()
        assert w._version == 0 and torch.equal(x.grad, w.detach()) and not torch.equal(x.grad, torch.ones(3))


def test_writes_that_bypass_the_dispatcher_refuse_a_tensor_that_requires_grad():
    """apply_, map_ and numpy() raise at once on h (exp saved it); through h.detach() they write, unnoticed."""
    W = torch.tensor([0.5, 1.0], requires_grad=True)
    h = (W * 2).exp()
    for write in (lambda t: t.apply_(lambda v: v * 10), lambda t: t.map_(torch.ones(2), lambda a, c: a + c),
                  lambda t: t.numpy().__setitem__(0, 5.0)):
        with pytest.raises(RuntimeError, match="on (Variable|Tensor) that requires grad"):
            write(h)
        write(h.detach())
    assert h._version == 0
    h.sum().backward()  # no version error



def test_numpy_refuses_a_tensor_that_requires_grad_only_with_grad_mode_on_and_without_force():
    """apply_ and map_ refuse h even under no_grad; numpy() hands back h's own memory under no_grad or with
    force=True, and a write there adds nothing: the backward runs on the new values."""
    W = torch.tensor([0.5, 1.0], requires_grad=True)
    h = (W * 2).exp()  # exp saves h
    with torch.no_grad():
        for write in (lambda t: t.apply_(lambda v: v), lambda t: t.map_(torch.ones(2), lambda a, c: a)):
            with pytest.raises(RuntimeError, match="on Variable that requires grad"):
                write(h)
        h.numpy()[0] = 5.0
    h.numpy(force=True)[1] = 7.0
    assert h.requires_grad and h._version == 0 and h.tolist() == [5.0, 7.0]
    h.sum().backward()  # no version error
    assert W.grad.tolist() == [10.0, 14.0]  # 2 * h, with the written values

def test_passing_at_ad_inplace_or_view_is_not_enough_a_foreach_step_still_adds_one():
    """Fused and foreach operators both fall through ADInplaceOrView; the foreach CPU kernel calls add_ per tensor,
    which bumps the counter, so a foreach optimizer step on a saved weight fails at backward, a fused one does not."""
    for op in ("aten::_fused_sgd_", "aten::_fused_adam_", "aten::_foreach_add_.Scalar",
               "aten::_foreach_addcdiv_.Scalar"):
        assert dispatch_table(op)["ADInplaceOrView"].fallthrough
    t = torch.zeros(3)
    with recording_dispatch() as steps:
        torch._foreach_add_([t], 1)
    assert ("aten.add_.Scalar", "ADInplaceOrView") in [(s.op, s.key) for s in steps] and t._version == 1
    for fused, version in ((True, 0), (False, 1)):
        w, x = torch.nn.Parameter(torch.ones(3)), torch.ones(3, requires_grad=True)
        y = (x * w).sum()  # MulBackward0 saves w for x's gradient
        w.grad = torch.ones(3)
        torch.optim.Adam([w], lr=0.1, fused=fused, foreach=not fused).step()
        assert w._version == version
        if fused:
            y.backward()
        else:
            with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
                y.backward()


def test_the_foreach_cuda_bump_is_at_the_lines_the_page_links():
    """The installed v2.13.0 header holds increment_version at the lines the page links (L15-L19)."""
    lines = tag_lines("include/ATen/native/cuda/ForeachFunctors.cuh")[14:19]
    assert lines[0] == "inline void increment_version(TensorList tensors) {"
    assert "bump_version()" in lines[2] and lines[4] == "}"
    assert torch.__version__.startswith("2.13.0")


def test_batch_norm_updates_its_running_stats_without_a_version_bump():
    """native_batch_norm's schema does not mark running_mean as written: no ADInplaceOrView kernel, no bump, and a
    node that saved running_mean computes with the new values."""
    assert not torch.ops.aten.native_batch_norm.default._schema.is_mutable
    assert torch.ops.aten._native_batch_norm_legit.default._schema.is_mutable  # this one marks them: (a!)
    assert dispatch_table("aten::native_batch_norm")["ADInplaceOrView"].fallthrough
    w, running_mean, running_var = torch.ones(3, requires_grad=True), torch.zeros(3), torch.ones(3)
    y = (running_mean * w).sum()  # mul saves running_mean for w's gradient
    with RecordOps() as rec:
        F.batch_norm(torch.randn(4, 3, requires_grad=True), running_mean, running_var, training=True)
    assert "aten.native_batch_norm.default" in rec.ops
    assert running_mean._version == running_var._version == 0 and running_mean.abs().sum() > 0
    y.backward()  # no version error
    assert torch.equal(w.grad, running_mean)  # the updated running mean, not the zeros mul saw
