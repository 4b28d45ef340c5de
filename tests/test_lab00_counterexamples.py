"""Lab 00's general sentences tried against counterexamples, and the lab as a notebook: each task's answer in its
own solution, the deliverables written by the page's last block from the learner's functions."""

from __future__ import annotations

import functools
import json
import re
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch.utils import benchmark as torch_benchmark

from hood.capture.common import localize
from hood.capture.ops import OpLog
from hood.capture.tables import table_rows
from hood.stdout import printed
from snippets.lab00 import device_names, drill, logging_mode, parts, run, vmap_fallback
from snippets.running_example import running_example
from tests.pinned_source import tag_lines

ROOT = Path(__file__).resolve().parents[1]
PAGE = "labs/00-trace-the-dispatcher.md"
TORCH = Path(torch.__file__).parent


def page(language: str) -> str:
    return (ROOT / "docs" / language / PAGE).read_text(encoding="utf-8")


def quiet(fn, *args):
    return printed(fn, *args)[0]


def test_under_inference_mode_the_mode_sees_linear_and_matmul():
    """Block part-c-inference: the counterexample to 'a mode only sees what linear decomposed into'."""
    x, W, b = running_example(parts.SEED)
    with torch.inference_mode(), logging_mode.LoggingMode() as mode:
        F.linear(x, W, b)
        torch.matmul(x, W.t())
    assert mode.names == ["aten::linear", "aten::t", "aten::matmul"]


def test_linear_is_one_composite_kernel_in_both_slots():
    rows = {r.key: r for r in table_rows("aten::linear", ("AutogradCPU", "CPU"))}
    for key in ("AutogradCPU", "CPU"):
        assert rows[key].kind == "math kernel" and rows[key].source.startswith("RegisterCompositeImplicitAutograd")


def test_not_every_tensor_carries_autograd_cpu():
    with torch.inference_mode():
        made_inside = torch.ones(2)
    assert str(torch._C._dispatch_keys(made_inside)) == "DispatchKeySet(CPU, AutocastCPU)"
    z = torch.ones(2, dtype=torch.complex64)
    assert "Conjugate" in str(torch._C._dispatch_keys(z.conj()))


def test_drill_profiler_stacks_are_empty_and_a_mode_finds_the_caller():
    rows, hot, caller = quiet(drill.profile_drill, 2)
    assert [f.name for f in caller][-2:] == ["profile_drill", "training_step"]
    assert caller[-1].line == "F.linear(x, W, b).sum().backward()"
    _, out = printed(drill.profile_drill, 2)
    assert "with_stack=True: 0 of 2 aten::addmm events carry a stack" in localize(out, "en")
    assert "with_stack=True: 0 de 2 eventos aten::addmm llevan pila" in localize(out, "es")


def test_without_clearing_grad_later_steps_accumulate():
    x, W, b = running_example()
    steps = []
    for _ in range(2):
        with OpLog() as log:
            F.linear(x, W, b).sum().backward()
        steps.append(log.names)
    assert steps[0].count("aten::detach") == 3 and "aten::add_.Tensor" not in steps[0]
    assert steps[1].count("aten::add_.Tensor") == 3 and "aten::detach" not in steps[1]
    for t in (x, W, b):
        t.grad = None
    with OpLog() as cleared:
        drill.training_step(x, W, b)
    assert cleared.names == steps[0]  # clearing .grad, as training_step does, gives the first step again


def test_blocked_autorange_stops_on_time_not_on_stability():
    source = (TORCH / "utils/benchmark/utils/timer.py").read_text().splitlines()
    assert source[369].strip().startswith("def stop_hook") and source[370].strip() == "return True"
    assert source[18].strip() == "torch.accelerator.synchronize()"  # the default timer, linked from the page
    m = torch_benchmark.Timer("pass").blocked_autorange(min_run_time=0.05)
    assert sum(m.raw_times) >= 0.05


def test_an_operator_without_a_batching_rule_runs_once_per_sample():
    calls, message = quiet(vmap_fallback.vmap_without_a_batching_rule)
    assert [c.args[0] for c in calls if c.op == "aten::histc"] == ["f32[4]"] * 5
    assert "batching rule for aten::histc" in message
    ops = [c.op for c in calls]
    assert ops.count("aten::select.int") == 5 and "aten::stack" in ops and ops.index("aten::stack") > ops.index(
        "aten::histc")


def test_attention_logs_a_cpu_named_operator():
    assert quiet(device_names.attention_on_cpu) == ["aten::_scaled_dot_product_flash_attention_for_cpu"]


def test_default_backend_kernel_source_line():
    lines = tag_lines("include/c10/core/DispatchKey.h")  # L460
    assert lines[459].strip().startswith("CompositeExplicitAutogradNonFunctional,")


def test_the_last_block_writes_the_deliverables_from_the_learners_functions(tmp_path):
    paths, out = printed(run.write_lab00, tmp_path)
    assert sorted(p.name for p in paths) == ["REPORT.md", "manifest.json", "trace.log"]
    assert "trace.log:\naten::t(f32[600, 64] grad) -> f32[64, 600]\naten::addmm(" in out
    assert "manifest.json: lab lab00, torch 2.13.0, seed 42" in localize(out, "en")
    assert "manifest.json: lab lab00, torch 2.13.0, semilla 42" in localize(out, "es")
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert meta["lab"] == "lab00" and meta["seed"] == 42 and meta["code_sha256"]
    # the body finds the parts by name when it runs: a learner's own function replaces the reference one
    original = run.part_c_linear_ops
    try:
        run.part_c_linear_ops = lambda: parts.log_ops(lambda: torch.ones(1) + 1)
        files = quiet(run.lab00_files)
        assert files["trace.log"].startswith("aten::ones(")
    finally:
        run.part_c_linear_ops = original


