"""Lab 01's general sentences, each tried against the counterexample that narrowed it (torch 2.13.0, CPU)."""

import functools
import inspect
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from hood.capture.autograd import saved_values, walk
from hood.capture.common import dispatch_table
from hood.capture.ops import OpLog
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.formulas import addmm_backward, relu_backward, t_backward
from snippets.running_example import running_example

TORCH = Path(torch.__file__).parent
PACKAGED = TORCH.parent / "torchgen" / "packaged"  # the wheel's copies of native_functions.yaml, derivatives.yaml
PAGES = Path(__file__).resolve().parents[1] / "docs"
PAGE = "labs/01-autograd-by-hand.md"


def mlp(dtype=torch.float32):
    """The MLP's leaves and its loss in `dtype`, as step 1 builds them."""
    x, _, _ = running_example(dtype=dtype)
    W1, b1, W2, b2, target = mlp_params(dtype=dtype)
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    return (x, W1, b1, W2, b2, target), logp, loss


def test_addmm_backward_leaves_the_bias_sum_to_the_engine():
    """AddmmBackward0's own d bias has G's shape (maybe_multiply(grad, beta)); the engine sums it to b2's shape."""
    (_, _, _, _, b2, _), logp, loss = mlp()
    node = logp.grad_fn.next_functions[0][0]
    assert type(node).__name__ == "AddmmBackward0"
    accumulate = node.next_functions[0][0]
    assert accumulate.variable is b2 and list(accumulate._input_metadata[0].shape) == [600]
    arriving = []
    node.register_prehook(lambda grad_outputs: arriving.append(grad_outputs[0]))
    loss.backward(retain_graph=True)  # keep the saved tensors, to call the node again below
    (G,) = arriving
    d_bias, _, _ = node(G)  # the node's formula alone, called on the gradient that reached it
    assert tuple(d_bias.shape) == (2, 600) and torch.equal(d_bias, G)
    assert torch.equal(b2.grad, G.sum(0))


def test_the_walk_leaves_out_only_the_saved_sizes_and_strides():
    """Every node's `_saved_*` attribute is shown but the `_sym_sizes` / `_sym_strides` ones; addmm has four."""
    _, _, loss = mlp()
    hidden_by_class = {}
    for fn, _ in walk(loss):
        every = {a.removeprefix("_saved_") for a in dir(fn) if a.startswith("_saved_")}
        hidden = every - {v.name for v in saved_values(fn)}
        assert all(name.endswith(("_sym_sizes", "_sym_strides")) for name in hidden)
        hidden_by_class[type(fn).__name__] = hidden
    assert hidden_by_class["AddmmBackward0"] == {"mat1_sym_sizes", "mat1_sym_strides", "mat2_sym_sizes",
                                                 "mat2_sym_strides"}


def mm_operands(log):
    """The operands of each `aten::mm` call the log saw, described without the `grad` mark."""
    return [tuple(arg.removesuffix(" grad") for arg in c.args) for c in log.calls if c.op == "aten::mm"]


def test_autograd_and_the_hand_formula_make_different_mm_calls_for_dW():
    """mat2 = W.t() is column-major, so autograd multiplies G.t() @ x; the hand formula x.t() @ G, transposed."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    G = torch.randn(2, 600, generator=torch.Generator().manual_seed(1))
    mat1, mat2 = y.grad_fn._saved_mat1, y.grad_fn._saved_mat2
    assert mat2.stride() == (1, 64)  # column-major (64, 600)
    with OpLog() as log:
        y.backward(G)
    autograd_mm = mm_operands(log)
    assert ("f32[600, 2]", "f32[2, 64]") in autograd_mm and ("f32[64, 2]", "f32[2, 600]") not in autograd_mm
    with OpLog() as log, torch.no_grad():
        _, _, d_Wt = addmm_backward(G, mat1, mat2)
        d_W = t_backward(d_Wt)
    assert mm_operands(log)[-1] == ("f32[64, 2]", "f32[2, 600]")
    assert (d_W - W.grad).abs().max().item() < 1e-6  # the same sums of products


def test_relu_backward_passes_the_gradient_at_nan():
    """threshold_backward zeroes where the saved output is <= 0: NaN is not, so its gradient passes."""
    z = torch.tensor([float("nan"), -1.0, 2.0, float("inf"), float("-inf")], requires_grad=True)
    h = F.relu(z)
    h.backward(torch.ones(5))
    assert z.grad.tolist() == [1.0, 0.0, 1.0, 1.0, 0.0]
    by_hand = relu_backward(torch.ones(5), h.detach())
    assert by_hand.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0]  # (h > 0) agrees everywhere but at NaN


def test_total_weight_is_n_only_without_class_weights_or_ignored_targets():
    """total_weight counts the targets not ignored, or sums their class weights; the MLP's is N = 2."""
    _, _, loss = mlp()
    assert loss.grad_fn._saved_total_weight.item() == 2.0
    logp = torch.log_softmax(torch.randn(3, 5), -1).requires_grad_()
    assert F.nll_loss(logp, torch.tensor([1, -100, 2])).grad_fn._saved_total_weight.item() == 2.0
    weight = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    assert F.nll_loss(logp, torch.tensor([1, 3, 0]), weight).grad_fn._saved_total_weight.item() == 2 + 4 + 1


