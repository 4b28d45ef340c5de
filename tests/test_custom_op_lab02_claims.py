"""Lab 02's narrowed sentences, each asserted on a real output: detach, the CUDA row, gradgradcheck's memory."""

import importlib

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from hood.capture.common import localize

from snippets.custom_ops.compare_tables import cuda_rows
from snippets.custom_ops.head import TemperatureHead, train_step, who_detaches
from snippets.custom_ops.record_ops import RecordOps
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.running_example import running_example

gradcheck_module = importlib.import_module("torch.autograd.gradcheck")


@pytest.fixture(scope="module")
def scaled_linear():
    return define_scaled_linear()


def test_the_detach_is_called_only_under_a_dispatch_mode(scaled_linear, capsys):
    assert who_detaches() == (0, 1)
    printed = capsys.readouterr().out
    assert localize(printed, "en").splitlines() == [
        "profiler, no dispatch mode: aten::detach called 0 times",
        "profiler, under RecordOps:  aten::detach called 1 time; RecordOps saw aten.detach.default"]
    assert localize(printed, "es").splitlines() == [
        "profiler, sin modo de dispatch: aten::detach se llamó 0 veces",
        "profiler, bajo RecordOps:       aten::detach se llamó 1 vez; RecordOps vio aten.detach.default"]


def test_under_inference_mode_the_head_saves_nothing_and_no_detach_is_seen(scaled_linear):
    x, W, b = running_example()
    head = TemperatureHead(W, b)
    with torch.inference_mode(), RecordOps() as rec:
        head(x)
    assert "aten.detach.default" not in rec.ops


def test_the_cuda_row_is_filled_by_composite_explicit_autograd(scaled_linear, capsys):
    row = cuda_rows()
    assert row.kind == "default backend kernel" and not row.fallthrough
    assert localize(capsys.readouterr().out, "en").splitlines() == [
        "registered: Meta, Autograd[alias], CompositeExplicitAutograd[alias]",
        "computed CUDA row: default backend kernel (torch/_library/custom_ops.py)"]


def test_the_kernel_makes_the_calls_f_linear_makes(scaled_linear):
    """The task's `addmm(b, x, W.t()) * scale`: bit for bit what F.linear(x, W, b) * scale gives on this machine."""
    x, W, b = running_example()
    with torch.no_grad():
        assert torch.equal(scaled_linear(x, W, b, 0.5), F.linear(x, W, b) * 0.5)
    with RecordOps() as rec, torch.no_grad():
        F.linear(x, W, b) * 0.5
    assert rec.ops == ["aten.t.default", "aten.addmm.default", "aten.mul.Tensor"]


def test_slow_gradgradcheck_would_build_two_jacobians_of_12_6_gb(scaled_linear, monkeypatch):
    """Measured on small shapes (the allocation is inputs' entries x outputs' entries), then scaled to the lab's."""
    sizes = []
    real = gradcheck_module._allocate_jacobians_with_inputs

    def spy(inputs, numel_output):
        sizes.append(sum(t.numel() for t in inputs if t.requires_grad) * numel_output)
        return real(inputs, numel_output)

    monkeypatch.setattr(gradcheck_module, "_allocate_jacobians_with_inputs", spy)
    x = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    W = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda x, W, b: scaled_linear(x, W, b, 0.5), (x, W, b))
    inputs, outputs = 6 + 12 + 4 + 8, 6 + 12 + 4  # x, W, b and the upstream (2, 4) gradient; dx, dW, db
    assert sum(sizes) == 2 * inputs * outputs  # numerical and analytical, one block per (input, output) pair
    big_inputs, big_outputs = 2 * 64 + 600 * 64 + 600 + 2 * 600, 2 * 64 + 600 * 64 + 600
    assert (big_inputs, big_outputs) == (40_328, 39_128)
    assert round(big_inputs * big_outputs * 8 / 1e9, 1) == 12.6


def test_compiled_and_eager_stay_within_the_bound_the_page_prints(scaled_linear):
    x, W, b = running_example()
    target = torch.tensor([3, 17])
    head = TemperatureHead(W, b)
    compiled = train_step(torch.compile(head, fullgraph=True), x, target)
    x.grad, head.W.grad, head.b.grad = None, None, None
    eager = train_step(head, x, target)
    for c, e in zip(compiled, eager):
        assert (c - e).abs().max().item() < 1e-5  # cleared by 10x at least: "< 1e-04" reads the same everywhere
    assert np.spacing(np.float32(29)) == pytest.approx(1.9073486e-06)
