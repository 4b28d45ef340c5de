"""Lab 01's deliverables: `python -m snippets.lab01.run --out DIR` writes REPORT.md, mlp-graph.svg, manifest.json.

REPORT.md and the graph's labels are written in the language `--lang` names; outputs and formulas stay as printed.
"""

import inspect
from pathlib import Path

import torch

from hood.capture.common import words
from hood.capture.figure import standalone
from hood.labkit import code_hash, manifest, objective, printed_by, run_lab, section
from hood.stdout import printed
from snippets.autograd.diagrams import draw_mlp_graph
from snippets.lab01 import formulas
from snippets.lab01.graph import saved_ints, walk_mlp
from snippets.lab01.hand_function import gradchecks
from snippets.lab01.linear_by_hand import linear_by_hand
from snippets.lab01.mistake import catch_the_mistake
from snippets.lab01.mlp_by_hand import mlp_by_hand

SEED = 42
"""The running example's seed (the MLP's weights use 7)."""

NODES = {
    "NllLossBackward0": (formulas.nll_loss_backward,
                         "loss = -sum_i logp[i, target[i]] / total_weight: d logp = -grad / total_weight en los "
                         "objetivos, 0 en el resto."),
    "LogSoftmaxBackward0": (formulas.log_softmax_backward,
                            "out = log_softmax(z), con out guardado: dz = grad - softmax(z) * grad.sum(dim), "
                            "softmax(z) = exp(out)."),
    "AddmmBackward0": (formulas.addmm_backward,
                       "out = beta * bias + alpha * mat1 @ mat2 (el sesgo, extendido a todas las filas): "
                       "(d bias, d mat1, d mat2)."),
    "TBackward0": (formulas.t_backward,
                   "out = W.t(): el gradiente de W es el gradiente que llega, transpuesto de vuelta."),
    "ReluBackward0": (formulas.relu_backward,
                      "out = relu(z), con out guardado: el gradiente pasa donde out > 0 y es 0 en el resto."),
}
"""Each node class's hand formula, with what it computes in Spanish (the English is the function's docstring)."""


def formula_table() -> str:
    """One row per node class: the hand formula's function and what it computes (its docstring, in English)."""
    rows = [words(en="| node | hand formula | what it computes |", es="| nodo | fórmula a mano | qué calcula |"),
            "| --- | --- | --- |"]
    for node, (fn, spanish) in NODES.items():
        rows.append(f"| `{node}` | `{fn.__name__}{inspect.signature(fn)}` | "
                    f"{words(en=inspect.getdoc(fn), es=spanish)} |")
    return "\n".join(rows)