def test_the_page_is_a_notebook_of_its_own():
    for language in ("en", "es"):
        text = page(language)
        setup = text[text.index('id="setup"'):text.index("```", text.index('id="setup"'))]
        assert "lab00/parts.py:helpers" in setup and "lab00/parts.py:part_" not in setup
        assert "exercises.py" not in setup and "hood/labkit.py:body" in setup
        assert "snippets.lab00.run" not in text and "clone" not in text.lower()
        blocks = re.findall(r'```python exec="on" id="([^"]+)"', text)
        assert blocks[-1] == "deliverables"
        for section in ("part_a", "part_b", "part_c", "part_d", "part_e", "part_f", "stretch_fp16",
                        "stretch_no_grad", "stretch_matmul"):
            assert text.count(f'--8<-- "lab00/parts.py:{section}"') == 1, section
        for n in range(1, 5):
            assert text.count(f'--8<-- "lab00/exercises.py:exercise_{n}"') == 1


def test_in_this_lab_box_counts_the_tasks():
    en, es = page("en"), page("es")
    assert en.count("**Task.**") == es.count("**Tarea.**") == 17
    assert '!!! abstract "In this lab"' in en and "**Time** about 240 minutes: seventeen tasks" in en
    assert '!!! abstract "En este lab"' in es and "**Tiempo** unos 240 minutos: diecisiete tareas" in es


def test_no_sentence_says_names_do_not_change_with_the_device():
    for text in (page("en"), page("es")):
        assert "names stay the same" not in text and "do not change with the device" not in text
        assert "son los mismos;" not in text and "no cambian con el dispositivo" not in text
        assert "enough blocks to be stable" not in text and "para que la medida sea estable" not in text
        assert "registered at `AutogradCPU`" not in text and "registrado en `AutogradCPU`" not in text


def test_vmap_warning_is_a_user_warning_from_vmap():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.vmap(lambda t: torch.histc(t, bins=4))(torch.randn(3, 4))
    assert any("batching rule" in str(w.message) for w in caught)


# ---------------------------------------------------------------- a second read's counterexamples


def logged(fn) -> list[str]:
    """The operators a logging mode sees while `fn` runs."""
    with logging_mode.LoggingMode() as mode:
        fn()
    return mode.names


def keys(t: torch.Tensor) -> str:
    return str(torch._C._dispatch_keys(t))


def test_a_quantized_dtype_changes_the_backend_key_and_no_other_dtype_does():
    """'Apart from the quantized dtypes …, the dtype is not a dispatch key'."""
    assert "QuantizedCPU" in keys(torch.empty(3, dtype=torch.quint8))
    assert {keys(torch.empty(3, dtype=d)) for d in (torch.uint8, torch.float16, torch.float64, torch.int64)} == {
        keys(torch.empty(3))}


def test_a_view_keeps_the_keys_of_its_base_wherever_it_is_made():
    """'a view keeps the keys of its base wherever it is made' (allocated, not made, decides AutogradCPU)."""
    x = torch.randn(2, 3)
    with torch.inference_mode():
        inside_view, inference = x[0], torch.randn(2)
    assert "AutogradCPU" in keys(inside_view)
    assert "AutogradCPU" not in keys(inference.view(2, 1))


def test_autocast_casts_a_leaf_that_requires_grad_at_its_first_use_only():
    x, W, b = running_example(parts.SEED)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        first, second = logged(lambda: F.linear(x, W, b)), logged(lambda: F.linear(x, W, b))
    assert first.count("aten::_to_copy") == 3 and "aten::_to_copy" not in second


def test_w_t_is_permute_with_autograd_and_numpy_t_under_inference_mode():
    _, W, _ = running_example(parts.SEED)
    assert logged(lambda: W.T) == ["aten::permute"]
    with torch.inference_mode():
        assert logged(lambda: W.T) == ["aten::numpy_T"]


