"""Theory 02 and 04, beyond their example: the cases a skeptical read tried against their general sentences."""

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from hood.capture.collectives import run_ranks


def test_saved_tensor_hooks_switch_off_the_version_check():
    W = torch.tensor([0.5, 1.0], requires_grad=True)
    h = (W * 2).exp()
    h.mul_(10)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        h.sum().backward()
    W.grad = None
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        h = (W * 2).exp()
    h.mul_(10)
    h.sum().backward()  # no error: the hooks' unpack is not checked
    assert not torch.allclose(W.grad, 2 * (W.detach() * 2).exp())  # and the gradient is silently wrong


def test_detach_shares_the_version_counter_data_and_requires_grad_do_not_count():
    W = torch.ones(2, requires_grad=True)
    h = (W * 2).exp()
    h.detach().add_(1)  # no node saved the detached tensor, but it shares h's counter
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        h.sum().backward()
    a = torch.ones(3)
    a.data.add_(1)
    assert a._version == 0
    t = torch.ones(3)
    t.requires_grad_()
    t.share_memory_()
    assert t._version == 0


def test_comparisons_leave_no_node_and_exp_saves_its_result():
    x = torch.randn(3, requires_grad=True)
    assert (x > 0).grad_fn is None and x.argmax().grad_fn is None
    y = x.exp()
    assert torch.equal(y.grad_fn._saved_result, y) and not hasattr(y.grad_fn, "_saved_self")


def test_modules_have_backward_hooks_too():
    lin, seen = nn.Linear(3, 3), []
    lin.register_full_backward_pre_hook(lambda m, g: seen.append("backward pre"))
    lin.register_full_backward_hook(lambda m, gi, go: seen.append("backward"))
    lin(torch.randn(2, 3, requires_grad=True)).sum().backward()
    assert seen == ["backward pre", "backward"]


def test_a_fake_tensor_carries_the_python_key_with_no_mode_active():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._python_dispatch import _len_torch_dispatch_stack

    with FakeTensorMode():
        fake = torch.ones(2)
    assert _len_torch_dispatch_stack() == 0
    assert "Python" in str(torch._C._dispatch_keys(fake))


