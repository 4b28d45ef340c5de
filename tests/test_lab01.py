"""What lab 01 says, asserted on the functions its blocks call, and its deliverables."""

import json
import warnings
import xml.etree.ElementTree as ET

import torch
import torch.nn.functional as F

from hood.capture.common import localize
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.custom_ops.record_ops import RecordOps
from snippets.lab01.by_hand import backward_by_hand
from snippets.lab01.check import autograd_gradients, check
from snippets.lab01.check_formulas import check_head_formulas
from snippets.lab01.formulas import as_signed, log_softmax_backward, log_softmax_backward_diagonal, nll_loss_backward
from snippets.lab01.graph import saved_ints, walk_mlp
from snippets.lab01.hand_function import gradcheck_hand, gradchecks
from snippets.lab01.linear_by_hand import linear_by_hand
from snippets.lab01.mistake import catch_the_mistake
from snippets.lab01.mlp_by_hand import mlp_by_hand
from snippets.lab01.run import main
from snippets.running_example import running_example



def test_the_mlp_graph_has_twelve_nodes_of_six_classes():
    graph = walk_mlp()
    assert len(graph.nodes) == 12
    assert {n.name for n in graph.nodes} == {
        "NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "TBackward0", "ReluBackward0", "AccumulateGrad"}
    assert sum(n.name == "AccumulateGrad" for n in graph.nodes) == 5


def test_check_accepts_autograds_own_gradients_and_names_a_miss_or_a_wrong_shape(capsys):
    """What the usage block prints: a wrong value and a wrong shape, each told apart."""
    grads = autograd_gradients()
    assert set(grads) == {"x", "W1", "b1", "W2", "b2", "h", "logp", "z1", "z2"}
    capsys.readouterr()
    assert all(check(name, grad) for name, grad in grads.items())
    assert check("b2", torch.zeros(600)) is False
    assert check("b2", torch.zeros(2, 600)) is False
    printed = capsys.readouterr().out
    lines = localize(printed, "en").splitlines()
    assert lines[-2] == "b2: max |mine - autograd| > 1e-06: wrong"
    assert lines[-1] == "b2: wrong shape (2, 600), autograd's is (600,)"
    assert localize(printed, "es").splitlines()[-2:] == [
        "b2: diferencia máxima con autograd > 1e-06: incorrecto",
        "b2: forma equivocada (2, 600), la de autograd es (600,)"]


def test_the_node_hooks_catch_the_gradients_of_z1_and_z2():
    """z2's gradient is (softmax - onehot) / N; z1's is h's gradient where h > 0."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, _ = mlp_forward(x, W1, b1, W2, b2, target)
    grads = autograd_gradients()
    expected_z2 = (logp.exp() - F.one_hot(target, 600)) / 2
    assert torch.allclose(grads["z2"], expected_z2.detach(), atol=1e-7)
    assert torch.equal(grads["z1"], grads["h"] * (h > 0))


def test_the_head_formulas_fed_from_the_saved_values_are_right(capsys):
    assert check_head_formulas() == (True, True)
    assert localize(capsys.readouterr().out, "en").splitlines() == [
        "logp: max |mine - autograd| < 1e-06: right", "z2: max |mine - autograd| < 1e-06: right"]


def test_linear_by_hand_agrees_within_1e_6(capsys):
    hand, auto = linear_by_hand()
    out = localize(capsys.readouterr().out, "en")
    for name in ("x", "W", "b"):
        assert torch.allclose(hand[name], auto[name], rtol=0, atol=1e-7), name
        assert f"d{name}: shape {tuple(auto[name].shape)}, max |hand - autograd| < 1e-06" in out
    assert "without the sum over the batch, db would have shape (2, 600) but b has (600,)" in out
    assert "after backward, node._saved_mat1 -> RuntimeError: Trying to backward through the graph a second time" in out


def test_saved_ints_come_back_unsigned(capsys):
    dim, ignore = saved_ints()
    assert dim == 2**64 - 1 and ignore == 2**64 - 100
    assert as_signed(dim) == -1 and as_signed(ignore) == -100 and as_signed(5) == 5
    out = localize(capsys.readouterr().out, "en")
    assert "logp.sum(dim) with the raw value: ValueError" in out
    assert "logp.sum(as_signed(dim)).shape: (2,)" in out  # "the signed one sums each row"


def test_mlp_by_hand_agrees_with_autograd(capsys):
    """Step 3 checks each leaf with `check`, in the dtype and at the tolerance the task asks for."""
    assert set(mlp_by_hand().values()) == {True}
    assert set(mlp_by_hand(torch.float64).values()) == {True}
    out = localize(capsys.readouterr().out, "en").splitlines()
    assert out[0] == "float32:" and out[1] == "x: max |mine - autograd| < 1e-06: right"
    assert out[6] == "float64:" and out[7] == "x: max |mine - autograd| < 1e-12: right"


def test_check_takes_the_dtype_and_the_tolerance(capsys):
    """float64 gradients pass at 1e-12 only against autograd's float64 ones; a float32 answer is refused there."""
    x, _, _ = running_example(dtype=torch.float64)
    W1, b1, W2, b2, target = mlp_params(dtype=torch.float64)
    _, _, loss = mlp_forward(x, W1, b1, W2, b2, target)
    hand = backward_by_hand(loss)
    assert check("W2", hand[W2], torch.float64, 1e-12) is True
    assert check("W2", hand[W2].float(), torch.float64, 1e-12) is False
    printed = capsys.readouterr().out
    assert localize(printed, "en").splitlines()[-1] == "W2: wrong dtype torch.float32, the check runs in torch.float64"
    assert localize(printed, "es").splitlines()[-1] == (
        "W2: dtype equivocado torch.float32, la comprobación se hace en torch.float64")
    # the hand and autograd float32 gradients are not all equal bit for bit ("need not hold")
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    _, _, loss = mlp_forward(x, W1, b1, W2, b2, target)
    hand = backward_by_hand(loss)
    real = autograd_gradients()
    assert any(not torch.equal(hand[leaf], real[name]) for name, leaf in (("x", x), ("W1", W1), ("W2", W2)))


def test_autograd_log_softmax_backward_is_one_kernel():
    x = torch.randn(2, 5, requires_grad=True)
    logp = F.log_softmax(x, dim=-1)
    with RecordOps() as rec:
        logp.backward(torch.ones_like(logp))
    assert "aten._log_softmax_backward_data.default" in rec.ops
    assert not {"aten.exp.default", "aten.sub.Tensor"} & set(rec.ops)


def test_gradchecks_pass_in_float64_and_float32_is_too_noisy():
    assert gradchecks() == (True, True)
    x, _, _ = running_example()
    W1, b1, W2, b2, target = (p.detach() if p.dtype.is_floating_point else p for p in mlp_params())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gradcheck warns about float32 inputs
        ok = torch.autograd.gradcheck(lambda x: mlp_forward(x, W1, b1, W2, b2, target)[2], (x,),
                                      fast_mode=True, raise_exception=False)
    assert ok is False  # correct formulas (autograd's), float32: fails


def test_input_entries_and_slow_mode_passes():
    x, _, _ = running_example()
    entries = x.numel() + sum(p.numel() for p in mlp_params()[:4])
    assert entries == 85_848 and 2 * entries == 171_696


def test_the_mistake_is_caught(capsys):
    verdicts = catch_the_mistake()
    out = localize(capsys.readouterr().out, "en")
    assert set(verdicts.values()) == {False}
    assert out.count("max |mine - autograd| > 1e-03: wrong") == 5  # "off by more than 1e-3"
    assert "gradcheck with respect to x returns: False" in out
    assert "GradcheckError: Jacobian mismatch for output 0 with respect to input 0," in out
    assert gradcheck_hand(log_softmax_backward_diagonal, only_x=True) is False


def test_diagonal_formula_zeroes_non_target_logits_and_correct_one_gives_s_over_n():
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    _, logp, _ = mlp_forward(x, W1, b1, W2, b2, target)
    logp = logp.detach()
    g = nll_loss_backward(torch.tensor(1.0), logp, target, len(target))
    wrong, right = log_softmax_backward_diagonal(g, logp), log_softmax_backward(g, logp)
    off_target = torch.ones_like(logp, dtype=torch.bool)
    off_target[torch.arange(2), target] = False
    assert torch.all(wrong[off_target] == 0)
    assert torch.allclose(right[off_target], (logp.exp() / 2)[off_target])


def test_cross_entropy_records_the_same_two_nodes_and_the_combined_formula_holds():
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    z2 = F.linear(F.relu(F.linear(x, W1, b1)), W2, b2)
    z2.retain_grad()
    loss = F.cross_entropy(z2, target)
    assert type(loss.grad_fn).__name__ == "NllLossBackward0"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "LogSoftmaxBackward0"
    loss.backward()
    expected = (F.softmax(z2, -1) - F.one_hot(target, 600)) / 2
    assert torch.allclose(z2.grad, expected.detach(), atol=1e-7)


def test_backward_by_hand_needs_only_the_graph():
    """Nothing in the walker knows the MLP: on linear's graph it gives linear's gradients."""
    x, W, b = running_example()
    y = F.linear(x, W, b)
    hand = backward_by_hand(y)  # seeds the output's gradient with ones
    y.backward(torch.ones_like(y))
    for leaf in (x, W, b):
        assert torch.allclose(hand[leaf], leaf.grad)


REPORT_EN_ONLY = ("as written for this lab", "Each unindented line is a node", "Convert before use.")
"""English sentences of the report (its code stays English in both languages)."""

REPORT_EN = ("# Lab 01 · Autograd by hand: report", "Objective: walk the real autograd graph",
             "Every block below was printed by torch", "## Formulas",
             "The five backward formulas, as written for this lab:",
             "def relu_backward(grad, result):", "## 1. The graph", "Each unindented line is a node",
             "## 2. Two saved ints", "Convert before use.", "## 4. The MLP by hand, float32 and float64",
             "random projections of the Jacobian instead of each of its entries.",
             "## 6. A subtle mistake", "gives well-shaped but wrong gradients")
"""Fixed headings and sentences of the English REPORT.md."""

REPORT_ES = ("# Lab 01 · Autograd a mano: informe", "Objetivo: recorrer el grafo real de autograd",
             "Todos los bloques de abajo los imprimió torch", "## Fórmulas",
             "Las cinco fórmulas de backward, tal como se escribieron en este lab:",
             "def relu_backward(grad, result):", "## 1. El grafo", "Cada línea sin sangría es un nodo",
             "## 2. Dos enteros guardados", "Conviértelos antes de usarlos.", "## 4. El MLP a mano, float32 y float64",
             "proyecciones aleatorias del jacobiano en lugar de cada una de sus entradas.",
             "## 6. Un error sutil", "da gradientes con la forma correcta pero equivocados")
"""The same headings and sentences in the Spanish REPORT.md."""


def test_deliverables(tmp_path, capsys):
    written = main(["--out", str(tmp_path)])
    assert [p.name for p in written] == ["REPORT.md", "mlp-graph.svg", "manifest.json"]
    report = (tmp_path / "REPORT.md").read_text()
    for title in ("## Formulas", "## 1. The graph", "## 2. Two saved ints", "## 3. linear by hand",
                  "## 4. The MLP by hand, float32 and float64", "## 5. gradcheck", "## 6. A subtle mistake"):
        assert title in report
    assert all(text in report for text in REPORT_EN) and not any(text in report for text in REPORT_ES[:4])
    assert "\u27e6" not in report  # every words() marker was resolved
    assert "dz = grad - softmax(z) * grad.sum(dim)" in report  # from log_softmax_backward's docstring
    assert "gradcheck with respect to x returns: False" in report and "wrong gradients; both checks catch it." in report
    assert "saved dim = 18446744073709551615" in report
    svg = (tmp_path / "mlp-graph.svg").read_text()
    root = ET.fromstring(svg)  # a drawing of its own, not the page's figure around it
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and "<figure" not in svg and "hood-figure-data" not in svg
    assert root.find("{http://www.w3.org/2000/svg}style") is not None  # its colours, outside the site
    assert "Autograd graph of the MLP&#x27;s NLL loss" in svg
    meta = json.loads((tmp_path / "manifest.json").read_text())
    assert meta["lab"] == "lab01-autograd-by-hand" and meta["seed"] == 42 and meta["torch"].startswith("2.13.0")


def test_deliverables_in_spanish(tmp_path, capsys):
    written = main(["--out", str(tmp_path), "--lang", "es"])
    assert [p.name for p in written] == ["REPORT.md", "mlp-graph.svg", "manifest.json"]
    report = (tmp_path / "REPORT.md").read_text()
    missing = [text for text in REPORT_ES if text not in report]
    english = [text for text in REPORT_EN_ONLY if text in report]
    assert not missing and not english, (missing, english)
    assert "\u27e6" not in report
    # formulas and signatures stay as they are; the outputs' own words are in Spanish
    assert "dz = grad - softmax(z) * grad.sum(dim)" in report
    assert "def addmm_backward(grad, mat1, mat2, alpha=1, beta=1):" in report
    assert "gradcheck respecto de x devuelve: False" in report
    assert "guarda dim = 18446744073709551615" in report
    assert "x: diferencia máxima con autograd < 1e-06: correcto" in report
    svg = (tmp_path / "mlp-graph.svg").read_text()
    ET.fromstring(svg)
    assert "Grafo de autograd de la pérdida NLL del MLP" in svg and "comparte memoria con" in svg
    assert "Autograd graph of" not in svg and "shares memory" not in svg


def test_the_nll_node_saves_the_batch_size_as_total_weight():
    """The page: `NllLossBackward0` saves `N` as `total_weight` (N = 2 rows, mean reduction)."""
    x, _, _ = running_example()
    _, _, loss = mlp_forward(x, *mlp_params())
    assert loss.grad_fn._saved_total_weight.item() == x.shape[0] == 2


def test_the_pages_are_completable_from_their_notebooks():
    """No page sends the reader to a module or a clone; a last block writes the deliverables; step 1 needs nothing of
    step 2."""
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    for language in ("en", "es"):
        for page in ("01-autograd-by-hand.md", "02-custom-op.md"):
            text = (root / "docs" / language / "labs" / page).read_text()
            assert "python -m snippets" not in text and "clone" not in text
            assert 'id="deliverables"' in text  # what its answers are: tests/test_downloads.py checks the setup
            assert ("**Time** about " if language == "en" else "**Tiempo** unos ") in text
    walk = (root / "snippets" / "lab01" / "graph.py").read_text()
    walk = walk[walk.index("[start:walk]"):walk.index("[end:walk]")]
    assert "as_signed" not in walk


def test_the_reports_mistake_sentence_says_which_checks_caught_it():
    """Section 6 reads what the two checks found, in each of the four cases (the solutions: both; see
    `test_deliverables`)."""
    from snippets.lab01.run import mistake_caught

    said = {(a, b): localize(mistake_caught(a, b), "en") for a in (True, False) for b in (True, False)}
    assert said[True, True].endswith("both checks catch it.")
    assert said[True, False].endswith("the comparison with autograd catches it; gradcheck, in this run, does not.")
    assert said[False, True].endswith("gradcheck catches it; the comparison with autograd, in this run, does not.")
    assert "neither check caught it" in said[False, False]
    assert len({localize(mistake_caught(a, b), "es") for a, b in said}) == 4
    assert all(s.startswith("Keeping only the diagonal of log-softmax's Jacobian") for s in said.values())


def learner_check(language, block, answer):
    """Run the learner notebook's checks cell, `answer`, then `block`'s check cell; return what the check printed."""
    import contextlib
    import io

    from tools.notebooks import cells

    notebook = cells("labs/01-autograd-by-hand.md", language, learner=True)
    scope = {"PAGE_LANGUAGE": language, "torch": torch, "__name__": "__main__"}
    exec(next(c.source for c in notebook if c.role == "checks"), scope)  # noqa: S102
    exec(answer, scope)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(next(c.source for c in notebook if c.role == "check" and c.block == block), scope)  # noqa: S102
    return out.getvalue().splitlines()


GRADCHECKS = '''
def gradchecks():
    print("gradcheck, autograd's formulas (float64, fast mode):", True)
    print("gradcheck, hand formulas (float64, fast mode):", {hand})
    return True, {hand}
'''
LINEAR = '''
def linear_by_hand():
    for name, shape in (("dx", (2, 64)), ("dW", (600, 64)), ("db", (600,))):
        print(f"{{name}}: shape {{shape}}, max |hand - autograd| < 1e-06")
    print("without the sum over the batch, db would have shape (2, 600) but b has (600,)")
    print("after backward, node._saved_mat1 -> RuntimeError: Trying to backward through the graph a second time "
          "(or directly access saved tensors after they have already been freed).{rest}")
    return None, None
'''


def test_the_checks_take_a_label_without_its_alignment_and_the_linear_task_says_which_sentence_it_prints():
    """The gradcheck lines' labels are aligned with spaces in the solution: a label with one space checks right, a
    wrong result does not. `linear_by_hand` prints the first sentence of the error (the message goes on with a
    hint): the task says so, since the whole message is refused."""
    assert learner_check("en", "gradcheck", GRADCHECKS.format(hand=True))[-1] == "gradcheck: right"
    assert any(line.startswith("gradcheck: wrong") for line in learner_check("en", "gradcheck",
                                                                             GRADCHECKS.format(hand=False)))
    assert learner_check("en", "linear-by-hand", LINEAR.format(rest=""))[-1] == "linear-by-hand: right"
    full = LINEAR.format(rest=" Saved intermediate values of the graph are freed when you call .backward().")
    assert any(line.startswith("linear-by-hand: wrong") for line in learner_check("en", "linear-by-hand", full))
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "docs"
    en = " ".join((root / "en" / "labs" / "01-autograd-by-hand.md").read_text().split())
    es = " ".join((root / "es" / "labs" / "01-autograd-by-hand.md").read_text().split())
    assert "raises after `backward()`: the error's type and the first sentence of its message" in en
    assert "después de `backward()`: el tipo del error y la primera frase de su mensaje" in es


def test_the_report_reads_the_mistake_from_what_check_printed_not_from_a_return_value(monkeypatch):
    """The task asks `catch_the_mistake` for no return value: one that returns None still gets its report."""
    from snippets.lab01 import run

    def returns_nothing():
        catch_the_mistake()

    monkeypatch.setattr(run, "catch_the_mistake", returns_nothing)
    report = localize(run.lab01_report()["REPORT.md"], "en")
    assert "gives well-shaped but wrong gradients; both checks catch it." in report