def test_saved_int64_values_come_back_unsigned_but_saved_scalars_keep_their_sign():
    a = torch.randn(3, requires_grad=True)
    assert torch.sub(a, torch.randn(3), alpha=-2).grad_fn._saved_alpha == -2
    assert F.log_softmax(a, -1).grad_fn._saved_dim == 2**64 - 1


def test_backward_frees_saved_tensors_only_and_create_graph_keeps_them():
    z = torch.randn(2, 5, requires_grad=True)
    logp = F.log_softmax(z, -1)
    node = logp.grad_fn
    logp.sum().backward()
    assert node._saved_dim == 2**64 - 1  # a saved int is still readable
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        _ = node._saved_result
    logp = F.log_softmax(z, -1)
    logp.sum().backward(create_graph=True)  # implies retain_graph=True
    assert logp.grad_fn._saved_result.shape == (2, 5)


def test_gradcheck_can_pass_in_float32_on_a_small_input():
    """Failure in float32 depends on the function and its input; the MLP's float32 failure is in test_lab01."""
    assert inspect.signature(torch.autograd.gradcheck).parameters["eps"].default == 1e-6
    s = (torch.randn(5, generator=torch.Generator().manual_seed(0)) * 1e-3).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gradcheck warns about float32 inputs
        assert torch.autograd.gradcheck(torch.sin, (s,))


def test_linear_records_linear_backward_where_a_backend_has_its_own_linear_kernel():
    """Dense CPU (and CUDA: no kernel of its own) decomposes to addmm; a backend kernel (nested, MPS) gets the
    Autograd[alias] kernel, which records LinearBackward0."""
    x, W, b = running_example()
    assert type(F.linear(x, W, b).grad_fn).__name__ == "AddmmBackward0"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nested tensors are a prototype
        nested = torch.nested.nested_tensor([torch.randn(2, 64), torch.randn(3, 64)], requires_grad=True)
    assert type(F.linear(nested, W).grad_fn).__name__ == "LinearBackward0"
    assert "\nAutograd[alias]: registered at" in torch._C._dispatch_dump("aten::linear")
    table = dispatch_table("aten::linear")
    for key in ("AutogradCPU", "AutogradCUDA"):
        assert table[key].kind == "math kernel" and "CompositeImplicitAutograd" in table[key].path
    assert table["AutogradNestedTensor"].kind == "autograd kernel"


def test_the_native_functions_lines_the_gpu_section_links():
    """linear's dispatch entries at v2.13.0 (the wheel packages that file): no CUDA kernel, an MPS one."""
    assert torch.__version__.startswith("2.13.0")
    lines = (PACKAGED / "ATen/native/native_functions.yaml").read_text().splitlines()[3286:3292]  # L3287-L3292
    assert lines[0] == "- func: linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"
    assert lines[-1].strip() == "MPS: _mps_linear"
    keys = {key.strip() for line in lines[3:] for key in line.split(":")[0].split(",")}
    assert keys == {"CompositeImplicitAutograd", "NestedTensorCPU", "NestedTensorHPU", "NestedTensorCUDA", "MPS"}
    anchor = "blob/v2.13.0/aten/src/ATen/native/native_functions.yaml#L3287-L3292"
    for lang in ("en", "es"):
        assert anchor in (PAGES / lang / PAGE).read_text(), lang


