"""Lab 02's general sentences, each tried against the counterexample that narrowed it (torch 2.13.0, CPU)."""

from pathlib import Path

import pytest
import torch
from torch import Tensor
from torch.utils._pytree import tree_map

from hood.capture.autograd import call_key_set, tls_keys
from hood.capture.common import dispatch_table
from hood.capture.custom_ops import CALL_PATH_KEYS, dispatch_rows
from snippets.custom_ops.record_ops import RecordOps
from snippets.custom_ops.scaled_linear import define_scaled_linear

TORCH = Path(torch.__file__).parent
PAGES = Path(__file__).resolve().parents[1] / "docs"
PAGE = "labs/02-custom-op.md"
SHAPES = ((2, 64), (600, 64), (600,))


def test_the_table_rows_are_a_cpu_calls_keys_some_only_in_context_and_meta():
    """Meta, Python and Functionalize are not in a plain CPU call's key set; AutocastCPU is excluded by default."""
    rows = [r.key for r in dispatch_rows("aten::addmm")]
    assert rows == list(CALL_PATH_KEYS)
    t = torch.randn(2, requires_grad=True)
    keys, _ = call_key_set(t)
    assert not {"Meta", "Python", "Functionalize", "AutocastCPU"} & set(keys) and "CPU" in keys
    assert "AutocastCPU" in tls_keys().exclude
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert "AutocastCPU" in call_key_set(t)[0]
    with RecordOps():
        assert "Python" in call_key_set(t)[0]
    assert "Functionalize" in call_key_set(torch._to_functional_tensor(torch.randn(2)))[0]
    meta_keys, _ = call_key_set(torch.empty(2, device="meta"))
    assert "Meta" in meta_keys and "CPU" not in meta_keys


class Wrapped(torch.Tensor):
    """A `__torch_dispatch__` subclass that notes the ops it sees (`Wrapped.seen`), with no dispatch mode."""

    seen: list[str] = []

    @staticmethod
    def __new__(cls, elem):
        wrapper = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, strides=elem.stride(),
                                                      requires_grad=elem.requires_grad)
        wrapper.elem = elem
        return wrapper

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(str(func))

        def unwrap(t):
            return t.elem if isinstance(t, Wrapped) else t

        out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
        return tree_map(lambda t: Wrapped(t) if type(t) is torch.Tensor else t, out)


def test_a_saved_output_is_detached_through_the_operator_for_a_dispatch_subclass_without_a_mode():
    Wrapped.seen = []
    assert torch._C._len_torch_dispatch_stack() == 0
    torch.log_softmax(Wrapped(torch.randn(2, 600)).requires_grad_(), -1)
    assert Wrapped.seen == ["aten._log_softmax.default", "aten.detach.default"]


def test_under_a_mode_the_saved_output_is_detached_only_when_autograd_records():
    z = torch.randn(2, 600, requires_grad=True)
    with RecordOps() as rec:
        torch.log_softmax(z, -1)
    assert rec.ops == ["aten._log_softmax.default", "aten.detach.default"]
    with RecordOps() as rec, torch.no_grad():
        torch.log_softmax(z, -1)
    assert rec.ops == ["aten._log_softmax.default"]
    plain = z.detach()  # an input that needs no gradient
    with RecordOps() as rec:
        torch.log_softmax(plain, -1)
    assert rec.ops == ["aten._log_softmax.default"]


def test_fake_tensors_of_any_device_reach_the_fake_kernel_without_the_meta_entry():
    """With the Meta entry replaced by one that raises, a fake CUDA call still gets its output from the fake
    kernel, found in torch.library's registry; a meta tensor goes through the Meta entry."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    op = define_scaled_linear("hood_lab02::scaled_linear_fake_reach")

    def meta_raises(*args):
        raise RuntimeError("the Meta entry ran")

    lib = torch.library.Library("hood_lab02", "IMPL")
    lib.impl("scaled_linear_fake_reach", meta_raises, "Meta", allow_override=True)
    try:
        with FakeTensorMode():
            out = op(*(torch.empty(shape, device="cuda") for shape in SHAPES), 0.5)
        assert out.device.type == "cuda" and tuple(out.shape) == (2, 600)
        with pytest.raises(RuntimeError, match="the Meta entry ran"):
            op(*(torch.empty(shape, device="meta") for shape in SHAPES), 0.5)
    finally:
        lib._destroy()
    table = dispatch_table("hood_lab02::scaled_linear_fake_reach")
    assert table["AutogradCUDA"].kind == "autograd kernel" and table["AutogradCUDA"].path.endswith("custom_ops.py")


def test_the_fake_tensor_lines_the_gpu_section_links():
    assert torch.__version__.startswith("2.13.0")
    lines = (TORCH / "_subclasses/fake_tensor.py").read_text().splitlines()[3012:3017]  # L3013-L3017
    assert lines[0].strip() == "# Users can register FakeTensor rules for custom operators"
    assert "torch._library.simple_registry.singleton.find(" in lines[2]
    assert lines[4].strip() == ").fake_impl.kernel"
    anchor = "blob/v2.13.0/torch/_subclasses/fake_tensor.py#L3013-L3017"
    for lang in ("en", "es"):
        assert anchor in (PAGES / lang / PAGE).read_text(), lang


def test_a_schema_argument_needs_no_type_hints():
    @torch.library.custom_op("hood_lab02::twice", mutates_args=(), schema="(Tensor x) -> Tensor")
    def twice(x):
        return x * 2

    assert torch.equal(twice(torch.ones(2)), torch.full((2,), 2.0))


@pytest.mark.usefixtures("like_a_block")
def test_inductor_fuses_into_a_custom_op_that_has_a_decomposition():
    """With a decomposition registered for Inductor, the compiled code has no call to the op and fuses its `* s`."""
    from torch._inductor import decomposition
    from torch._inductor.utils import run_and_get_code

    @torch.library.custom_op("hood_lab02::scaled", mutates_args=())
    def scaled(x: Tensor, W: Tensor, s: float) -> Tensor:
        return (x @ W.t()) * s

    scaled.register_fake(lambda x, W, s: x.new_empty(x.shape[0], W.shape[0]))
    op = torch.ops.hood_lab02.scaled.default
    decomposition.register_decomposition(op)(lambda x, W, s: (x @ W.t()) * s)
    decomposition.fast_random_decomps.cache_clear()  # the table Inductor reads is cached
    try:
        W = torch.randn(600, 64)
        with torch.no_grad():
            _, (code,) = run_and_get_code(torch.compile(lambda x: torch.log_softmax(scaled(x, W, 0.5), -1),
                                                        fullgraph=True), torch.randn(2, 64))
    finally:
        del decomposition.decompositions[op]
        decomposition.fast_random_decomps.cache_clear()
    assert "torch.ops.hood_lab02" not in code and "_mul_" in code
