"""Lab 00's deliverables from a real run: `python -m snippets.lab00.run --out DIR`.

Writes trace.log (every ATen call of F.linear under the logging mode), REPORT.md (the real outputs and their
interpretation, in the language `--lang` names) and manifest.json (torch version, seed, timestamp, code hash).
"""

from pathlib import Path

import torch

from hood.capture.common import words
from hood.capture.ops import render_calls
from hood.labkit import code_hash, manifest, run_lab, section
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
    lines += [words(en="## Interpretation", es="## Interpretación"), "", parts.interpretation(*results), ""]
    return {"trace.log": render_calls(results[2]) + "\n", "REPORT.md": "\n".join(lines)}


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the deliverables and manifest.json into `--out`; print and return their paths."""
    meta = manifest(lab="lab00", seed=parts.SEED, code_sha256=code_hash([Path(parts.__file__), Path(__file__)]))
    return run_lab(__doc__.splitlines()[0], report(), meta, argv)


if __name__ == "__main__":
    main()