@functools.cache
def learner_cells(language):
    """The cells of this lab's learner notebook in `language`, with the solutions filled in."""
    from tools import notebooks

    return notebooks.cells(PAGE, language, learner=True, filled=True)


def notebook_verdict(language, block, monkeypatch, capsys, tmp_path, reword=(), answer=None):
    """Run the learner's notebook (`language`, the solutions filled in) up to `block`'s check, with each
    `(old, new)` of `reword` applied to the answer of `answer` (`block` by default); return what that check
    printed last."""
    from hood.capture import common

    monkeypatch.setattr(common, "PAGE_LANGUAGE", language)
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for cell in learner_cells(language):
        source = cell.source
        if cell.role == "answer" and cell.block == (answer or block):
            for old, new in reword:
                assert old in source, old
                source = source.replace(old, new)
        if cell.kind == "code":
            capsys.readouterr()
            exec(source, namespace)  # noqa: S102
        if cell.role == "check" and cell.block == block:
            return next(line for line in capsys.readouterr().out.splitlines() if line.startswith(f"{block}: "))
    raise AssertionError(f"no check for {block}")


def task(language, step):
    """The task of `step` on the page in `language`: its prose before the solution box."""
    text = (PAGES / language / PAGE).read_text()
    section = text[text.index(f"{{#{step}}}"):]
    return section[:section.index('??? success')]


SUMLESS = '    print(words(en="without'  # linear_by_hand's line about db without the sum
OTHER_PRINTS = {  # block: (its step, another printout of a right answer, what the task now states: en, es)
    "walk-mlp": ("step-1", (("print(render_graph(graph))", "print(*(node.label for node in graph.nodes))"),),
                 "`render_graph(autograd_graph(loss, names))`", "`render_graph(autograd_graph(loss, names))`"),
    "linear-by-hand": ("step-2", ((SUMLESS, "    return hand, None\n" + SUMLESS),),
                       "the shape `db` would have without the sum over the batch",
                       "la forma que\ntendría `db` sin la suma sobre el lote"),
    "mlp-by-hand": ("step-3", (('print(str(dtype).removeprefix("torch.") + ":")', "pass"),),
                    "dtype's name (`float32:`), then checks the leaves in the order `x`, `W1`, `b1`, `W2`, `b2`",
                    "nombre del dtype (`float32:`) y luego comprueba las\n"
                    "hojas en el orden `x`, `W1`, `b1`, `W2`, `b2`"),
    "gradcheck": ("step-4", (("(float64, fast mode):", "(float64):"), ("(float64, modo rápido):", "(float64):")),
                  "one line per gradcheck, autograd's MLP first", "una línea por gradcheck, primero la del MLP"),
    "wrong-formula": ("step-5", ((", tol=1e-3)", ")"),), "`tol=1e-3`", "`tol=1e-3`"),
}


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize("block", list(OTHER_PRINTS))
def test_the_notebook_checks_compare_printouts_the_tasks_now_state(block, language, monkeypatch, capsys, tmp_path):
    """Each check compares the printout line by line: the solution is right, the same answer printed otherwise
    (or, in step 5, checked with check's default tolerance) is wrong; each task states what to print."""
    step, other, *states = OTHER_PRINTS[block]
    right, wrong = {"en": ("right", "wrong:"), "es": ("correcto", "incorrecto:")}[language]
    assert notebook_verdict(language, block, monkeypatch, capsys, tmp_path) == f"{block}: {right}"
    assert notebook_verdict(language, block, monkeypatch, capsys, tmp_path, other).startswith(f"{block}: {wrong}")
    assert states[language == "es"] in task(language, step), (block, language)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_saved_ints_check_refuses_an_as_signed_that_breaks_non_negative_values(language, monkeypatch, capsys,
                                                                                    tmp_path):
    """`value - 2**64` turns -1 and -100 back too; the check also converts the saved reduction (1), and the task
    says a non-negative value stays as it is."""
    stub = "def as_signed(value: int) -> int:"
    always = ((stub, stub + "\n    return value - 2**64"),)
    right, wrong = {"en": ("right", "wrong:"), "es": ("correcto", "incorrecto:")}[language]
    assert notebook_verdict(language, "saved-ints", monkeypatch, capsys, tmp_path) == f"saved-ints: {right}"
    assert notebook_verdict(language, "saved-ints", monkeypatch, capsys, tmp_path, always).startswith(
        f"saved-ints: {wrong}")
    says = {"en": "leaves a non-negative value as it is", "es": "deja igual un valor no negativo"}[language]
    assert says in task(language, "step-2")


