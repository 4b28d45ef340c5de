"""Lab 01's deliverables: REPORT.md, mlp-graph.svg and manifest.json, written from the learner's own functions.

The `body` section is the lab's last block (after `hood/labkit.py:body`): it reruns every step with the functions
the earlier blocks defined. `python -m snippets.lab01.run --out DIR [--lang es]` does the same from the project's
solutions (the tests use it).
"""

import inspect
import sys
from pathlib import Path

from hood.capture.autograd import autograd_graph, graph_svg
from hood.capture.common import words
from hood.capture.figure import light
from hood.labkit import manifest, objective, parse_args, printed_by, section, write_deliverables
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.lab01.by_hand import backward_by_hand, hand_formulas, topological
from snippets.lab01.check import WRONG
from snippets.lab01.formulas import (
    addmm_backward, as_signed, log_softmax_backward, log_softmax_backward_diagonal, nll_loss_backward,
    relu_backward, t_backward,
)
from snippets.lab01.graph import saved_ints, walk_mlp
from snippets.lab01.hand_function import HandMLPLoss, gradcheck_hand, gradchecks
from snippets.lab01.linear_by_hand import linear_by_hand
from snippets.lab01.mistake import catch_the_mistake
from snippets.lab01.mlp_by_hand import mlp_by_hand
from snippets.running_example import running_example

# --8<-- [start:body]
import contextlib
import io

import torch


def captured(fn, *args):
    """What `fn(*args)` prints."""
    return printed_and_returned(fn, *args)[0]


