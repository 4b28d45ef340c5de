"""Lab 03's survey (Part F), beyond its runs: DDP's buckets under other options, what each TP layer
communicates on its own, and what may sit between them. Each test forks two gloo ranks."""

import copy
from functools import partial

import torch
import torch.nn as nn

from hood.capture.collectives import run_ranks
from hood.capture.common import all_within
from snippets.distributed.observe import gloo_calls, observing, profiled
from tests.sitekit import in_language as english
from snippets.distributed.ranks import process_group


def _ddp_first_steps():
    """First backward of fresh DDP models: under `no_sync()`, and with a float64 and a float32 layer."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(64, 64).double(), nn.Linear(64, 600)

        def forward(self, x):
            return self.b(self.a(x).float())

    with process_group() as (rank, world):
        torch.manual_seed(0)
        seen = {}
        ddp = DDP(nn.Sequential(*(nn.Linear(512, 512) for _ in range(4))))
        with profiled() as prof, ddp.no_sync():
            ddp(torch.randn(8, 512)).sum().backward()
        seen["no_sync"] = gloo_calls(prof)
        ddp = DDP(Mixed())
        with profiled() as prof:
            ddp(torch.randn(8, 64, dtype=torch.float64)).sum().backward()
        seen["float64 and float32"] = gloo_calls(prof)
        return seen


def test_ddp_one_first_bucket_only_with_one_dtype_and_no_all_reduce_under_no_sync():
    """DDP paragraph: no all-reduce under no_sync(); one bucket per dtype on the first step. (Defaults: one bucket,
    and `find_unused_parameters=True`: two, are tested in test_distributed_buckets.)"""
    for seen in run_ranks(_ddp_first_steps):
        assert seen["no_sync"] == {}
        a, b = (64 * 64 + 64) * 8, (600 * 64 + 600) * 4  # the float64 layer's gradients, the float32 layer's
        assert seen["float64 and float32"] == {"gloo:all_reduce": sorted([a, b])}


def _tp_layers_alone():
    """One Linear(64, 64) split column-wise, then one split row-wise: the collectives each asks for."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    with process_group() as (rank, world):
        mesh, seen = init_device_mesh("cpu", (world,)), {}
        for name, style, columns, grad in (("column-wise", ColwiseParallel(), 64, True),
                                           ("column-wise, input without grad", ColwiseParallel(), 64, False),
                                           ("row-wise", RowwiseParallel(), 64 // world, True)):
            torch.manual_seed(0)
            layer = parallelize_module(nn.Linear(64, 64), mesh, style)
            x = torch.randn(4, columns, requires_grad=grad)  # row-wise takes this rank's columns of the input
            with observing("forward") as forward:
                y = layer(x)
            with observing("backward") as backward:
                y.sum().backward()
                _ = x.grad.clone() if grad else None  # the all-reduce is asynchronous: use its result here
            forward, backward = english(forward), english(backward)
            seen[name] = {"output": list(y.shape), "forward": forward["forward asks for"],
                          "backward": backward["backward asks for"]}
        return seen


def test_tp_row_wise_all_reduces_in_the_forward_column_wise_in_the_backward():
    """TP paragraph: a row-wise layer all-reduces its partial sums in the forward; a column-wise layer's output
    stays split and its backward all-reduces the input's gradient, only when the input needs one."""
    all_reduce = {"c10d_functional.all_reduce": 1}
    for seen in run_ranks(_tp_layers_alone):
        assert seen["row-wise"] == {"output": [4, 64], "forward": all_reduce, "backward": {}}
        assert seen["column-wise"] == {"output": [4, 32], "forward": {}, "backward": all_reduce}
        assert seen["column-wise, input without grad"] == {"output": [4, 32], "forward": {}, "backward": {}}


def _tp_with_between(between: nn.Module) -> dict:
    """two_layers() with `between` in place of its ReLU, split column-wise then row-wise: whether the output equals
    the unsplit block's within 1e-4, and the collectives the forward asks for."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    from snippets.distributed.workload import two_layers

    with process_group() as (rank, world):
        model = two_layers()
        model[1] = between
        whole = nn.Sequential(*(copy.deepcopy(layer) for layer in model))
        parallelize_module(model, init_device_mesh("cpu", (world,)), {"0": ColwiseParallel(), "2": RowwiseParallel()})
        x = torch.randn(4, 64, generator=torch.Generator().manual_seed(7))
        with observing("forward") as forward:
            y = model(x)
        return {"equal": all_within([(y, whole(x))], 1e-4), "forward": english(forward)["forward asks for"]}


def test_tp_only_an_op_that_works_on_each_feature_may_sit_between_the_two_layers():
    """TP paragraph: a softmax over the features between the two layers sees one rank's half; the output is wrong,
    with no error and no more communication than with the ReLU."""
    all_reduce = {"c10d_functional.all_reduce": 1}
    assert run_ranks(partial(_tp_with_between, nn.ReLU()))[0] == {"equal": True, "forward": all_reduce}
    assert run_ranks(partial(_tp_with_between, nn.Softmax(dim=-1)))[0] == {"equal": False, "forward": all_reduce}
