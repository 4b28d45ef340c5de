"""Lab 00: trace the dispatcher on F.linear(x, W, b) — parts A to F and the stretch goals.

The `helpers` section goes into the lab's setup block; every other section is the solution of one task and goes
into that task's solution box, so that the learner's notebook holds a stub of it, not the answer.
"""

from hood.capture.common import LANGUAGES, localize, words
from hood.capture.keys import key_view, render_key_views
from hood.capture.ops import OpLog, render_calls
from hood.capture.profile import op_rows
from snippets.running_example import running_example

# --8<-- [start:helpers]
import torch
import torch.nn.functional as F
from torch.autograd.profiler_util import EventList
from torch.profiler import ProfilerActivity, profile


SEED = 42


def log_ops(fn):
    """Run `fn()` under the logging mode; return the calls it saw."""
    with OpLog() as log:
        fn()
    print(render_calls(log.calls))
    return log.calls
# --8<-- [end:helpers]


# --8<-- [start:part_a]
def part_a_baseline():
    """A: call linear, look at the output and its grad_fn."""
    x, W, b = running_example(SEED)
    y = F.linear(x, W, b)
    print(f"y.shape = {tuple(y.shape)}")
    print(f"y.grad_fn = {y.grad_fn}")
    return y
# --8<-- [end:part_a]


# --8<-- [start:part_b]
def part_b_key_sets():
    """B: the key sets with and without requires_grad, in float16, under no_grad."""
    x, W, b = running_example(SEED)
    views = [key_view("x (requires_grad=True)", x), key_view("x.detach() (requires_grad=False)", x.detach()),
             key_view("torch.empty(1, dtype=torch.float16)", torch.empty(1, dtype=torch.float16))]
    with torch.no_grad():
        views.append(key_view("x " + words(en="under", es="dentro de") + " torch.no_grad()", x))
    print(f"hasattr(x, '_dispatch_key_set'): {hasattr(x, '_dispatch_key_set')}")
    print(render_key_views(views, show_tls=False))
    return views
# --8<-- [end:part_b]


# --8<-- [start:part_c]
def part_c_linear_ops():
    """C: every ATen call reaching the Python key for F.linear(x, W, b)."""
    x, W, b = running_example(SEED)
    return log_ops(lambda: F.linear(x, W, b))
# --8<-- [end:part_c]


# --8<-- [start:part_d]
def part_d_addmm_directly():
    """D: the same product written as addmm(b, x, W.T)."""
    x, W, b = running_example(SEED)
    return log_ops(lambda: torch.addmm(b, x, W.T))
# --8<-- [end:part_d]


# --8<-- [start:part_e]
def part_e_profile():
    """E: the profiler over forward and backward; the table keeps the rows the lab asks about."""
    focus = ("aten::linear", "aten::t", "aten::addmm", "AddmmBackward0",
             "autograd::engine::evaluate_function: AddmmBackward0", "aten::mm")
    x, W, b = running_example(SEED)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        F.linear(x, W, b).sum().backward()
    averages = prof.key_averages(group_by_input_shape=True)
    print(EventList([e for e in averages if e.key in focus]).table(sort_by="cpu_time_total", row_limit=-1))
    return op_rows(prof)
# --8<-- [end:part_e]


# --8<-- [start:part_f]
def findings(y, views, linear_calls, addmm_calls, rows) -> dict:
    """What parts A to E showed, fact by fact: what the report's paragraph states."""
    def listed(calls):
        return ", ".join(f"`{c.op}`" for c in calls)

    return {
        "linear_ops": listed(linear_calls), "addmm_ops": listed(addmm_calls), "logged": len(addmm_calls),
        "more": len(addmm_calls) - len(linear_calls), "transposed": any(c.op != "aten::addmm" for c in addmm_calls),
        "same_keys": len({tuple(v.tensor) for v in views}) == 1,
        "linear_reached": any(c.op.startswith("aten::linear") for c in linear_calls),
        "node": type(y.grad_fn).__name__ if y.grad_fn is not None else None,
        "forward": next(r for r in rows if r.name == "aten::linear").shapes,
        "backward": next(r for r in rows if r.name == "AddmmBackward0").shapes,
    }