def test_an_inference_tensor_cannot_be_updated_in_place_outside_inference_mode():
    with torch.inference_mode():
        y = torch.ones(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        y.add_(1)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
        y.requires_grad_()


def test_attention_records_a_cpu_node_and_the_build_holds_the_others():
    q = torch.randn(1, 2, 4, 8, requires_grad=True)
    assert type(F.scaled_dot_product_attention(q, q, q).grad_fn).__name__ == \
        "ScaledDotProductFlashAttentionForCpuBackward0"
    from torch._C import _functions  # the generated node classes

    names = dir(_functions)
    assert {"ScaledDotProductEfficientAttentionBackward0", "ScaledDotProductFlashAttentionBackward0",
            "ScaledDotProductCudnnAttentionBackward0"} <= set(names)


def _default_backend():
    import torch.distributed as dist

    dist.init_process_group()  # no backend named
    config = str(dist.get_backend_config())
    try:
        dist.distributed_c10d._get_default_group()._get_backend(torch.device("cuda"))
        cuda = "yes"
    except RuntimeError as err:
        cuda = str(err)
    return {"config": config, "cuda": cuda}


def test_init_process_group_without_a_backend_starts_the_accelerators_only():
    for rank in run_ranks(_default_backend):
        assert rank["config"] == "cpu:gloo"
        assert "No backend type associated with device type cuda" in rank["cuda"]
    import torch.distributed as dist

    lines = open(dist.distributed_c10d.__file__).read().splitlines()
    assert "device_type = torch._C._get_accelerator().type" in lines[421]
    assert "Backend.default_device_backend_map[device_type]" in lines[423]


def _where_gloo_runs():
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.profiler import ProfilerActivity, profile

    dist.init_process_group("gloo")
    torch.manual_seed(0)
    ddp = DDP(nn.Sequential(*(nn.Linear(512, 512) for _ in range(8))))
    x = torch.randn(8, 512)
    for _ in range(2):
        ddp(x).sum().backward()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        ddp(x).sum().backward()
    backward = {e.thread for e in prof.events() if e.name == "autograd::engine::evaluate_function: AddmmBackward0"}
    gloo = {e.thread for e in prof.events() if e.name == "gloo:all_reduce"}
    return {"buckets": len([e for e in prof.events() if e.name == "gloo:all_reduce"]),
            "gloo on a thread backward does not use": bool(gloo) and not gloo & backward}


def test_gloo_runs_ddps_all_reduces_on_threads_of_its_own():
    for rank in run_ranks(_where_gloo_runs):
        assert rank["buckets"] >= 2 and rank["gloo on a thread backward does not use"] is True


def test_symbolic_trace_runs_neither_kernel_and_make_fx_with_fake_tensors_runs_the_fake_one():
    from torch.fx.experimental.proxy_tensor import make_fx

    ran = []

    @torch.library.custom_op("hood_generality::twice", mutates_args=())
    def twice(x: torch.Tensor) -> torch.Tensor:
        ran.append("real")
        return x * 2

    @twice.register_fake
    def _(x):
        ran.append("fake")
        return torch.empty_like(x)

    def f(x):
        return twice(x)

    torch.fx.symbolic_trace(f)
    assert ran == []
    make_fx(f, tracing_mode="fake")(torch.ones(2))
    assert ran == ["fake"]


def _to_copies_per_call(*tensors, cache_enabled=True):
    from torch.utils._python_dispatch import TorchDispatchMode

    class Count(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.n = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.n += func is torch.ops.aten._to_copy.default
            return func(*args, **(kwargs or {}))

    counts = []
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=cache_enabled):
        for _ in range(2):
            with Count() as count:
                F.linear(*tensors)
            counts.append(count.n)
    return counts


def test_autocast_caches_only_float32_leaves_that_require_grad_and_are_not_views():
    x = torch.randn(2, 64, requires_grad=True)
    W, b = torch.randn(600, 64, requires_grad=True), torch.randn(600, requires_grad=True)
    assert _to_copies_per_call(x, W, b) == [3, 0]
    assert _to_copies_per_call(x, W[:300], b[:300]) == [3, 2]  # views are cast again
    half = [t.detach().half().requires_grad_() for t in (x, W, b)]
    assert _to_copies_per_call(*half) == [3, 3]  # float16 leaves too
    assert _to_copies_per_call(x, W, b, cache_enabled=False) == [3, 3]


def test_a_view_taken_under_inference_mode_keeps_its_keys_and_a_quantized_tensor_has_its_own():
    x = torch.ones(2, 3)
    with torch.inference_mode():
        view, fresh = x.view(-1), torch.ones(3)
    assert not view.is_inference() and "AutogradCPU" in str(torch._C._dispatch_keys(view))
    assert fresh.is_inference() and "Autograd" not in str(torch._C._dispatch_keys(fresh))
    with pytest.warns(UserWarning, match="deprecated"):
        q = torch.quantize_per_tensor(torch.randn(3), 0.1, 0, torch.qint8)
    assert q.layout == torch.strided and "QuantizedCPU" in str(torch._C._dispatch_keys(q))


def test_linear_without_bias_is_t_and_mm_and_add_needs_its_overload_name_linear_does_not():
    from torch.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(func._overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    x, W = torch.randn(2, 64, requires_grad=True), torch.randn(600, 64, requires_grad=True)
    with Log() as log:
        F.linear(x, W)
    assert log.ops == ["t", "mm"]
    assert len(torch._C._dispatch_dump_table("aten::linear").splitlines()) > 10
    assert torch._C._dispatch_dump_table("aten::add") == ""  # no default overload: nothing to print
    W = torch.randn(600, 64)
    assert W.contiguous() is W and W.t().view(64, 2, 300).shape == (64, 2, 300)
    with pytest.raises(RuntimeError):
        W.t().view(-1)


def test_a_graph_break_inside_a_loop_skips_the_whole_frame():
    def loopy(x):
        for i in range(3):
            x = x * 2
            print("i", i)
            x = x + 1
        return x

    torch._dynamo.reset()
    explanation = torch._dynamo.explain(loopy)(torch.randn(3))
    assert explanation.graph_count == 0
