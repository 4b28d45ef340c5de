"""Theory 02's general sentences tried against their counterexamples, and its self-check answers."""

from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hood.capture.common import dispatch_table, localize
from snippets.autograd.grad_modes import runs_at
from snippets.autograd.inplace import version_counter
from snippets.autograd.predict import ops_under_inference_mode, view_versions
from snippets.custom_ops.dispatch_table import other_registrations
from snippets.custom_ops.record_ops import RecordOps
from snippets.running_example import running_example
from tests.pinned_source import tag_lines

TORCH = Path(torch.__file__).parent


def test_in_place_on_a_leaf_that_requires_grad_raises_at_once_and_works_under_no_grad(capsys):
    """'Only saved tensors are checked at backward time' holds, but a leaf that requires grad is refused earlier."""
    version_counter()
    lines = localize(capsys.readouterr().out, "en").splitlines()
    assert lines[-2] == ("b.add_(1) on the leaf b: RuntimeError: a leaf Variable that requires grad is being used "
                         "in an in-place operation.")
    assert lines[-1] == "under no_grad, b.add_(1): fine; b._version 1"
    # a non-leaf that no node saved: in place is fine, backward too
    _, W, _ = running_example()
    y = W * 2
    y.add_(1)
    y.sum().backward()
    assert torch.equal(W.grad, torch.full_like(W, 2.0))


def test_an_inference_tensor_has_no_version_counter():
    with torch.inference_mode():
        t = torch.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        _ = t._version


def test_next_functions_hold_none_for_an_input_that_needs_no_gradient():
    x = torch.ones(2, 3)
    W, b = torch.ones(4, 3, requires_grad=True), torch.ones(4, requires_grad=True)
    names = [None if n is None else type(n).__name__ for n, _ in F.linear(x, W, b).grad_fn.next_functions]
    assert names == ["AccumulateGrad", None, "TBackward0"]


def test_a_saved_output_is_another_object_over_the_same_memory():
    _, W, _ = running_example()
    h = (W * 2).exp()
    saved = h.grad_fn._saved_result
    assert saved is not h and saved.data_ptr() == h.data_ptr()


def test_the_dispatcher_drops_fallthrough_keys_before_picking_one():
    """The rule the page quotes, at the line it links (the installed header is the v2.13.0 one)."""
    header = tag_lines("include/ATen/core/dispatch/DispatchKeyExtractor.h")
    assert header[23].startswith("inline DispatchKeySet computeDispatchKeySet(")  # L24
    assert header[45].strip() == "return (((ks | local.included_) - local.excluded_) & key_mask);"  # L46
    assert torch.__version__.startswith("2.13.0")
    for op in ("aten::linear", "aten::addmm"):
        table = dispatch_table(op)
        assert table["ADInplaceOrView"].fallthrough and table["BackendSelect"].fallthrough
    assert runs_at("aten::addmm", ("CPU", "BackendSelect", "ADInplaceOrView")) == (["CPU"], "CPU")


def test_the_engine_header_lines_the_gpu_section_quotes():
    lines = tag_lines("include/torch/csrc/autograd/engine.h")[223:236]  # L224-L236
    assert lines[0].strip() == "// start device threads (CUDA, XLA, etc.) in Engine,"
    assert lines[1].strip() == "// note that it does NOT start CPU thread."
    assert "device_ready_queues_;" in lines[-1]


def test_custom_op_registrations_depend_on_mutation_and_device_types(capsys):
    found = other_registrations()
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "  tabla calculada, filas CPU y CUDA: CPU kernel; CUDA ninguna" in localize(printed, "es")
    assert [r.key for r in found["hood::scale_"][1]] == [
        "ADInplaceOrView", "Meta", "Autograd[alias]", "CompositeExplicitAutograd[alias]"]
    assert [r.key for r in found["hood::scaled_linear_cpu"][1]] == ["CPU", "Meta", "Autograd[alias]"]
    assert "computed table, CPU and CUDA rows: CPU default backend kernel; CUDA default backend kernel" in out
    assert "computed table, CPU and CUDA rows: CPU kernel; CUDA none" in out
    # the mutating op's ADInplaceOrView kernel bumps the version counter of what it mutates
    @torch.library.custom_op("hood_test::declares_mutation", mutates_args=("x",))
    def declares_mutation(x: torch.Tensor) -> None:
        pass  # writes nothing: whatever the version becomes, the ADInplaceOrView kernel did it

    t = torch.ones(3)
    declares_mutation(t)
    assert t._version == 1


def test_predicted_values():
    """The two 'Check yourself' answers; neither value is printed elsewhere on the page."""
    assert view_versions() == (2, 2)
    assert ops_under_inference_mode() == ["aten.linear.default"]
    x, W, b = running_example()
    with torch.no_grad(), RecordOps() as rec:
        F.linear(x, W, b)
    assert rec.ops == ["aten.t.default", "aten.addmm.default"]  # what the question says it sees by default


def test_a_predict_value_is_not_shown_before_its_block():
    for language in ("en", "es"):
        page = (Path(__file__).parents[1] / "docs" / language / "theory" / "02-autograd-and-custom-ops.md").read_text()
        for block, shown in (("predict-versions", "(2, 2)"), ("predict-inference-ops", "['aten.linear.default']")):
            assert shown not in page[: page.index(f'id="{block}"')]