def printed_and_returned(fn, *args):
    """What `fn(*args)` prints, and what it returns."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return out.getvalue(), result


def mistake_caught(by_comparison: bool, by_gradcheck: bool) -> str:
    """Section 6's reading, from what the two checks found: the comparison with autograd (a leaf `wrong`) and
    gradcheck (it returned False)."""
    said = {(True, True): ("both checks catch it.", "las dos comprobaciones lo cazan."),
            (True, False): ("the comparison with autograd catches it; gradcheck, in this run, does not.",
                            "la comparación con autograd lo caza; gradcheck, en esta ejecución, no."),
            (False, True): ("gradcheck catches it; the comparison with autograd, in this run, does not.",
                            "gradcheck lo caza; la comparación con autograd, en esta ejecución, no."),
            (False, False): ("neither check caught it in this run: read your `catch_the_mistake` again.",
                             "ninguna de las dos comprobaciones lo cazó en esta ejecución: revisa tu "
                             "`catch_the_mistake`.")}
    en, es = said[by_comparison, by_gradcheck]
    return words(en="Keeping only the diagonal of log-softmax's Jacobian, `grad * (1 - softmax)`, gives well-shaped "
                    "but wrong gradients; " + en,
                 es="Quedarse solo con la diagonal del jacobiano de log-softmax, `grad * (1 - softmax)`, da "
                    "gradientes con la forma correcta pero equivocados; " + es)


def formulas_source():
    """The source of your five formulas (their signature and docstring when the source is not at hand)."""
    parts = []
    for fn in (nll_loss_backward, log_softmax_backward, addmm_backward, t_backward, relu_backward):
        try:
            parts.append(inspect.getsource(fn).rstrip())
        except (OSError, TypeError):
            parts.append(f"def {fn.__name__}{inspect.signature(fn)}:\n    \"\"\"{inspect.getdoc(fn)}\"\"\"")
    return "```python\n" + "\n\n\n".join(parts) + "\n```\n"


def lab01_report():
    """Rerun every step with your functions; REPORT.md and the MLP's graph as SVG (file name -> text)."""
    walk, ints, linear = captured(walk_mlp), captured(saved_ints), captured(linear_by_hand)
    mlp = captured(mlp_by_hand) + captured(mlp_by_hand, torch.float64)
    checks = captured(gradchecks)
    mistake = captured(catch_the_mistake)  # read from what `check` printed: the task asks for no return value
    caught = mistake_caught(any(line.endswith(" " + WRONG) for line in mistake.splitlines()),
                            not gradcheck_hand(log_softmax_backward_diagonal, only_x=True))
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    graph = autograd_graph(loss, {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "logp": logp,
                                  "target": target})
    svg = light(graph_svg(graph, words(en="Autograd graph of the MLP's NLL loss",
                                       es="Grafo de autograd de la pérdida NLL del MLP")))
    report = "\n".join([
        words(en="# Lab 01 · Autograd by hand: report\n", es="# Lab 01 · Autograd a mano: informe\n"),
        objective(en="walk the real autograd graph of `linear(x, W, b)` and of a two-layer MLP "
                     "(64 -> 128 -> 600, log-softmax, NLL loss), write each node's backward formula, and check it "
                     "against autograd and with `torch.autograd.gradcheck`.",
                  es="recorrer el grafo real de autograd de `linear(x, W, b)` y de un MLP de dos capas "
                     "(64 -> 128 -> 600, log-softmax, pérdida NLL), escribir la fórmula de backward de cada nodo y "
                     "comprobarla frente a autograd y con `torch.autograd.gradcheck`.")
        + " " + printed_by(torch.__version__) + "\n",
        words(en="## Formulas\n\nThe five backward formulas, as written for this lab:\n",
              es="## Fórmulas\n\nLas cinco fórmulas de backward, tal como se escribieron en este lab:\n"),
        formulas_source(),
        section(words(en="1. The graph", es="1. El grafo"), walk, words(
            en="Each unindented line is a node, and `->` lists its `next_functions`; the indented lines below it "
               "are what it saved. The graph is drawn in `mlp-graph.svg`.",
            es="Cada línea sin sangría es un nodo, y `->` lista sus `next_functions`; las líneas con sangría que "
               "le siguen son lo que guardó. El grafo está dibujado en `mlp-graph.svg`.")),
        section(words(en="2. Two saved ints", es="2. Dos enteros guardados"), ints, words(
            en="Python receives `_saved_dim` and `_saved_ignore_index` as unsigned 64-bit integers: -1 and -100 "
               "come back as 2**64 - 1 and 2**64 - 100. Convert before use.",
            es="Python recibe `_saved_dim` y `_saved_ignore_index` como enteros de 64 bits sin signo: -1 y -100 "
               "vuelven como 2**64 - 1 y 2**64 - 100. Conviértelos antes de usarlos.")),
        section(words(en="3. linear by hand", es="3. linear a mano"), linear, words(
            en="The three gradients of `linear`, from `AddmmBackward0`'s saved tensors, against autograd's. The "
               "saved tensors must be read before `backward()` frees them.",
            es="Los tres gradientes de `linear`, calculados con los tensores que guardó `AddmmBackward0`, frente "
               "a los de autograd. Los tensores guardados hay que leerlos antes de que `backward()` los libere.")),
        section(words(en="4. The MLP by hand, float32 and float64", es="4. El MLP a mano, float32 y float64"), mlp,
                words(en="Each leaf's gradient from the graph and the hand formulas alone, checked by `check` "
                         "against autograd's in the same dtype.",
                      es="El gradiente de cada hoja, calculado solo con el grafo y las fórmulas a mano, "
                         "comprobado por `check` frente al de autograd en el mismo dtype.")),
        section("5. gradcheck", checks, words(
            en="`gradcheck` compares the backward with finite differences in float64; fast mode checks random "
               "projections of the Jacobian instead of each of its entries.",
            es="`gradcheck` compara el backward con diferencias finitas en float64; el modo rápido comprueba "
               "proyecciones aleatorias del jacobiano en lugar de cada una de sus entradas.")),
        section(words(en="6. A subtle mistake", es="6. Un error sutil"), mistake, caught),
    ])
    return {"REPORT.md": report, "mlp-graph.svg": svg + "\n"}


def lab01_code():
    """Every function and class you wrote for the lab: the manifest hashes their source."""
    return (walk_mlp, addmm_backward, t_backward, relu_backward, log_softmax_backward, nll_loss_backward,
            linear_by_hand, as_signed, hand_formulas, topological, backward_by_hand, mlp_by_hand, HandMLPLoss,
            gradcheck_hand, gradchecks, log_softmax_backward_diagonal, catch_the_mistake)
# --8<-- [end:body]


def main(argv=None) -> list[Path]:
    """Write the deliverables into `--out DIR` in `--lang` and print their paths."""
    args = parse_args("Lab 01: autograd by hand", argv)
    meta = manifest(lab="lab01-autograd-by-hand", seed=42, functions=lab01_code())
    written = write_deliverables(args.out, lab01_report(), meta, args.lang)
    for path in written:
        print(path)
    return written


if __name__ == "__main__":
    sys.exit(main() and 0)