def build() -> dict[str, str]:
    """Run every step of the lab and lay out the deliverables (file name -> text)."""
    _, walk = printed(walk_mlp)
    _, ints = printed(saved_ints)
    _, linear = printed(linear_by_hand)
    _, mlp32 = printed(mlp_by_hand)
    _, mlp64 = printed(mlp_by_hand, torch.float64)
    _, checks = printed(gradchecks)
    _, mistake = printed(catch_the_mistake)
    _, shown = printed(draw_mlp_graph)
    report = "\n".join([
        words(en="# Lab 01 · Autograd by hand: report\n", es="# Lab 01 · Autograd a mano: informe\n"),
        objective(en="walk the real autograd graph of `linear(x, W, b)` and of a two-layer MLP "
                     "(64 -> 128 -> 600, log-softmax, NLL loss), write each node's backward formula, and check it "
                     "against autograd and with `torch.autograd.gradcheck`.",
                  es="recorrer el grafo real de autograd de `linear(x, W, b)` y de un MLP de dos capas "
                     "(64 -> 128 -> 600, log-softmax, pérdida NLL), escribir la fórmula de backward de cada nodo y "
                     "comprobarla frente a autograd y con `torch.autograd.gradcheck`.")
        + " " + printed_by(torch.__version__) + "\n",
        words(en="## Formulas", es="## Fórmulas") + "\n\n" + formula_table() + "\n",
        section(words(en="1. The graph", es="1. El grafo"), walk, words(
            en="Each line is a node; `->` lists its `next_functions`. `mat1` is the input tensor itself; "
               "`mat2` is the weight seen through a transpose (same memory); outputs saved for backward "
               "(`result`) share memory with the forward's tensors. The graph is drawn in `mlp-graph.svg`.",
            es="Cada línea es un nodo; `->` lista sus `next_functions`. `mat1` es el propio tensor de entrada; "
               "`mat2` es el peso visto a través de una transposición (la misma memoria); las salidas guardadas "
               "para el backward (`result`) comparten memoria con los tensores del forward. El grafo está "
               "dibujado en `mlp-graph.svg`.")),
        section(words(en="2. Two saved ints", es="2. Dos enteros guardados"), ints, words(
            en="Autograd hands `_saved_dim` and `_saved_ignore_index` to Python as unsigned 64-bit "
               "integers: -1 and -100 come back as 2**64 - 1 and 2**64 - 100. Convert before use.",
            es="Autograd entrega `_saved_dim` y `_saved_ignore_index` a Python como enteros de 64 bits sin "
               "signo: -1 y -100 vuelven como 2**64 - 1 y 2**64 - 100. Conviértelos antes de usarlos.")),
        section(words(en="3. linear by hand", es="3. linear a mano"), linear, words(
            en="`db = g.sum(0)`, `dx = g @ W`, `dW = g.T @ x`, read from `AddmmBackward0`'s saved "
               "tensors, equal autograd's gradients. The saved tensors must be read before `backward()` "
               "frees them.",
            es="`db = g.sum(0)`, `dx = g @ W` y `dW = g.T @ x`, calculados con los tensores que guardó "
               "`AddmmBackward0`, coinciden con los gradientes de autograd. Los tensores guardados hay que "
               "leerlos antes de que `backward()` los libere.")),
        section(words(en="4. The MLP by hand, float32 and float64", es="4. El MLP a mano, float32 y float64"),
                mlp32 + mlp64, words(
            en="Walking the graph in dependency order with the hand formulas gives every gradient "
               "within 1e-6 of autograd in float32 and within 1e-12 in float64.",
            es="Recorrer el grafo en orden de dependencias con las fórmulas a mano da todos los gradientes a "
               "menos de 1e-6 de los de autograd en float32 y a menos de 1e-12 en float64.")),
        section("5. gradcheck", checks, words(
            en="`gradcheck` compares the backward with finite differences in float64; fast mode checks "
               "random projections of the Jacobian instead of every entry. Both pass.",
            es="`gradcheck` compara el backward con diferencias finitas en float64; el modo rápido comprueba "
               "proyecciones aleatorias del jacobiano en lugar de cada una de sus entradas. Pasan los dos.")),
        section(words(en="6. A subtle mistake, caught", es="6. Un error sutil, cazado"), mistake, words(
            en="Keeping only the diagonal of log-softmax's Jacobian, `grad * (1 - softmax)`, gives "
               "well-shaped but wrong gradients: the differences are percent-sized, and gradcheck "
               "returns False (or raises, with `raise_exception=True`).",
            es="Quedarse solo con la diagonal del jacobiano de log-softmax, `grad * (1 - softmax)`, da "
               "gradientes con la forma correcta pero equivocados: las diferencias son del orden del tanto por "
               "ciento, y gradcheck devuelve False (o lanza un error, con `raise_exception=True`).")),
    ])
    return {"REPORT.md": report, "mlp-graph.svg": standalone(shown) + "\n"}


def main(argv=None) -> list[Path]:
    """Write the deliverables into `--out DIR` and print their paths."""
    code = sorted(Path(__file__).parent.glob("*.py"))
    meta = manifest(lab="lab01-autograd-by-hand", seed=SEED, code_sha256=code_hash(code))
    return run_lab("Lab 01: autograd by hand", build(), meta, argv)


if __name__ == "__main__":
    main()
