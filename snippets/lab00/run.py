"""Lab 00's deliverables from a real run: `python -m snippets.lab00.run --out DIR`.

Writes trace.log (every ATen call of F.linear under the logging mode), REPORT.md (the real outputs and their
interpretation, in the language `--lang` names) and manifest.json (torch version, seed, timestamp, code hash).
"""

from pathlib import Path

import torch

from hood.capture.common import words
from hood.capture.ops import render_calls
from hood.labkit import manifest, run_lab, section
from hood.stdout import printed
from snippets.lab00 import parts

SECTIONS = [
    (words(en="A. Baseline", es="A. La llamada de referencia"), parts.part_a_baseline),
    (words(en="B. Key sets", es="B. Conjuntos de claves"), parts.part_b_key_sets),
    (words(en="C. Logging mode, F.linear(x, W, b)", es="C. Log del modo de dispatch, F.linear(x, W, b)"),
     parts.part_c_linear_ops),
    (words(en="D. Logging mode, torch.addmm(b, x, W.T)", es="D. Log del modo de dispatch, torch.addmm(b, x, W.T)"),
     parts.part_d_addmm_directly),
    (words(en="E. Profiler, forward and backward (rows of interest)",
           es="E. Profiler, forward y backward (las filas que interesan)"), parts.part_e_profile),
]


def interpretation(results) -> str:
    """The interpretation paragraph in every language; the English one is the page's (`parts.interpretation`)."""
    found = parts.findings(*results)
    spanish = (
        f"`linear(x, W, b)` nunca llegó al modo de dispatch como `aten::linear`: es un kernel "
        f"CompositeImplicitAutograd y se descompuso por encima de la clave `Python` en {found['linear_ops']}. "
        f"Al llamar directamente a `addmm(b, x, W.T)`, el log recogió {found['logged']} operadores "
        f"({found['addmm_ops']}), {'tantos como' if found['as_many'] else 'no tantos como'} con `linear`: "
        f"`W.T` también es un operador. Los conjuntos de claves del tensor fueron "
        f"{'idénticos' if found['same_keys'] else 'distintos'} con y sin `requires_grad`, en float16 y bajo "
        f"`no_grad`; la clave de autograd `AutogradCPU` está por encima de `CPU` y actúa primero, graba "
        f"`{found['node']}` y después vuelve a despachar la llamada hacia el kernel de CPU. El profiler muestra el "
        f"forward `aten::linear` con formas de entrada {found['forward']} y el backward `AddmmBackward0` con "
        f"{found['backward']}."
    )
    return words(en=parts.interpretation(*results), es=spanish)


def report() -> dict[str, str]:
    """Run parts A to E; return the lab's files (trace.log, REPORT.md) as text, REPORT.md in every language."""
    results, lines = [], [words(en="# Lab 00 report: the dispatcher on linear(x, W, b)",
                                es="# Informe del lab 00: el dispatcher en linear(x, W, b)"), "",
                          words(en=f"torch {torch.__version__}, seed {parts.SEED}.",
                                es=f"torch {torch.__version__}, semilla {parts.SEED}."), ""]
    for title, part in SECTIONS:
        result, output = printed(part)
        results.append(result)
        lines.append(section(title, output))
    lines += [words(en="## Interpretation", es="## Interpretación"), "", interpretation(results), ""]
    return {"trace.log": render_calls(results[2]) + "\n", "REPORT.md": "\n".join(lines)}


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the deliverables and manifest.json into `--out`; print and return their paths."""
    meta = manifest(lab="lab00", seed=parts.SEED, code=[Path(parts.__file__), Path(__file__)])
    return run_lab(__doc__.splitlines()[0], report(), meta, argv)


if __name__ == "__main__":
    main()
