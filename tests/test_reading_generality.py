"""The reading guide's general sentences, narrowed where a counterexample broke them: fallthrough keys are skipped,
nested calls start below keys their caller excluded, an in-place result stays marked, the detach comes from the
mode, matmul reaches a mode under inference_mode, blocks that need an earlier one, what MmBackward0 saves and what an
FX graph's lines are."""

from __future__ import annotations

import contextlib
from pathlib import Path

import torch
from torch._ops import OpOverload

from hood.capture.dispatch import recording_dispatch
from hood.capture.keys import key_view
from hood.capture.ops import OpLog
from hood.engine.blocks import executed_blocks, expand_includes, project_snippets_config
from hood.engine.traces import trace_body
from snippets.reading.tiny import tiny, tiny_inputs

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "en" / "reference" / "reading-outputs.md"
K, S = torch._C.DispatchKey, torch._C.DispatchKeySet


@contextlib.contextmanager
def excluded_at_each_step(*keys: K):
    """`recording_dispatch`, plus, for each step, which of `keys` the thread-local exclude set removed then (it
    holds the autograd functionality, which removes AutogradCPU whatever the backend)."""
    with recording_dispatch() as steps:
        recording, excluded = OpOverload._get_dispatch, []

        def spy(self, key):
            exclude = torch._C._dispatch_tls_local_exclude_set()
            excluded.append({k.name for k in keys if not (S(k) - exclude).has(k)})
            return recording(self, key)

        OpOverload._get_dispatch = spy
        try:
            yield steps, excluded
        finally:
            OpOverload._get_dispatch = recording


def test_a_fallthrough_key_is_skipped_before_the_lookup():
    """ADInplaceOrView and BackendSelect are in mm's key set, and mm falls through at both: no step is made there."""
    x, w = tiny_inputs()
    effective = key_view("x", x).effective
    assert {"ADInplaceOrView", "BackendSelect"} <= set(effective)
    with recording_dispatch() as steps:
        torch.mm(x, w)
    assert [s.key for s in steps if s.op == "aten.mm.default"] == ["AutogradCPU", "CPU"]


def test_nested_calls_start_at_cpu_because_ts_kernels_excluded_the_keys_above():
    """Called directly, transpose.int has its own AutogradCPU and ADInplaceOrView steps; nested in t, it starts at
    CPU: t's autograd kernel excluded the autograd keys, then t's ADInplaceOrView kernel excluded ADInplaceOrView."""
    x, _ = tiny_inputs()
    with recording_dispatch() as direct:
        x.transpose(0, 1)
    assert [s.key for s in direct if s.op == "aten.transpose.int"] == ["AutogradCPU", "ADInplaceOrView", "CPU"]
    with excluded_at_each_step(K.AutogradCPU, K.ADInplaceOrView) as (steps, excluded):
        x.t()
    seen = [(s.op, s.key, sorted(e)) for s, e in zip(steps, excluded)]
    assert seen == [
        ("aten.t.default", "AutogradCPU", []),
        ("aten.t.default", "ADInplaceOrView", ["AutogradCPU"]),
        ("aten.t.default", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
        ("aten.transpose.int", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
        ("aten.as_strided.default", "CPU", ["ADInplaceOrView", "AutogradCPU"]),
    ]


def test_an_in_place_result_is_its_input_still_marked_grad():
    x, w = tiny_inputs()
    h = x @ w
    with OpLog() as log:
        h.add(1)
        h.add_(1)
    assert [(c.op, c.out) for c in log.calls] == [("aten::add.Tensor", "f32[2, 4]"),
                                                  ("aten::add_.Tensor", "f32[2, 4] grad")]


def _detach_calls(mode: bool, requires_grad: bool = True) -> int:
    """How many aten::detach the profiler sees in one call of tiny, under OpLog or without any mode."""
    x, w = tiny_inputs(requires_grad)
    with OpLog() if mode else contextlib.nullcontext(), torch.profiler.profile() as prof:
        tiny(x, w)
    return sum(e.name == "aten::detach" for e in prof.events())


def test_the_detach_runs_only_under_a_dispatch_mode_and_only_when_a_result_is_saved():
    assert (_detach_calls(mode=False), _detach_calls(mode=True)) == (0, 1)
    assert _detach_calls(mode=True, requires_grad=False) == 0
    with torch.no_grad():
        assert _detach_calls(mode=True) == 0


def test_under_inference_mode_matmul_itself_reaches_the_mode():
    x, w = tiny_inputs()
    with torch.inference_mode(), OpLog() as log:
        x @ w
    assert log.names == ["aten::matmul"]
    with OpLog() as log:
        x @ w
    assert log.names == ["aten::mm"]


def test_only_the_inductor_block_needs_an_earlier_block_than_the_setup():
    """The setup defines neither `graph` nor `generated`; the FX-graph block defines `generated`, and the
    Inductor-wrapper block, after it, reads it."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = {options["id"]: body for options, body in executed_blocks(text)}
    setup = expand_includes(blocks["setup"], project_snippets_config(ROOT))
    assert "generated =" not in setup and "generated," not in setup
    assert "graph, generated = compile_tiny()" in blocks["fx-graph"]
    assert "inductor_output(generated)" in blocks["inductor-wrapper"]
    order = list(blocks)
    assert order.index("fx-graph") < order.index("inductor-wrapper")


def test_mm_also_saves_sizes_and_strides_which_the_render_leaves_out():
    x, w = tiny_inputs()
    node = (x @ w).grad_fn
    assert sorted(a for a in dir(node) if a.startswith("_saved_")) == [
        "_saved_mat2", "_saved_mat2_sym_sizes", "_saved_mat2_sym_strides",
        "_saved_self", "_saved_self_sym_sizes", "_saved_self_sym_strides"]
    rendered = trace_body(ROOT / "traces" / "reference" / "reading-outputs" / "grad-fn-chain.txt")
    assert "sym_sizes" not in rendered and "sym_strides" not in rendered


def test_fx_code_renames_the_placeholders_then_three_calls_and_none_only_drops_references():
    """After the signature, two lines rename the placeholders; the three lines before `return` are the call nodes.
    `l_x_ = l_w_ = None` drops the graph's names for its inputs, which the caller still holds: it frees nothing."""
    lines = trace_body(ROOT / "traces" / "reference" / "reading-outputs" / "fx-graph.txt").splitlines()
    body = [line.strip() for line in lines[1:]]
    assert body[:2] == ["l_x_ = L_x_", "l_w_ = L_w_"]
    assert [line.split(" = ", 1)[0] for line in body[2:5]] == ["matmul", "relu", "add"]
    assert body[5] == "return (add,)" and len(body) == 6
    assert body[2].endswith("l_x_ = l_w_ = None")
