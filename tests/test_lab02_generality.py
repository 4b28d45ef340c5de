"""Lab 02's general sentences, each tried against the counterexample that narrowed it (torch 2.13.0, CPU)."""

import contextlib
import functools
import inspect
import io
from pathlib import Path

import pytest
import torch
from torch import Tensor
from torch.utils._pytree import tree_map

from hood.capture.autograd import call_key_set, tls_keys
from hood.capture.common import dispatch_table
from hood.capture.custom_ops import CALL_PATH_KEYS, dispatch_rows
from snippets.custom_ops import head as head_snippet
from snippets.custom_ops.record_ops import RecordOps
from snippets.custom_ops import scaled_linear as op_snippet
from snippets.custom_ops.scaled_linear import define_scaled_linear
from snippets.lab02 import run as lab02_run

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


@functools.cache
def learner_cells(language):
    """The cells of this lab's learner notebook in `language`."""
    from tools import notebooks

    return notebooks.cells(PAGE, language, learner=True)


def notebook_check(language, block, answer, namespace, namespace_of_op):
    """Run the learner's notebook (`language`) for `block` in `namespace`: its setup and checks cells (once), `answer`,
    then the block's check cell; the op's namespace `hood` is renamed `namespace_of_op` in the answer and the check
    (a second op of the same name would replace the first in this process). Return what the check printed."""
    cells = learner_cells(language)

    def renamed(code):
        return code.replace("hood::", f"{namespace_of_op}::").replace("hood.", f"{namespace_of_op}.")

    if "check_answer" not in namespace:
        namespace["PAGE_LANGUAGE"] = language
        for role in ("setup", "checks"):
            exec(next(c.source for c in cells if c.role == role), namespace)  # noqa: S102
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(renamed(answer), namespace)  # noqa: S102
        exec(renamed(next(c.source for c in cells if c.role == "check" and c.block == block)), namespace)  # noqa: S102
    return printed.getvalue().splitlines()


def solution(module, section="body"):
    """The code of a snippet's section, as the page includes it."""
    source = inspect.getsource(module)
    return source.split(f"# --8<-- [start:{section}]")[1].split(f"# --8<-- [end:{section}]")[0]


def test_the_definition_check_refuses_a_define_scaled_linear_that_returns_nothing():
    """The block after step 1's definition prints the op it returns, so an answer that registers nothing, or does not
    return the op, is refused; the solution passes (the check once printed nothing, and passed an empty answer)."""
    empty = "def define_scaled_linear(name='hood::scaled_linear', *, fake=True, autograd=True):\n    pass\n"
    for language, right, wrong in (("en", "right", "wrong"), ("es", "correcto", "incorrecto")):
        printed = notebook_check(language, "define-op", empty, {}, f"hood_nb_{language}")
        assert printed[-1] != f"define-op: {right}" and printed[0] == "None", printed
        assert any(line.startswith(f"define-op: {wrong}") for line in printed), printed
        printed = notebook_check(language, "define-op", solution(op_snippet), {}, f"hood_nb_{language}")
        assert printed == [f"<CustomOpDef(hood_nb_{language}::scaled_linear)>", f"define-op: {right}"], printed


TASK_STATES = {
    "en": {"define": ("`schema:`", "`y: max |custom op - reference| < 1e-06`"),
           "checks": ("`gradcheck (fast mode): True`", "`gradgradcheck (fast mode): True`", "`opcheck:`"),
           "tables": ("`key`", "padded to 16 characters", "padded to 58",
                      "`fallthrough backend fallback (autocast_mode.cpp)`"),
           "head-trace": ("`nn.Parameter`s named `W` and `b`", "`forward ops:`"),
           "compiled": ("`forward wrapper, kernel calls:`", "indented by four spaces",
                        "`compiled vs eager output: max abs diff < 1e-04`"),
           "no-fake": ("`eager on real tensors:`", "the output's shape as a tuple",
                       "`meta tensors:`", "`torch.compile:`", "`opcheck:`",
                       "`which wraps`")},
    "es": {"define": ("`esquema:`", "`y: diferencia máxima con la referencia < 1e-06`"),
           "checks": ("`gradcheck (modo rápido): True`", "`gradgradcheck (modo rápido): True`", "`opcheck:`"),
           "tables": ("`clave`", "rellenada hasta 16 caracteres", "rellenada\nhasta 58",
                      "`fallthrough backend fallback (autocast_mode.cpp)`"),
           "head-trace": ("`nn.Parameter` llamados `W` y `b`", "`operaciones del forward:`"),
           "compiled": ("`wrapper del forward, llamadas a kernels:`", "cuatro espacios delante",
                        "`compilado frente a eager, salida: diferencia absoluta máxima < 1e-04`"),
           "no-fake": ("`eager con tensores reales:`", "la forma de la salida como tupla",
                       "`tensores meta:`", "`torch.compile:`", "`opcheck:`",
                       "`que envuelve`")},
}
"""Phrases each task states about what its check compares, by language and block."""


