"""Theory 01's general sentences tried against counterexamples: inference mode, strides, fallthrough masks, vmap,
in-place operators, autocast's cache, and the two predictions of "Check yourself"."""

from __future__ import annotations

import re
from pathlib import Path

import torch
import torch.nn.functional as F

from hood.capture.common import localize
from hood.capture.dispatch import recording_dispatch
from hood.capture.ops import OpLog
from hood.stdout import printed
from snippets.dispatcher import composites_unfolded, masked, predict
from snippets.running_example import running_example
from tests.pinned_source import tag_lines

ROOT = Path(__file__).resolve().parents[1]


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_under_inference_mode_the_mode_sees_linear_and_matmul_whole():
    seen = quiet(composites_unfolded.composites_under_inference_mode)
    assert seen["no context"] == seen["torch.no_grad()"] == (["aten::t", "aten::addmm"], ["aten::mm"])
    assert seen["torch.inference_mode()"] == (["aten::linear"], ["aten::matmul"])


def test_the_fallthrough_mask_decides_where_a_call_starts():
    starts = quiet(masked.start_keys_under_inference_mode)
    assert starts["aten::linear"] == (["BackendSelect", "ADInplaceOrView"], "CPU", "CPU")
    assert starts["aten::addmm"] == (["BackendSelect", "ADInplaceOrView"], "CPU", "CPU")
    assert starts["aten::t"] == (["BackendSelect"], "ADInplaceOrView", "ADInplaceOrView")


def test_the_cited_line_masks_the_fallthrough_keys():
    """The page links DispatchKeyExtractor.h line 46 at v2.13.0; the installed header is that file."""
    lines = tag_lines("include/ATen/core/dispatch/DispatchKeyExtractor.h")
    assert lines[45].strip() == "return (((ks | local.included_) - local.excluded_) & key_mask);"
    assert "nonFallthroughKeys_" in "\n".join(lines[170:200])


def test_prediction_inplace_starts_at_inplace_or_view():
    assert quiet(predict.inplace_start_key) == "ADInplaceOrView"
    # the counterexample to "under inference_mode the call starts at CPU": an out-of-place op on the same tensor
    y = torch.zeros(3)
    with torch.inference_mode(), recording_dispatch() as steps:
        y.mul(2)
    assert steps[0].op == "aten.mul.Tensor" and steps[0].key == "CPU"


def test_prediction_matmul_with_a_vector_logs_three_operators():
    count, out = printed(predict.matmul_vector_ops)
    assert count == 3
    assert "aten::unsqueeze, aten::mm, aten::squeeze_.dim" in out


def test_vmap_wraps_the_argument_and_leaves_x_alone():
    x, W, b = running_example()
    before = torch._C._dispatch_keys(x)
    inside = []

    def look(row):
        inside.append((torch._C._dispatch_keys(row), torch._C._dispatch_keys(x)))
        return row

    torch.vmap(look)(x)
    row_keys, x_keys = inside[0]
    assert "FuncTorchBatched" in str(row_keys) and "FuncTorchBatched" not in str(x_keys)
    assert x_keys == before == torch._C._dispatch_keys(x)


def test_autocast_caches_only_leaves_that_require_grad():
    x, W, b = running_example()
    xd = x.detach()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with OpLog() as first:
            F.linear(xd, W, b)
        with OpLog() as second:
            F.linear(xd, W, b)
    assert first.names.count("aten::_to_copy") == 3
    assert second.names.count("aten::_to_copy") == 1  # xd needs no grad: it is cast again


def test_no_print_registrations_sentence_names_no_tutorials():
    for language in ("en", "es"):
        text = (ROOT / "docs" / language / "theory/01-dispatcher-and-aten.md").read_text()
        assert "_dispatch_print_registrations()` lists" not in text and "Older tutorials" not in text
        assert "Los tutoriales antiguos" not in text


def test_gpu_section_says_the_site_ran_no_cuda():
    en = (ROOT / "docs/en/theory/01-dispatcher-and-aten.md").read_text()
    es = (ROOT / "docs/es/theory/01-dispatcher-and-aten.md").read_text()
    assert "this site has no GPU and ran none of it on CUDA" in en and "cuBLAS" not in en
    assert "este sitio no tiene GPU y no ejecutó nada de esto en CUDA" in es and "cuBLAS" not in es


def test_the_page_names_your_code_for_rows_registered_outside_torch():
    en = (ROOT / "docs/en/theory/01-dispatcher-and-aten.md").read_text()
    es = (ROOT / "docs/es/theory/01-dispatcher-and-aten.md").read_text()
    assert "it names `your code`" in en and "registered from the file that called" not in en
    assert "pone\n`tu código`" in es or "pone `tu código`" in es


def test_predict_blocks_sit_in_collapsed_answer_boxes():
    for language in ("en", "es"):
        text = (ROOT / "docs" / language / "theory/01-dispatcher-and-aten.md").read_text()
        for name in ("first_key", "count"):
            block = re.search(rf'\n(?P<indent> *)```python[^\n]*predict="{name}"', text)
            assert block and len(block["indent"]) == 8
            before = text[:block.start()].rsplit("\n    ??? success", 1)
            assert len(before) == 2 and "\n## " not in before[1]


def test_autocast_casts_float16_too_and_leaves_float64():
    from snippets.dispatcher import autocast_dtypes

    casts, out = printed(autocast_dtypes.autocast_by_dtype)
    assert casts == {"torch.float32": 3, "torch.float16": 3, "torch.float64": 0}
    assert "torch.float64  inputs: 0 _to_copy, addmm -> f64[2, 600]" in localize(out, "en")
    assert "torch.float64  entradas: 0 _to_copy, addmm -> f64[2, 600]" in localize(out, "es")
    x, W, b = (t.detach() for t in running_example(dtype=torch.float16))  # the reading: b, W, x in that order
    with torch.autocast("cpu", dtype=torch.bfloat16), OpLog() as log:
        F.linear(x, W, b)
    assert [c.args[0] for c in log.calls if c.op == "aten::_to_copy"] == ["f16[600]", "f16[600, 64]", "f16[2, 64]"]


def test_contiguous_3d_operand_is_viewed_as_one_matrix_and_version_bumps():
    x, W, b = running_example()
    Wt, c3 = W.detach().t(), torch.randn(3, 2, 64)
    with OpLog() as log:
        torch.matmul(c3, Wt)
    assert log.calls[0].op == "aten::view" and log.calls[0].out == "f32[6, 64]"
    assert log.calls[1].op == "aten::mm" and log.calls[1].out == "f32[6, 600]"
    _, out = printed(predict.inplace_start_key)
    assert "starts at ADInplaceOrView (ADInplaceOrView kernel); y._version = 1" in localize(out, "en")
    assert "empieza en ADInplaceOrView (kernel ADInplaceOrView); y._version = 1" in localize(out, "es")