def test_an_operator_with_a_batching_rule_may_log_several_calls_on_the_whole_batch():
    """'sometimes as several calls (torch.dot becomes one bmm …)', without the no-batching-rule warning."""
    batch = torch.randn(5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        names = logged(lambda: torch.vmap(torch.dot)(batch, batch))
    assert len(names) == 10 and names.count("aten::bmm") == 1


def test_attention_takes_the_math_path_for_a_3d_input_or_dropout():
    q3, q4 = torch.randn(2, 4, 8), torch.randn(1, 2, 4, 8)
    assert logged(lambda: F.scaled_dot_product_attention(q4, q4, q4)) == [
        "aten::_scaled_dot_product_flash_attention_for_cpu"]
    for call in (lambda: F.scaled_dot_product_attention(q3, q3, q3),
                 lambda: F.scaled_dot_product_attention(q4, q4, q4, dropout_p=0.5)):
        names = logged(call)
        assert "aten::bmm" in names and not any("cpu" in n for n in names)


def test_linear_logs_t_and_addmm_only_for_the_running_examples_call():
    x, W, b = (t.detach() for t in running_example(parts.SEED))
    assert logged(lambda: F.linear(x, W, b)) == ["aten::t", "aten::addmm"]
    x3 = x.view(2, 1, 64)
    assert logged(lambda: F.linear(x3, W, b)) == ["aten::view", "aten::t", "aten::addmm", "aten::view"]
    assert logged(lambda: F.linear(x, W)) == ["aten::t", "aten::mm"]


def test_the_nonfunctional_alias_fills_every_backend_but_xla_and_lazy():
    def rows(op):
        return {line.split(":")[0].strip(): line for line in torch._C._dispatch_dump_table(op).splitlines()}
    add = rows("aten::add.Tensor")
    assert "default backend kernel" in add["CUDA"] and "XLA" not in add and "Lazy" not in add
    assert "default backend kernel" in rows("aten::ones_like")["XLA"]  # CompositeExplicitAutograd fills XLA


def test_the_sentences_on_threads_and_synchronisation_quote_torchs_own_documentation():
    doc = " ".join(torch.autograd.set_multithreading_enabled.__doc__.split())
    assert "the backward pass runs on device-specific worker threads" in doc
    assert "host-device synchronization" in " ".join(torch.nonzero.__doc__.split())


def test_on_the_cpu_backward_runs_on_the_callers_thread_under_a_mode():
    import threading

    class Threads(logging_mode.LoggingMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.add(threading.get_ident())
            return super().__torch_dispatch__(func, types, args, kwargs)

    seen: set[int] = set()
    x, W, b = running_example(parts.SEED)
    with Threads():
        F.linear(x, W, b).sum().backward()
    assert seen == {threading.get_ident()}


def test_the_report_paragraph_reads_whether_linear_reached_the_mode_and_which_node_from_the_outputs():
    """Part F's paragraph is written from the outputs: a learner's Part C under inference_mode, or a `y` made under
    no_grad, gets sentences true of those outputs, not the page's."""
    from hood.capture.common import localize

    y, views, linear_calls, addmm, rows = (quiet(f) for f in (
        parts.part_a_baseline, parts.part_b_key_sets, parts.part_c_linear_ops, parts.part_d_addmm_directly,
        parts.part_e_profile))
    usual = localize(parts.interpretation(y, views, linear_calls, addmm, rows), "en")
    assert "never reached the dispatch mode as `aten::linear`" in usual and "records `AddmmBackward0`" in usual
    x, W, b = running_example(parts.SEED)
    with torch.inference_mode():
        inference_calls = quiet(parts.log_ops, lambda: F.linear(x, W, b))
    with torch.no_grad():
        y_no_grad = F.linear(x, W, b)
    other = localize(parts.interpretation(y_no_grad, views, inference_calls, addmm, rows), "en")
    assert "reached the dispatch mode as `aten::linear` (`aten::linear`)" in other and "never" not in other
    assert "recorded no node here: `y` has no `grad_fn`" in other


def test_autocast_caches_float32_leaves_only_and_only_with_its_cache_enabled():
    """A float16 leaf is cast again at every call; with cache_enabled=False every leaf is."""
    x = torch.randn(2, 64, requires_grad=True)
    W16 = torch.randn(600, 64, dtype=torch.float16, requires_grad=True)
    b16 = torch.randn(600, dtype=torch.float16, requires_grad=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        first, second = logged(lambda: F.linear(x, W16, b16)), logged(lambda: F.linear(x, W16, b16))
    assert (first.count("aten::_to_copy"), second.count("aten::_to_copy")) == (3, 2)
    _, W, b = running_example(parts.SEED)
    with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
        first, second = logged(lambda: F.linear(x, W, b)), logged(lambda: F.linear(x, W, b))
    assert first.count("aten::_to_copy") == second.count("aten::_to_copy") == 3


def test_under_inference_mode_autocast_casts_a_leaf_that_requires_grad_at_every_call():
    """The float16 box no longer says such a leaf is cast only at its first use: under inference_mode autocast casts
    `W` again at every call (the mode sees `aten::to`), while with gradients on the second call logs no cast."""
    x, W, b = running_example(parts.SEED)
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
        first, second = logged(lambda: F.linear(x, W, b)), logged(lambda: F.linear(x, W, b))
    assert first.count("aten::to.dtype") == second.count("aten::to.dtype") == 3
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logged(lambda: F.linear(x, W, b))
        assert "aten::_to_copy" not in logged(lambda: F.linear(x, W, b))
    assert "cast only at its first use" not in page("en")


def test_the_nonfunctional_alias_leaves_the_sparse_coo_keys_without_a_row():
    for op in ("aten::add.Tensor", "aten::mm"):
        table = torch._C._dispatch_dump_table(op)
        assert "SparseCUDA:" not in table and "SparseCsrCUDA:" in table


def test_index_adds_batching_rule_loops_over_the_samples_without_a_warning_given_a_batched_index():
    """'usually runs on the whole batch … Not always': index_add has a rule of its own (not the fallback), which loops
    per sample when the index is batched, and vmap does not warn; with a shared index it makes one call."""
    batched = [line for line in torch._C._dispatch_dump_table("aten::index_add").splitlines()
               if line.startswith("FuncTorchBatched:")]
    assert len(batched) == 1 and "[kernel]" in batched[0] and "BatchRulesScatterOps" in batched[0]
    x, index, one = torch.randn(5, 4), torch.tensor([[0], [1], [2], [3], [0]]), torch.ones(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with OpLog() as log:
            torch.vmap(lambda t, i: t.index_add(0, i, one))(x, index)
        shared = logged(lambda: torch.vmap(lambda t: t.index_add(0, index[0], one))(x))
    assert [c.args[0] for c in log.calls if c.op == "aten::index_add"] == ["f32[4]"] * 5
    assert log.names[-1] == "aten::stack" and shared.count("aten::index_add") == 1


def test_with_stack_records_python_functions_as_parent_events_not_the_calling_line():
    """'with_stack=True leaves the `stack` of every operator's event empty. It records the Python functions as
    events of their own, parents of the operators …, but they name a function and the line of its `def`'."""
    from torch.profiler import ProfilerActivity, profile

    x, W, b = running_example(parts.SEED)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
        drill.training_step(x, W, b)
    addmm = next(e for e in prof.events() if e.name == "aten::addmm")
    parents, event = [], addmm.cpu_parent
    while event is not None:
        parents.append(event.name)
        event = event.cpu_parent
    assert addmm.stack == [] and all(not e.stack for e in prof.events() if e.name.startswith("aten::"))
    line = drill.training_step.__code__.co_firstlineno
    assert any(name.endswith(f"drill.py({line}): training_step") for name in parents)  # the def, not the call
    with profile(activities=[ProfilerActivity.CPU]) as plain:
        drill.training_step(x, W, b)
    assert not any("training_step" in e.name for e in plain.events())


# ---------------------------------------------------------------- a third read's counterexamples


def test_the_fallback_does_not_run_every_operator_without_a_batching_rule():
    """'Many that have no rule … fall back …': torch.equal and an out= call reach the fallback too, and vmap raises."""
    for op in ("aten::histc", "aten::equal", "aten::histc.out"):
        batched = [line for line in torch._C._dispatch_dump_table(op).splitlines()
                   if line.startswith("FuncTorchBatched:")]
        assert len(batched) == 1 and "[backend fallback]" in batched[0], op
    batch = torch.randn(5, 4)
    with pytest.raises(RuntimeError, match="could not generate a fallback"):
        torch.vmap(lambda t: torch.tensor(torch.equal(t, t)))(batch)
    with pytest.raises(RuntimeError, match="fallback path doesn't work on out="):
        torch.vmap(lambda t: torch.histc(t, bins=4, out=torch.empty(4)))(batch)


def reference_results():
    return tuple(quiet(f) for f in (parts.part_a_baseline, parts.part_b_key_sets, parts.part_c_linear_ops,
                                    parts.part_d_addmm_directly, parts.part_e_profile))


def test_the_report_check_accepts_a_paragraph_in_other_words_and_refuses_one_missing_a_fact():
    """'Your words will differ from these; the facts must not': the check prints the facts and whether the paragraph
    names them, so another wording of the same facts checks as the reference does, and a missing fact does not."""
    from hood.engine.traces import trace_body

    results = reference_results()
    expected = trace_body(ROOT / "traces" / "labs" / "00-trace-the-dispatcher" / "report.txt")
    mine = ("The mode never saw linear: autograd's key decomposed it first into aten::t and aten::addmm. Writing "
            "addmm by hand logged aten::permute and aten::addmm, two as well. No key set moved; AutogradCPU runs "
            "first and leaves an AddmmBackward0. Shapes: [[2,64], [600,64], [600]] forward, [[2, 600]] backward.")
    for paragraph in (parts.interpretation(*results), mine):
        assert printed(parts.paragraph_points, paragraph, *results)[1] == expected
    without_shapes = mine[:mine.index(" Shapes:")]
    out = localize(printed(parts.paragraph_points, without_shapes, *results)[1], "en")
    assert out.splitlines()[-1].endswith(": no") and out.count(": yes") == 3
    assert not parts.paragraph_names("aten::transpose and addmm", "aten::t")  # a name, not a prefix of another


def test_the_report_paragraph_is_quoted_on_the_page_and_not_compared_word_for_word_in_the_notebook():
    from tools.notebooks import cells

    paragraph = parts.interpretation(*reference_results())
    for language in ("en", "es"):
        text = page(language)
        quote = " ".join(line.strip()[2:] for line in text.splitlines() if line.startswith("    > "))
        assert quote == localize(paragraph, language)
    notebook = cells(PAGE, "en", learner=True)
    answer = next(c.source for c in notebook if c.role == "answer" and c.block == "report")
    check = next(c.source for c in notebook if c.role == "check" and c.block == "report")
    assert "def findings(" in answer and "def interpretation(" in answer and "def paragraph_points(" not in answer
    setup = next(c.source for c in notebook if c.role == "setup")
    assert "def paragraph_points(" in setup and "paragraph_points(" in check and "never reached" not in check


def test_the_report_says_why_addmm_logged_fewer_operators_only_when_w_t_is_in_its_log():
    """A Part D whose W.T was made before the mode logs addmm alone: the paragraph does not blame `W.T` then."""
    y, views, linear_calls, _, rows = reference_results()
    x, W, b = running_example(parts.SEED)
    Wt = W.T
    alone = quiet(parts.log_ops, lambda: torch.addmm(b, x, Wt))
    text = localize(parts.interpretation(y, views, linear_calls, alone, rows), "en")
    assert "logged 1 op (`aten::addmm`), fewer than `linear`. " in text and "itself an op" not in text


def check_code(block: str) -> str:
    """The code the learner's notebook runs to check `block` (what `check_answer` executes)."""
    import ast

    from tools.notebooks import cells

    source = next(c.source for c in cells(PAGE, "en", learner=True) if c.role == "check" and c.block == block)
    return ast.literal_eval(ast.parse(source).body[0].value.args[1])


def test_the_checks_read_names_the_tasks_now_state():
    """Part C's check reads `mode.names`, Part F's reads Part B's key views and Part E's `op_rows`: a mode that keeps
    its names elsewhere, or a Part E that returns the profiler, is refused, so the tasks name them."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class OtherList(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(func.name())
            return func(*args, **(kwargs or {}))

    scope = {"running_example": running_example, "SEED": parts.SEED, "F": F, "LoggingMode": OtherList,
             "part_c_linear_ops": parts.part_c_linear_ops}
    with pytest.raises(AttributeError, match="names"):
        quiet(exec, check_code("part-c"), scope)
    results = list(reference_results())
    scope = dict(vars(parts))  # the setup block's names and the reference findings and interpretation
    for name, value in zip(("part_a_baseline", "part_b_key_sets", "part_c_linear_ops", "part_d_addmm_directly",
                            "part_e_profile"), results):
        scope[name] = lambda value=value: value
    quiet(exec, check_code("report"), scope)  # the solutions' results pass
    scope["interpretation"] = lambda *_: "a learner's paragraph, which reads no rows"
    scope["part_e_profile"] = lambda: ["aten::linear [[2, 64], [600, 64], [600]]"]  # rows of another kind
    with pytest.raises(AttributeError, match="name"):
        quiet(exec, check_code("report"), dict(scope))
    en, es = page("en"), page("es")
    assert "`self.names`" in en and "`self.names`" in es
    assert "`op_rows(prof)`" in en and "`op_rows(prof)`" in es


# ---------------------------------------------------------------- a fourth read: the formats the checks compare


@functools.cache
def learner_cells(language: str) -> tuple:
    from tools.notebooks import cells

    return tuple(cells(PAGE, language, learner=True))


def notebook_verdict(language: str, block: str, answer: str) -> str:
    """Run the learner notebook's setup and checks cells, `answer` in place of the answer cell, then `block`'s check;
    return the check's verdict line."""
    import contextlib
    import io

    notebook = learner_cells(language)
    scope = {"PAGE_LANGUAGE": language, "__name__": "__main__"}  # dataclasses look their module up
    for role in ("setup", "checks"):
        exec(next(c.source for c in notebook if c.role == role), scope)  # noqa: S102
    exec(answer, scope)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(next(c.source for c in notebook if c.role == "check" and c.block == block), scope)  # noqa: S102
    return next(line for line in out.getvalue().splitlines() if line.startswith(f"{block}: "))


PART_A = """
def part_a_baseline():
    x, W, b = running_example(SEED)
    y = F.linear(x, W, b)
    print({shape})
    print({node})
    return y
"""
PART_B = """
def part_b_key_sets():
    x = running_example(SEED)[0]
    print("hasattr(x, '_dispatch_key_set'):", hasattr(x, "_dispatch_key_set"))
    views = [key_view("x (requires_grad=True)", x), key_view("x.detach() (requires_grad=False)", x.detach()),
             key_view("torch.empty(1, dtype=torch.float16)", torch.empty(1, dtype=torch.float16))]
    with torch.no_grad():
        views.append(key_view({label!r}, x))
    print(render_key_views(views, show_tls=False))
    return views
"""
PART_E = """
def part_e_profile():
    x, W, b = running_example(SEED)
    with profile(record_shapes=True) as prof:
        F.linear(x, W, b).sum().backward()
    keep = {{"aten::linear", "aten::t", "aten::addmm", "aten::mm", "AddmmBackward0",
            "autograd::engine::evaluate_function: AddmmBackward0"}}
    rows = [e for e in prof.key_averages(group_by_input_shape=True) if {keep}]
    print(EventList(rows).table(sort_by="self_cpu_time_total"))
    return op_rows(prof)
"""


def test_parts_a_b_and_e_state_the_format_their_checks_compare():
    """The checks compare printed lines: an answer in the format the task states checks right (in another order, or
    written another way), one that prints the same facts in another format does not; the tasks state the format."""
    from hood.interface import TABLES

    for language in ("en", "es"):
        right, wrong = (TABLES[language]["download"][key] for key in ("right", "wrong"))
        label = localize(parts.words(en="x under torch.no_grad()", es="x dentro de torch.no_grad()"), language)
        cases = [
            ("part-a", PART_A.format(shape='"y.shape =", tuple(y.shape)', node='f"y.grad_fn = {y.grad_fn}"'), right),
            ("part-a", PART_A.format(shape="y.shape", node="y.grad_fn"), wrong),
            ("part-b", PART_B.format(label=label), right),
            ("part-b", PART_B.format(label="x (no_grad)"), wrong),
            ("part-e", PART_E.format(keep="e.key in keep"), right),
            ("part-e", PART_E.format(keep="True"), wrong),
        ]
        for block, answer, verdict in cases:
            assert quiet(notebook_verdict, language, block, answer) == f"{block}: {verdict}", (language, block)
    en, es = page("en"), page("es")
    for text, label in ((en, "x under torch.no_grad()"), (es, "x dentro de torch.no_grad()")):
        assert "`y.shape = ` and the shape as a tuple" in text or "`y.shape = ` seguido de la forma como tupla" in text
        assert f"`{label}`" in text and "`render_key_views(views, show_tls=False)`" in text
        assert "`prof.key_averages(group_by_input_shape=True)`" in text and "`EventList(rows).table()`" in text
        assert "`part_c_linear_ops()`" in text and "`part_d_addmm_directly()`" in text


def test_the_vmap_task_and_exercise_3_state_the_code_their_checks_log():
    """Exercise 3's check compares the mode's log under vmap: the function the task names checks right, another one
    with `exp`, `log1p` and a `@` (what the task once asked for alone) does not; the vmap task's count checks right
    for the loop it names, not for one that indexes the batch (`select` where the check expects `unbind`)."""
    import inspect

    from hood.interface import TABLES
    from snippets.lab00 import exercises, vmap_count

    count = inspect.getsource(vmap_count.count_loop_and_vmap)
    indexed = count.replace("[f(row) for row in batch]", "[f(batch[i]) for i in range(samples)]")
    for answer, key in ((count, "right"), (indexed, "wrong")):
        verdict = quiet(notebook_verdict, "en", "vmap-count", "import torch\n\n" + answer)
        assert verdict == f"vmap-count: {TABLES['en']['download'][key]}", key

    run = inspect.getsource(exercises.exercise_3_vmap_under_a_mode)
    stated = "(torch.exp(t) * torch.log1p(t * t) + t @ t).sum()"
    for body, key in ((stated, "right"), ("(torch.exp(t) + torch.log1p(t) + t @ t).sum()", "wrong")):
        answer = f"import torch\n\ndef per_sample(t):\n    return {body}\n\n{run}"
        verdict = quiet(notebook_verdict, "en", "exercise-3", answer)
        assert verdict == f"exercise-3: {TABLES['en']['download'][key]}", body
    for text in (page("en"), page("es")):
        assert f"`{stated}`" in text and "`(t * t + torch.sin(t)).sum()`" in text
        assert "`torch.histc(t, bins=4)`" in text and "`render_calls`" in text
        assert "`torch.stack([f(row) for row in batch])`" in text and "`t.detach().half()`" in text


def test_the_float16_stretch_states_that_its_inputs_are_detached():
    """The float16 check expects detached inputs: halving the running example as it is logs `grad` marks, refused."""
    import inspect

    from hood.interface import TABLES

    stated = inspect.getsource(parts.stretch_fp16)
    attached = stated.replace("t.detach().half()", "t.half()")
    for answer, key in ((stated, "right"), (attached, "wrong")):
        verdict = quiet(notebook_verdict, "en", "stretch-fp16", answer)
        assert verdict == f"stretch-fp16: {TABLES['en']['download'][key]}", key


def test_the_benchmark_reading_says_growth_only_when_every_larger_batch_was_slower():
    """Over every ordering of three medians, ties included: the sentence says the median grew exactly when it rose
    at each larger batch, and its ratio is the last median over the first; a busy machine's outlier reads as such."""
    import itertools

    from hood.capture.common import localize
    from snippets.lab00.benchmark import read_medians

    for values in {*itertools.permutations((1e-5, 2e-5, 4e-5)), *itertools.product((1e-5, 2e-5), repeat=3)}:
        medians = dict(zip((2, 64, 256), values))
        en, es = (localize(read_medians(medians), language) for language in ("en", "es"))
        grew = values[0] < values[1] < values[2]
        assert en.startswith("The median grew") == grew and es.startswith("La mediana creció") == grew
        if grew:
            assert f"{values[2] / values[0]:.1f}x from batch 2 to batch 256" in en
            assert f"{values[2] / values[0]:.1f}".replace(".", ",") + " veces del lote 2 al 256" in es
    busy = localize(read_medians({2: 7991.4e-6, 64: 28.9e-6, 256: 97.7e-6}), "en")
    assert busy.startswith("The median did not grow at every larger batch here")


# ---------------------------------------------------------------- a fifth read: exercise 3's one per-sample line


def test_under_vmap_add_with_an_operand_0_dim_per_sample_logs_one_select_of_sample_0():
    """Exercise 3's log has one `select.int(f32[5], 0, 0)`: `add` with an operand 0-dim per sample makes it, then adds
    on the whole batch; with shape [1] per sample, no select."""
    from snippets.lab00 import exercises

    batch, per_sample = torch.randn(5, 4), torch.randn(5)
    column = per_sample[:, None]
    names = logged(lambda: torch.vmap(lambda t, s: t + s)(batch, per_sample))
    assert names == ["aten::select.int", "aten::view", "aten::add.Tensor"]
    assert logged(lambda: torch.vmap(lambda t, s: t + s)(batch, column)) == ["aten::add.Tensor"]
    _, _, calls = quiet(exercises.exercise_3_vmap_under_a_mode)
    assert [c.args for c in calls if c.op == "aten::select.int"] == [("f32[5]", "0", "0")]
    for text, words in ((page("en"), "`select.int(f32[5], 0, 0)`. `add`'s rule"),
                        (page("es"), "`select.int(f32[5], 0, 0)`. La regla de `add`")):
        assert words in re.sub(r"\s+", " ", text)


def test_outside_torch_only_the_innermost_frames_are_the_callers_code():
    """'Outside torch's own files, the innermost frames are your code; the outer ones can be your runner's': under
    pytest the frames outside torch include pytest's own; the innermost is the lab's training_step."""
    with drill.FirstCaller("aten::addmm") as mode:
        drill.training_step(*running_example())
    outside = [f for f in mode.stack if "/torch/" not in f.filename.replace("\\", "/")]
    assert any("/_pytest/" in f.filename or "/pluggy/" in f.filename for f in outside)
    assert outside[-1].name == "training_step" and outside[-1].line == "F.linear(x, W, b).sum().backward()"
    for text in (page("en"), page("es")):
        text = re.sub(r"\s+", " ", text)
        assert "(a notebook's kernel, pytest)" in text or "(el kernel de un notebook, pytest)" in text


def test_the_sentences_under_the_vmap_timing_hold_when_a_busy_machine_slows_the_loops_smallest_batch():
    """A busy run whose loop was slowest at batch 8: neither the generated sentence nor the page's after the table
    says that the loop's time grows with the batch."""
    from snippets.lab00.timing_sentence import read_timing

    busy = [(8, 8000.0, 40.0), (64, 450.0, 37.0), (512, 3600.0, 43.0)]
    for language in ("en", "es"):
        sentence = localize(read_timing(busy), language).splitlines()[-1]
        assert "grew" not in sentence and "creci" not in sentence
        after = page(language).split("rows = time_loop_and_vmap()", 1)[1].split("###", 1)[0]
        assert "grows" not in after and "crece" not in after
        assert "run the block again" in after or "vuelve a ejecutar el bloque" in after


# ---------------------------------------------------------------- a sixth read: the profiler's stack


def test_a_verbose_experimental_config_fills_the_stack_with_the_parent_events_names():
    """'with_stack=True alone leaves the stack empty; experimental_config=_ExperimentalConfig(verbose=True) fills
    `stack` with those same names': the function and the line of its `def`, not the line that made the call."""
    from torch.profiler import ProfilerActivity, _ExperimentalConfig, profile

    x, W, b = running_example(parts.SEED)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True,
                 experimental_config=_ExperimentalConfig(verbose=True)) as prof:
        drill.training_step(x, W, b)
    addmm = next(e for e in prof.events() if e.name == "aten::addmm")
    parents, event = set(), addmm.cpu_parent
    while event is not None:
        parents.add(event.name)
        event = event.cpu_parent
    line = drill.training_step.__code__.co_firstlineno
    assert addmm.stack and set(addmm.stack) <= parents
    assert any(frame.endswith(f"drill.py({line}): training_step") for frame in addmm.stack)
    for text in (page("en"), page("es")):
        text = re.sub(r"\s+", " ", text)
        assert "`with_stack=True` alone leaves" in text or "`with_stack=True` por sí solo deja" in text
        assert "`experimental_config=_ExperimentalConfig(verbose=True)`" in text


# ---------------------------------------------------------------- a seventh read: the calls a kernel makes inside


def test_a_mode_logs_the_calls_that_reach_it_not_those_a_kernel_makes_inside():
    """'A mode logs the calls that reach it, not those a kernel below it makes inside: `t` calls `transpose`, which
    the profiler records and the mode does not' (so the objective and Part C's title no longer say every operator)."""
    from torch.profiler import profile

    x, W, b = running_example(parts.SEED)
    with logging_mode.LoggingMode() as mode, profile() as prof:
        F.linear(x, W, b)
    assert mode.names == ["aten::t", "aten::addmm"]
    inside = {(e.name, e.cpu_parent.name) for e in prof.events() if e.cpu_parent is not None}
    assert ("aten::transpose", "aten::t") in inside and ("aten::expand", "aten::addmm") in inside
    for text in (page("en"), page("es")):
        text = re.sub(r"\s+", " ", text)
        assert "every decision" not in text and "cada decisión" not in text
        assert "Log every operator" not in text and "Un log de cada operador" not in text
        assert "`t` calls `transpose`" in text or "`t` llama a `transpose`" in text


# ---------------------------------------------------------------- an eighth read


def test_a_mode_logs_the_calls_a_kernel_above_it_makes_and_not_those_one_below_it_makes():
    """`t` and `addmm` are made inside `linear`'s kernel, which runs above the mode, and are logged; `transpose`,
    made inside `t`'s kernel below it, is not: the sentence says 'a kernel below it'."""
    from torch.profiler import profile

    x, W, b = running_example(parts.SEED)
    with logging_mode.LoggingMode() as mode, profile() as prof:
        F.linear(x, W, b)
    inside = {(e.name, e.cpu_parent.name) for e in prof.events() if e.cpu_parent is not None}
    assert {("aten::t", "aten::linear"), ("aten::addmm", "aten::linear"), ("aten::transpose", "aten::t")} <= inside
    assert mode.names == ["aten::t", "aten::addmm"]
    for text, words in ((page("en"), "not those a kernel below it makes inside"),
                        (page("es"), "no las que hace por dentro un kernel que está por debajo de él")):
        assert words in re.sub(r"\s+", " ", text)


def test_under_autocast_the_running_examples_linear_logs_casts_too():
    """The running example's call logs more than `t` and `addmm` in an autocast region: the page states what Part C
    logged on this CPU, not a rule with conditions."""
    x, W, b = running_example(parts.SEED)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        names = logged(lambda: F.linear(x, W, b))
    assert names == ["aten::_to_copy"] * 3 + ["aten::t", "aten::addmm"]
    for text, words, gone in (
            (page("en"), "the mode logged `aten::t` and `aten::addmm` on this CPU in Part C", "with a bias, outside"),
            (page("es"), "el modo anotó `aten::t` y `aten::addmm` en esta CPU en la parte C", "con sesgo, fuera")):
        text = re.sub(r"\s+", " ", text)
        assert words in text and gone not in text


def test_a_modules_backward_hook_sees_the_backward():
    """'a module's forward hooks do see the forward only': module hooks as such do not, a full backward hook runs
    in the backward pass."""
    linear, seen = torch.nn.Linear(4, 3), []
    linear.register_full_backward_hook(lambda module, grad_input, grad_output: seen.append(grad_output[0].shape))
    out = linear(torch.randn(2, 4, requires_grad=True)).sum()
    assert seen == []
    out.backward()
    assert seen == [torch.Size([2, 3])]
    for text, words in ((page("en"), "a module's forward hooks (`register_forward_hook`)"),
                        (page("es"), "los hooks de forward de un módulo (`register_forward_hook`)")):
        text = re.sub(r"\s+", " ", text)
        assert words in text and "module hooks (`register" not in text and "hooks de módulo (" not in text

EXERCISE_4 = """
def exercise_4_in_dims_out_dims():
    x, w = torch.randn(3, 5), torch.randn(3)
    out = torch.vmap(lambda sample, weight: {op}, in_dims=(1, None), out_dims=1)(x, w)
    print(f"x {{tuple(x.shape)}}, w {{tuple(w.shape)}} -> out {{tuple(out.shape)}}")
    print("same as {ref}:", torch.equal(out, {ref}))
    return out
"""


def test_exercise_4_states_the_product_its_check_compares_with():
    """Exercise 4's check prints the comparison with `x * w[:, None]`: another element-wise use of the shared weight
    (an addition, compared with its own reference) is refused, so the task names the product; `torch.mul` passes."""
    right = EXERCISE_4.format(op="torch.mul(sample, weight)", ref="x * w[:, None]")
    other = EXERCISE_4.format(op="sample + weight", ref="x + w[:, None]")
    assert quiet(notebook_verdict, "en", "exercise-4", right) == "exercise-4: right"
    assert quiet(notebook_verdict, "en", "exercise-4", other).startswith("exercise-4: wrong")
    en, es = (" ".join(page(language).split()) for language in ("en", "es"))
    assert "multiply each sample element-wise by a weight `w` (3,)" in en and "compare it with `x * w[:, None]`" in en
    assert "multiplica cada muestra elemento a elemento por un peso `w` (3,)" in es
    assert "compárala con `x * w[:, None]`" in es


# ---------------------------------------------------------------- a ninth read: the default backend kernel


def test_the_nonfunctional_alias_leaves_nested_tensor_keys_without_a_kernel():
    """'fills the `CUDA` slot in this table and the slots of some other backends': not every backend without a kernel
    of its own, as the page once said; `mm` has no row for a nested tensor on the CPU, and the call raises."""
    table = torch._C._dispatch_dump_table("aten::mm")
    rows = {line.split(":")[0]: line for line in table.splitlines()}
    assert "default backend kernel" in rows["CUDA"] and "NestedTensorCPU" not in rows
    nested = torch.nested.nested_tensor([torch.randn(2, 3), torch.randn(4, 3)])
    assert "NestedTensorCPU" in keys(nested)
    with pytest.raises(NotImplementedError, match="NestedTensorCPU"):
        torch.mm(nested, nested)
    for text, words, gone in ((page("en"), "fills the `CUDA` slot in this table", "every backend but XLA"),
                              (page("es"), "en esta tabla ocupa la casilla `CUDA`", "todos menos XLA")):
        text = re.sub(r"\s+", " ", text)
        assert words in text and gone not in text


# ---------------------------------------------------------------- a tenth read


def test_in_a_bfloat16_region_an_operator_that_runs_in_float32_casts_bfloat16_inputs():
    """The float16 box says only that the cast comes from autocast, not from the dtype: `mse_loss`, which autocast
    runs in float32, casts inputs that already have the region's dtype; `linear` does not."""
    a = torch.randn(4, 4, dtype=torch.bfloat16)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert logged(lambda: F.mse_loss(a, a)) == ["aten::_to_copy", "aten::_to_copy", "aten::mse_loss"]
        assert logged(lambda: F.linear(a, a)) == ["aten::t", "aten::mm"]
    for text, words in ((page("en"), "The cast of the belief comes from autocast, not from the dtype"),
                        (page("es"), "La conversión que describe la creencia viene de autocast, no del dtype")):
        assert words in re.sub(r"\s+", " ", text)


def test_the_notebook_compares_every_solutions_output_but_a_timings():
    """'a check that compares … line for line (…; a timing is not compared)': the timing blocks' checks carry no
    expected output and say so."""
    import ast

    from hood.interface import TABLES

    unchecked = set()
    for cell in learner_cells("en"):
        if cell.role == "check":
            call = ast.parse(cell.source).body[0].value
            expected = next(k.value for k in call.keywords if k.arg == "expected")
            if isinstance(expected, ast.Constant) and expected.value is None:
                unchecked.add(cell.block)
    assert unchecked == {"drill-profile", "benchmark", "exercise-3-timing"}
    scope = {"PAGE_LANGUAGE": "en", "__name__": "__main__"}
    exec(next(c.source for c in learner_cells("en") if c.role == "checks"), scope)  # noqa: S102
    out = printed(scope["check_answer"], "benchmark", "print(1)")[1]
    assert out.splitlines()[-1] == f"benchmark: {TABLES['en']['download']['timing']}"
    for text, words in ((page("en"), "`expected`; a timing is not compared)"),
                        (page("es"), "`expected`; una medición de tiempos no se compara)")):
        assert words in re.sub(r"\s+", " ", text)


# ---------------------------------------------------------------- an eleventh read


def test_the_report_says_more_than_linear_when_addmm_logged_more():
    """A Part C run under inference_mode logs `aten::linear` alone: Part D's two ops are more, not 'not as many as'
    `linear`, which read as fewer; the paragraph compares the counts both ways."""
    y, views, _, addmm, rows = reference_results()
    x, W, b = running_example(parts.SEED)
    with torch.inference_mode():
        whole = quiet(parts.log_ops, lambda: F.linear(x, W, b))
    assert [c.op for c in whole] == ["aten::linear"] and len(addmm) == 2
    paragraph = parts.interpretation(y, views, whole, addmm, rows)
    assert "`aten::addmm`), more than `linear`: `W.T` is itself an op" in localize(paragraph, "en")
    assert "`aten::addmm`), más que con `linear`: `W.T` también es un operador" in localize(paragraph, "es")
    assert "not as many" not in localize(paragraph, "en") and "no tantos" not in localize(paragraph, "es")

def test_under_vmap_add_logs_a_select_only_when_one_operand_alone_is_0_dim_per_sample():
    """Exercise 3's `select`: `add`'s rule makes it because only one operand is 0-dim per sample, not whenever one is;
    with both 0-dim per sample, no select."""
    batch = torch.randn(5, 4)
    assert logged(lambda: torch.vmap(lambda t: t + t.sum())(batch)) == [
        "aten::sum.dim_IntList", "aten::select.int", "aten::view", "aten::add.Tensor"]
    assert logged(lambda: torch.vmap(lambda t: t.sum() + t.sum())(batch)) == [
        "aten::sum.dim_IntList", "aten::sum.dim_IntList", "aten::add.Tensor"]
    for text, words, gone in (
            (page("en"), "because only one of its two operands, `t @ t`, is 0-dim per sample",
             "when an operand is 0-dim"),
            (page("es"), "porque solo uno de sus dos operandos, `t @ t`, tiene 0 dimensiones por muestra",
             "cuando un operando tiene 0")):
        text = re.sub(r"\s+", " ", text)
        assert words in text and gone not in text


# ---------------------------------------------------------------- a twelfth read: the drill's shares


def test_the_drills_shares_are_of_the_operators_time_and_larger_than_the_profilers_self_cpu_share():
    """The drill divides by the operator rows' summed self time: with `with_stack=True` the Python events have self
    time too, so its shares exceed the profiler's `Self CPU %`; the labels no longer say 'of self CPU time'."""
    from torch.profiler import ProfilerActivity, profile

    from hood.capture.profile import hot_ops, is_op, op_rows

    x, W, b = running_example(parts.SEED)
    with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
        for _ in range(2):
            drill.training_step(x, W, b)
    events = prof.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    python = sum(e.self_cpu_time_total for e in events if not is_op(e.key))
    assert python > 0 and any(".py(" in e.key for e in events if not is_op(e.key))
    own = {e.key: e.self_cpu_time_total / total for e in events}
    for name, share in hot_ops(op_rows(prof), threshold=0.0):
        assert share >= own[name]
    out = printed(drill.profile_drill, 2)[1]
    assert "at least 5 % of their summed self CPU time:" in localize(out, "en")
    assert "al menos el 5 % de la suma de su tiempo propio de CPU:" in localize(out, "es")
    for text, task, reading in (
            (page("en"), "5 % of the operators' summed self CPU time", "larger than the profiler's own `Self CPU %`"),
            (page("es"), "5 % de la suma del tiempo propio de CPU (self CPU) de los operadores",
             "mayores que el `Self CPU %` del propio profiler")):
        text = re.sub(r"\s+", " ", text)
        assert task in text and reading in text


# ---------------------------------------------------------------- a thirteenth read: where the deliverables go


def test_the_notebooks_deliverables_folder_is_in_the_working_directory_not_next_to_the_file(tmp_path, monkeypatch):
    """The learner's setup cell names `lab00-deliverables` relative to the working directory: a script run from
    another folder writes there, not next to itself, so every lab page and the README say the working directory."""
    scope = {"PAGE_LANGUAGE": "en", "__name__": "__main__"}
    exec(next(c.source for c in learner_cells("en") if c.role == "setup"), scope)  # noqa: S102
    monkeypatch.chdir(tmp_path)
    folder = scope["deliverables_folder"]("lab00")
    assert not folder.is_absolute() and folder.resolve() == tmp_path / "lab00-deliverables"
    for text, words, gone in ((page("en"), "into the folder `lab00-deliverables` in your working directory",
                               "next to your notebook or script"),
                              (page("es"), "en la carpeta `lab00-deliverables` de tu directorio de trabajo",
                               "junto a tu notebook o tu script")):
        text = re.sub(r"\s+", " ", text)
        assert words in text and gone not in text
    docs = ROOT / "docs"
    for lab in sorted((docs / "en" / "labs").glob("*.md")):
        for language, where in (("en", "-deliverables/` in your working directory"),
                                ("es", "-deliverables/` de tu directorio de trabajo")):
            text = re.sub(r"\s+", " ", (docs / language / "labs" / lab.name).read_text(encoding="utf-8"))
            assert "next to the notebook" not in text and "junto al notebook" not in text, (language, lab.name)
            assert lab.name.startswith("00") or where in text, (language, lab.name)
    readme = re.sub(r"\s+", " ", (docs.parent / "README.md").read_text(encoding="utf-8"))
    assert "`<lab>-deliverables/` in the working directory" in readme