def test_each_task_states_the_lines_its_check_compares():
    """The notebook's checks compare printed lines; each task, in its step's prose before the answer cell, states
    the lines, and the check expects them."""
    for language, blocks in TASK_STATES.items():
        cells = learner_cells(language)
        for block, phrases in blocks.items():
            at = next(k for k, c in enumerate(cells) if c.role == "answer" and c.block == block)
            start = max(k for k, c in enumerate(cells[:at]) if c.role == "prose" and "\n## " in "\n" + c.source)
            task = "\n".join(c.source for c in cells[start:at] if c.role == "prose")
            check = next(c.source for c in cells if c.role == "check" and c.block == block)
            for phrase in phrases:
                assert phrase in task, (language, block, phrase)
                label = phrase.strip("`").split(" < ")[0].removesuffix(" True")
                if phrase.startswith("`") and block != "tables" and "nn.Parameter" not in phrase:
                    assert label.strip().rstrip(":") in check, (language, block, label)


@pytest.mark.usefixtures("like_a_block")
def test_the_compiled_check_takes_the_parameters_first_so_the_task_says_they_are_parameters():
    """A head that keeps `W` and `b` as plain tensors that require grad compiles to a graph whose inputs start with
    `x`: the check of step 5 refuses it (the solution's head, with `nn.Parameter`s, passes: `tools.notebooks`)."""
    namespace = {}
    notebook_check("en", "define-op", solution(op_snippet), namespace, "hood_nb_compiled")
    model, body = solution(head_snippet, "model"), solution(head_snippet)
    plain = model.replace("torch.nn.Parameter(W.detach().clone())", "W.detach().clone().requires_grad_()").replace(
        "torch.nn.Parameter(b.detach().clone())", "b.detach().clone().requires_grad_()")
    assert plain != model
    printed = notebook_check("en", "compiled", plain + body, namespace, "hood_nb_compiled")
    assert any(line.startswith("compiled: wrong") for line in printed), printed
    call = "buf0 = torch.ops.hood_nb_compiled.scaled_linear.default(primals_1, primals_2, primals_3, 0.5)"
    assert "    " + call in printed


UNSEPARATED_TABLES = """
def entry(row):
    return ("fallthrough " if row.fallthrough else "") + row.kind + " (" + row.source.split("/")[-1] + ")"


def compare_tables():
    ours, addmm = dispatch_rows("hood::scaled_linear"), dispatch_rows("aten::addmm")
    print(f"{'key':<16}{'hood::scaled_linear':<58}aten::addmm")
    for a, b in zip(ours, addmm):
        print(f"{a.key:<16}{entry(a):<58}{entry(b)}")
    return ours, addmm
"""


def test_the_tables_check_takes_columns_padded_without_a_separating_space():
    """Step 3 pads the key to 16 characters and our op's entry to 58; the solution puts a space after each padded
    column, an answer that reads the widths as including it prints one space fewer: it checks right, since a run of
    spaces counts as one. A table with another entry for a row does not."""
    namespace = {}
    notebook_check("en", "define-op", solution(op_snippet), namespace, "hood_nb_tables")
    printed = notebook_check("en", "tables", UNSEPARATED_TABLES, namespace, "hood_nb_tables")
    assert printed[-1] == "tables: right", printed
    assert "AutocastCPU     fallthrough backend fallback (autocast_mode.cpp)" in printed[1], printed
    wrong = UNSEPARATED_TABLES.replace('+ row.kind +', '+ row.kind.replace("default ", "") +')
    printed = notebook_check("en", "tables", wrong, namespace, "hood_nb_tables")
    assert any(line.startswith("tables: wrong") for line in printed), printed


