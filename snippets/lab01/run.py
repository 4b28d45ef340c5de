"""Lab 01's deliverables: `python -m snippets.lab01.run --out DIR` writes REPORT.md, mlp-graph.svg, manifest.json."""

import inspect
from pathlib import Path

import torch

from hood.labkit import manifest, run_lab, section
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
    "NllLossBackward0": formulas.nll_loss_backward,
    "LogSoftmaxBackward0": formulas.log_softmax_backward,
    "AddmmBackward0": formulas.addmm_backward,
    "TBackward0": formulas.t_backward,
    "ReluBackward0": formulas.relu_backward,
}


def formula_table() -> str:
    """One row per node class: the hand formula's function and its docstring (the formula)."""
    rows = ["| node | hand formula | what it computes |", "| --- | --- | --- |"]
    for node, fn in NODES.items():
        rows.append(f"| `{node}` | `{fn.__name__}{inspect.signature(fn)}` | {inspect.getdoc(fn)} |")
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
    _, svg = printed(draw_mlp_graph)
    report = "\n".join([
        "# Lab 01 · Autograd by hand: report\n",
        "Objective: walk the real autograd graph of `linear(x, W, b)` and of a two-layer MLP "
        "(64 -> 128 -> 600, log-softmax, NLL loss), write each node's backward formula, and check it "
        "against autograd and with `torch.autograd.gradcheck`. Every block below was printed by "
        f"torch {torch.__version__} while this report was written.\n",
        "## Formulas\n\n" + formula_table() + "\n",
        section("1. The graph", walk,
                "Each line is a node; `->` lists its `next_functions`. `mat1` is the input tensor itself; "
                "`mat2` is the weight seen through a transpose (same memory); outputs saved for backward "
                "(`result`) share memory with the forward's tensors. The graph is drawn in `mlp-graph.svg`."),
        section("2. Two saved ints", ints,
                "Autograd hands `_saved_dim` and `_saved_ignore_index` to Python as unsigned 64-bit "
                "integers: -1 and -100 come back as 2**64 - 1 and 2**64 - 100. Convert before use."),
        section("3. linear by hand", linear,
                "`db = g.sum(0)`, `dx = g @ W`, `dW = g.T @ x`, read from `AddmmBackward0`'s saved "
                "tensors, equal autograd's gradients. The saved tensors must be read before `backward()` "
                "frees them."),
        section("4. The MLP by hand, float32 and float64", mlp32 + mlp64,
                "Walking the graph in dependency order with the hand formulas gives every gradient "
                "within 1e-6 of autograd in float32 and within 1e-12 in float64."),
        section("5. gradcheck", checks,
                "`gradcheck` compares the backward with finite differences in float64; fast mode checks "
                "random projections of the Jacobian instead of every entry. Both pass."),
        section("6. A subtle mistake, caught", mistake,
                "Keeping only the diagonal of log-softmax's Jacobian, `grad * (1 - softmax)`, gives "
                "well-shaped but wrong gradients: the differences are percent-sized, and gradcheck "
                "returns False (or raises, with `raise_exception=True`)."),
    ])
    return {"REPORT.md": report, "mlp-graph.svg": svg + "\n"}


def main(argv=None) -> list[Path]:
    """Write the deliverables into `--out DIR` and print their paths."""
    code = sorted(Path(__file__).parent.glob("*.py"))
    meta = manifest(lab="lab01-autograd-by-hand", seed=SEED, code=code)
    return run_lab("Lab 01: autograd by hand", build(), meta, argv)


if __name__ == "__main__":
    main()
