"""Theory 00: the values of its two predict questions, and the narrowed sentences around `AddmmBackward0`."""

from pathlib import Path

import torch
import torch.nn.functional as F

from snippets.running_example import running_example

PAGES = [Path(__file__).resolve().parents[1] / "docs" / lang / "theory" / "00-why-open-the-hood.md"
         for lang in ("en", "es")]


def test_predict_linear_without_a_bias_records_mm():
    x, W, b = running_example()
    assert type(F.linear(x, W).grad_fn).__name__ == "MmBackward0"


def test_predict_a_3d_batch_records_a_view_of_an_addmm():
    x, W, b = running_example()
    y3 = F.linear(torch.randn(3, 2, 64, requires_grad=True), W, b)
    assert type(y3.grad_fn).__name__ == "ViewBackward0"
    assert [type(fn).__name__ for fn, _ in y3.grad_fn.next_functions] == ["AddmmBackward0"]


def test_addmm_needs_a_2d_x_and_a_bias_and_grad_mode():
    x, W, b = running_example()
    assert type(F.linear(x, W, b).grad_fn).__name__ == "AddmmBackward0"
    assert type(F.linear(x, W, b).grad_fn).__name__ == type(F.linear(x.double(), W.double(), b.double()).grad_fn
                                                            ).__name__  # another dtype: the same node
    with torch.no_grad():
        assert F.linear(x, W, b).grad_fn is None  # no graph is recorded: "when grad mode is on"
    with torch.inference_mode():
        assert F.linear(x, W, b).grad_fn is None
    assert F.linear(x.detach(), W.detach(), b.detach()).grad_fn is None  # no input requires grad


def test_the_head_is_76800_multiply_adds():
    x, W, b = running_example()
    assert x.shape[0] * W.shape[0] * W.shape[1] == 76800 and W.numel() == 38400


def test_the_pages_hold_two_predict_blocks_with_the_same_code():
    blocks = []
    for page in PAGES:
        text = page.read_text()
        assert 'predict="node_without_bias"' in text and 'predict="node_for_3d"' in text
        assert "every kernel runs in microseconds" not in text and "microsegundos" not in text
        blocks.append(text[text.index('id="predict-no-bias"'):text.index("## Further reading" if "Further" in text
                                                                            else "## Para seguir leyendo")])
    code = [[line for line in b.splitlines() if line.startswith("        ") and not line.startswith("        `")]
            for b in blocks]
    assert [line for line in code[0] if "x3 =" in line or "node_" in line] == [
        line for line in code[1] if "x3 =" in line or "node_" in line]


def test_inductors_triton_codegen_is_where_the_page_links():
    assert (Path(torch.__file__).parent / "_inductor" / "codegen" / "triton.py").is_file()