@pytest.mark.usefixtures("like_a_block")
def test_a_backward_in_another_order_compiles_to_other_calls_so_step_1_states_the_order():
    """A right backward that computes `dW` before `dx` compiles to the same calls in another order: step 5's check
    refuses it, so step 1 states the order of the three products."""
    namespace = {}
    reordered = solution(op_snippet).replace(
        "return g @ W, g.t() @ x, g.sum(0), None",
        "dW, db = g.t() @ x, g.sum(0)\n        return g @ W, dW, db, None")
    assert reordered != solution(op_snippet)
    notebook_check("en", "define-op", reordered, namespace, "hood_nb_order")
    printed = notebook_check("en", "compiled", solution(head_snippet, "model") + solution(head_snippet), namespace,
                             "hood_nb_order")
    assert any(line.startswith("compiled: wrong") for line in printed), printed
    assert "compiled vs eager dW: max abs diff < 1e-04" in printed  # the gradients are right
    ran = printed[:next(k for k, line in enumerate(printed) if line.startswith("compiled: wrong"))]
    calls = [line.strip() for line in ran if line.startswith("    ")]
    assert [c.split("(")[0] for c in calls[2:]] == ["cpp_fused__log_softmax_backward_data_mul_0",
                                                   "extern_kernels.mm", "cpp_fused_sum_1", "extern_kernels.mm"]
    for language, stated in (("en", "in the order `g @ W`, `g.t() @ x`, `g.sum(0)`"),
                             ("es", "en el orden `g @ W`, `g.t() @ x`, `g.sum(0)`")):
        assert stated in " ".join((PAGES / language / PAGE).read_text().split()), language


def test_each_of_the_three_kernels_calls_back_into_its_own_python_function():
    """REPORT.md section 3: the Meta row calls the `register_fake` function, the Autograd row what `register_autograd`
    registered, CompositeExplicitAutograd the decorated function; section 4 names the mode in both languages."""
    from snippets.lab02 import run

    called = []

    @torch.library.custom_op("hood_lab02::traced_twice", mutates_args=())
    def twice(x: Tensor) -> Tensor:
        called.append("decorated")
        return x * 2

    twice.register_fake(lambda x: called.append("fake") or torch.empty_like(x))
    twice.register_autograd(lambda ctx, grad: called.append("backward") or grad * 2)
    twice(torch.ones(2, device="meta"))
    assert called == ["fake"]
    twice(torch.ones(2, requires_grad=True)).sum().backward()
    assert called == ["fake", "decorated", "backward"]
    source = " ".join(inspect.getsource(run).replace('"\n', "").replace('               "', "").split())
    assert "Meta into the `register_fake` function, Autograd into what `register_autograd` registered" in source
    assert "Meta a la función de `register_fake`, Autograd a lo que registró `register_autograd`" in source
    assert "con un modo de dispatch en la pila, ese guardado pasa por el operador `detach`" in source


@pytest.mark.usefixtures("like_a_block")
def test_the_report_reads_section_1_from_the_bounds_printed():
    """An op computing `scale * (x @ W.T) + b`, with its own right backward, passes step 2's checks (so the report is
    written) while step 1 prints `> 1e-06`: REPORT.md's section 1 then says the op differs, not that it agrees."""
    from hood.capture.common import localize
    from snippets.custom_ops import checks as checks_snippet, reference as reference_snippet
    from snippets.lab02.run import reference_reading

    namespace = {}
    scaled_after = solution(op_snippet).replace("torch.addmm(b, x, W.t()) * scale",
                                                "torch.addmm(b, x, W.t(), alpha=scale)").replace(
        "g.sum(0), None", "grad.sum(0), None")
    notebook_check("en", "define-op", scaled_after, namespace, "hood_nb_ref")
    printed = notebook_check("en", "checks", solution(checks_snippet), namespace, "hood_nb_ref")
    assert printed[-1] == "checks: right", printed
    printed = notebook_check("en", "define", solution(reference_snippet), namespace, "hood_nb_ref")
    ran = printed[:next(k for k, line in enumerate(printed) if line.startswith("define: wrong"))]
    assert "y: max |custom op - reference| > 1e-06" in ran and "dx: max |custom op - reference| < 1e-06" in ran
    assert localize(reference_reading("\n".join(ran)), "en").startswith("A line marked `>` differs")
    assert localize(reference_reading("\n".join(ran)), "es").startswith("Una línea marcada con `>`")
    right = [line.replace("> 1e-06", "< 1e-06") for line in ran]
    assert localize(reference_reading("\n".join(right)), "en").startswith("The op computes what")