@pytest.mark.parametrize("language", ["en", "es"])
def test_linear_by_hand_does_not_test_relu_backward_step_3_does(language, monkeypatch, capsys, tmp_path):
    """A relu_backward that passes every gradient still gets step 2's linear check right (linear has no relu);
    step 3's check catches it. The task names the two formulas linear tests."""
    always = (("    return grad * (result > 0)", "    return grad"),)
    right, wrong = {"en": ("right", "wrong:"), "es": ("correcto", "incorrecto:")}[language]
    assert notebook_verdict(language, "linear-by-hand", monkeypatch, capsys, tmp_path, always,
                            answer="formulas") == f"linear-by-hand: {right}"
    assert notebook_verdict(language, "mlp-by-hand", monkeypatch, capsys, tmp_path, always,
                            answer="formulas").startswith(f"mlp-by-hand: {wrong}")
    says = {"en": "Test `addmm_backward` and `t_backward` on `linear` alone (`relu_backward` waits for step 3)",
            "es": "`addmm_backward` y `t_backward` con `linear` sola (`relu_backward` espera al paso 3)"}[language]
    assert says in " ".join(task(language, "step-2").split())


def test_the_hand_dw_rounds_differently_even_with_autograds_log_softmax_kernel():
    """float64: with `_log_softmax_backward_data` swapped into the hand formulas, W1 and W2 still differ in the
    last bits, from the mm order: autograd's G.t() @ h, the hand (h.t() @ G).t(). The page names both causes."""
    from snippets.lab01.by_hand import backward_by_hand, hand_formulas
    from snippets.lab01.check import autograd_gradients

    def kernel(grad, result, dim=-1):
        return torch._log_softmax_backward_data(grad, result, dim, result.dtype)

    (_, _, _, W2, _, _), _, loss = mlp(torch.float64)
    hand = backward_by_hand(loss, hand_formulas(log_softmax=kernel))
    real = autograd_gradients(torch.float64)
    assert not torch.equal(hand[W2], real["W2"]) and (hand[W2] - real["W2"]).abs().max() < 1e-12
    h, G = loss.grad_fn.next_functions[0][0].next_functions[0][0]._saved_mat1, real["z2"]
    assert torch.equal(G.t() @ h, real["W2"]) and not torch.equal((h.t() @ G).t(), real["W2"])
    says = {"en": "and the hand `dW` multiplies in another order (step 2)",
            "es": "y el `dW` a mano multiplica en otro orden (paso 2)"}
    for lang, sentence in says.items():
        assert sentence in " ".join((PAGES / lang / PAGE).read_text().split()), lang


def test_the_reports_graph_sentence_says_which_lines_are_nodes():
    """The walk prints each node's saved values on indented lines below it: only the 12 unindented lines are
    nodes, and the report's sentence says so."""
    from hood.capture.common import localize
    from snippets.lab01.run import lab01_report

    report = localize(lab01_report()["REPORT.md"], "en")
    walk = report[report.index("## 1."):report.index("## 2.")].split("```")[1].splitlines()[1:]
    nodes = [line for line in walk if not line.startswith(" ")]
    assert len(nodes) == 12 and len(walk) > 12
    assert all(line.startswith("    saved ") for line in walk if line.startswith(" "))
    assert "Each unindented line is a node, and `->` lists its `next_functions`; the indented lines" in report


def test_a_saved_negative_int_comes_back_as_2_to_the_64_plus_it_where_c_long_is_64_bits():
    """'on Linux, where this site was built, a negative value `v` comes back as `2**64 + v`': the getter builds the
    integer from a C `unsigned long`, 64 bits here (32 on Windows, which this site did not run)."""
    import ctypes

    assert ctypes.sizeof(ctypes.c_ulong) == 8
    logp = torch.log_softmax(torch.randn(2, 3, requires_grad=True), -1)
    assert logp.grad_fn._saved_dim == 2**64 - 1
    for language, words in (("en", "so on Linux, where this site was built, a negative value `v` comes back"),
                            ("es", "así que en Linux, donde se construyó este sitio, un valor negativo `v` vuelve")):
        text = " ".join((PAGES / language / PAGE).read_text(encoding="utf-8").split())
        assert words in text, language
