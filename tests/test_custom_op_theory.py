"""What theory 02 says about `hood::scaled_linear`, asserted on the functions its blocks call."""

import pytest
import torch

from hood.capture.common import localize
from hood.capture.custom_ops import dispatch_rows
from snippets.custom_ops.compiled_call import compiled_call
from snippets.custom_ops.dispatch_table import show_dispatch_table
from snippets.custom_ops.mode_trace import mode_trace
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.custom_ops.tour import custom_op_tour


@pytest.fixture(scope="module")
def scaled_linear():
    """The op, defined once for the module (a second definition would replace it)."""
    return define_scaled_linear()


def test_tour(scaled_linear, capsys):
    y, fake, meta = custom_op_tour(scaled_linear)
    printed = capsys.readouterr().out
    out = localize(printed, "en")
    assert "los tensores guardados son x y W: [True, True]" in localize(printed, "es")
    assert "equals F.linear(x, W, b) * 0.5: True" in out
    assert type(y.grad_fn).__name__ == "GeneratedBackwardFor_hood_scaled_linear_defaultBackward"
    assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    assert "saved tensors are x and W: [True, True]" in out
    assert isinstance(fake, torch._subclasses.fake_tensor.FakeTensor) and fake.shape == (2, 600)
    assert meta.device.type == "meta" and meta.shape == (2, 600)


def test_registrations_and_rows(scaled_linear):
    (schema, full), (_, bare), rows = show_dispatch_table()
    assert schema == "hood::scaled_linear(Tensor x, Tensor W, Tensor b, float scale) -> Tensor"
    assert [r.key for r in full] == ["Meta", "Autograd[alias]", "CompositeExplicitAutograd[alias]"]
    assert full == bare  # same keys, same file
    assert dispatch_rows("hood::scaled_linear") == dispatch_rows("hood::scaled_linear_bare")
    by_key = {r.key: r for r in rows}
    assert by_key["AutocastCPU"].fallthrough and by_key["ADInplaceOrView"].fallthrough
    assert by_key["AutogradCPU"].kind == "autograd kernel"
    assert by_key["AutogradCPU"].source == "torch/_library/custom_ops.py"
    assert by_key["CPU"].kind == "default backend kernel" and by_key["CPU"].source == "torch/_library/custom_ops.py"
    assert by_key["Meta"].kind == "kernel" and by_key["Meta"].source == "torch/_library/custom_ops.py"


def test_mode_trace(scaled_linear):
    traces = mode_trace(scaled_linear)
    linear_fwd, _ = traces["F.linear(x, W, b) * 0.5"]
    op_fwd, op_bwd = traces["hood::scaled_linear(x, W, b, 0.5)"]
    assert linear_fwd == ["aten.t.default", "aten.addmm.default", "aten.mul.Tensor"]
    assert op_fwd == ["hood.scaled_linear.default"]
    assert op_bwd == ["aten.mul.Tensor", "aten.mm.default", "aten.t.default", "aten.mm.default",
                      "aten.sum.dim_IntList"] + ["aten.detach.default"] * 3


def test_compiled_code_calls_the_op_once(scaled_linear, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    codes, out, eager = compiled_call(scaled_linear)
    from hood.capture.custom_ops import wrapper_calls
    calls = wrapper_calls(codes[0])
    assert len(codes) == 1 and len(calls) == 1
    assert "torch.ops.hood.scaled_linear.default(" in calls[0]
    assert torch.equal(out, eager)