@pytest.mark.usefixtures("like_a_block")
def test_the_report_says_what_fails_without_a_fake_kernel_not_that_the_attempts_failed():
    """A `define_scaled_linear` that ignores `fake=False` passes step 2's checks, so the report is written, while
    step 6 prints `no error` three times: REPORT.md's section 6 says what fails without a fake kernel, not that
    the three attempts above it failed."""
    from snippets.custom_ops import checks as checks_snippet, no_fake as no_fake_snippet

    namespace = {}
    always_fake = solution(op_snippet).replace("    if fake:\n", "    if True:\n")
    assert always_fake != solution(op_snippet)
    notebook_check("en", "define-op", always_fake, namespace, "hood_nb_fake")
    assert notebook_check("en", "checks", solution(checks_snippet), namespace, "hood_nb_fake")[-1] == "checks: right"
    printed = notebook_check("en", "no-fake", solution(no_fake_snippet), namespace, "hood_nb_fake")
    for attempt in ("meta tensors", "torch.compile", "opcheck"):
        assert f"{attempt}: no error" in printed, printed
    source = " ".join(inspect.getsource(lab02_run).replace('"\n', "").replace('               "', "").split())
    assert "all fail with the same message" not in source and "fallan, todos," not in source
    assert "test do: without one, each of them fails with the same message" in source
    assert "sí lo necesitan: sin él, los tres fallan con el mismo mensaje" in source


@pytest.mark.usefixtures("like_a_block")
def test_a_compiled_backward_cached_for_the_first_definition_outlives_a_redefinition():
    """After a second definition with another backward, eager follows it, but `torch.compile` (Dynamo reset) gets the
    first definition's backward back from the autograd cache, whose key has the graph, not the backward
    (pytorch#144344); with that cache off it compiles the second. The note, the pitfalls and REPORT.md say so."""
    from torch._functorch import config as functorch_config

    name, shapes = "hood_lab02::scaled_linear_cached", ((2, 4), (3, 4), (3,))

    def db(op, compiled):
        torch._dynamo.reset()
        x, W, b = (torch.randn(s, generator=torch.Generator().manual_seed(0)).requires_grad_() for s in shapes)
        fn = lambda x, W, b: op(x, W, b, 0.5).sum()  # noqa: E731 - the same graph for both definitions
        (torch.compile(fn, fullgraph=True) if compiled else fn)(x, W, b).backward()
        return b.grad

    first = define_scaled_linear(name)
    with functorch_config.patch(enable_autograd_cache=True):
        assert torch.equal(db(first, True), torch.full((3,), 1.0))  # two rows of 0.5
        second = define_scaled_linear(name, autograd=False)
        second.register_autograd(lambda ctx, grad: (None, None, 2 * grad.sum(0), None))
        assert torch.equal(db(second, False), torch.full((3,), 4.0))
        assert torch.equal(db(second, True), torch.full((3,), 1.0))  # the first definition's backward
    with functorch_config.patch(enable_autograd_cache=False):
        assert torch.equal(db(second, True), torch.full((3,), 4.0))
    for language, stated in (("en", "`torch._functorch.config.enable_autograd_cache = False`"),
                             ("es", "`torch._functorch.config.enable_autograd_cache = False`")):
        assert stated in (PAGES / language / PAGE).read_text(), language
    source = " ".join(inspect.getsource(lab02_run).replace('"\n', "").replace('               "', "").split())
    assert "can still reuse a backward compiled from the first" in source
    assert "puede seguir reutilizando un backward compilado a partir de la primera" in source