def interpretation(y, views, linear_calls, addmm_calls, rows) -> str:
    """The report's paragraph in every language, each fact read from the outputs of parts A to E, not expected."""
    found = findings(y, views, linear_calls, addmm_calls, rows)
    ops, reached, node, more = found["linear_ops"], found["linear_reached"], found["node"], found["more"]
    linear_en = (f"`linear(x, W, b)` reached the dispatch mode as `aten::linear` ({ops}): no autograd key decomposed "
                 "it. " if reached else "`linear(x, W, b)` never reached the dispatch mode as `aten::linear`: it is a "
                 f"CompositeImplicitAutograd kernel and decomposed above the Python key into {ops}. ")
    linear_es = (f"`linear(x, W, b)` llegó al modo de dispatch como `aten::linear` ({ops}): ninguna clave de autograd "
                 "lo descompuso. " if reached else "`linear(x, W, b)` nunca llegó al modo de dispatch como "
                 f"`aten::linear`: es un kernel CompositeImplicitAutograd y se descompuso por encima de la clave "
                 f"`Python` en {ops}. ")
    autograd_en = (f"fires first, records `{node}`, then redispatches down to the CPU kernel" if node else
                   "recorded no node here: `y` has no `grad_fn`")
    autograd_es = (f"actúa primero, graba `{node}` y después redespacha la llamada hacia el kernel de CPU" if node
                   else "aquí no grabó ningún nodo: `y` no tiene `grad_fn`")
    english = (
        linear_en
        + f"Calling `addmm(b, x, W.T)` directly logged {found['logged']} op{'s' * (found['logged'] != 1)} "
        f"({found['addmm_ops']}), {('as many as', 'more than', 'fewer than')[(more > 0) - (more < 0)]} `linear`"
        f"{': `W.T` is itself an op' if found['transposed'] else ''}. The tensor key sets were "
        f"{'identical' if found['same_keys'] else 'different'} with and without `requires_grad`, in float16 and "
        f"under `no_grad`; the autograd key `AutogradCPU` sits above `CPU` and {autograd_en}. The profiler shows "
        f"the forward `aten::linear` with input shapes {found['forward']} and the backward `AddmmBackward0` with "
        f"{found['backward']}."
    )
    spanish = (
        linear_es
        + f"Al llamar directamente a `addmm(b, x, W.T)`, el log recogió {found['logged']} "
        f"operador{'es' * (found['logged'] != 1)} ({found['addmm_ops']}), "
        f"{('tantos como', 'más que', 'menos que')[(more > 0) - (more < 0)]} con `linear`"
        f"{': `W.T` también es un operador' if found['transposed'] else ''}. Los conjuntos de claves del tensor "
        f"fueron {'idénticos' if found['same_keys'] else 'distintos'} con y sin `requires_grad`, en float16 y bajo "
        f"`no_grad`; la clave de autograd `AutogradCPU` está por encima de `CPU` y {autograd_es}. El profiler "
        f"muestra el forward `aten::linear` con formas de entrada {found['forward']} y el backward "
        f"`AddmmBackward0` con {found['backward']}."
    )
    return words(en=english, es=spanish)
# --8<-- [end:part_f]


# --8<-- [start:report_points]
import re


def paragraph_names(paragraph, *facts) -> bool:
    """Whether `paragraph` names every fact as the outputs print it, in every language it is written in (backticks,
    case and the spaces inside a shape aside)."""
    def named(text, fact):
        text, fact = text.replace("`", "").lower(), fact.lower()
        if fact.startswith("["):  # a list of shapes: compare without spaces
            return fact.replace(" ", "") in text.replace(" ", "")
        return re.search(rf"(?<![\w:]){re.escape(fact)}(?![\w:])", text) is not None

    texts = {localize(paragraph, language) for language in LANGUAGES}
    return all(named(text, fact) for text in texts for fact in facts)


def paragraph_points(paragraph, y, views, linear_calls, addmm_calls, rows):
    """Part F's four points: the facts your outputs show for each, and whether `paragraph` names them. Names, not
    words: the sentences around them are yours."""
    node = [type(y.grad_fn).__name__] if y.grad_fn is not None else []
    points = [
        (words(en="1. decomposition, the operators of part C", es="1. descomposición, los operadores de la parte C"),
         [c.op for c in linear_calls]),
        (words(en="2. operator count, the operators of part D", es="2. número de operadores, los de la parte D"),
         [c.op for c in addmm_calls]),
        (words(en="3. key sets, the key that fires first and the node",
               es="3. conjuntos de claves, la clave que actúa primero y el nodo"), [views[0].first, *node]),
        (words(en="4. shapes, forward linear and backward AddmmBackward0",
               es="4. formas, el forward de linear y el backward AddmmBackward0"),
         [next(r for r in rows if r.name == name).shapes for name in ("aten::linear", "AddmmBackward0")]),
    ]
    print(words(en="the paragraph names the facts of the four points:",
                es="el párrafo nombra los hechos de los cuatro puntos:"))
    for point, facts in points:
        print(f"  {point}: {', '.join(dict.fromkeys(facts))}:",
              words(en="yes", es="sí") if paragraph_names(paragraph, *facts) else "no")
    return points
# --8<-- [end:report_points]


# --8<-- [start:stretch_fp16]
def stretch_fp16():
    """Stretch: the same call in float16 (no grad, to keep the trace short)."""
    x, W, b = (t.detach().half() for t in running_example(SEED))
    calls = log_ops(lambda: F.linear(x, W, b))
    print(words(en="output dtype:", es="dtype de la salida:"), F.linear(x, W, b).dtype)
    return calls
# --8<-- [end:stretch_fp16]


# --8<-- [start:stretch_no_grad]
def stretch_no_grad():
    """Stretch: under no_grad the ops are the same; the output records no graph."""
    x, W, b = running_example(SEED)
    with torch.no_grad():
        calls = log_ops(lambda: F.linear(x, W, b))
        y = F.linear(x, W, b)
    print(f"y.requires_grad = {y.requires_grad}, y.grad_fn = {y.grad_fn}")
    return calls, y
# --8<-- [end:stretch_no_grad]


# --8<-- [start:stretch_matmul]
def stretch_matmul_plus_bias():
    """Stretch: (x @ W.T) + b decomposes differently."""
    x, W, b = running_example(SEED)
    calls = log_ops(lambda: (x @ W.T) + b)
    print(f"grad_fn = {((x @ W.T) + b).grad_fn}")
    return calls
# --8<-- [end:stretch_matmul]
