"""Lab 00's deliverables from a real run: `python -m snippets.lab00.run --out DIR`.

Writes trace.log (every ATen call of F.linear under the logging mode), REPORT.md (the real outputs and their
interpretation) and manifest.json (torch version, seed, timestamp, code hash).
"""

from pathlib import Path

import torch

from hood.capture.ops import render_calls
from hood.labkit import manifest, run_lab, section
from hood.stdout import printed
from snippets.lab00 import parts

SECTIONS = [
    ("A. Baseline", parts.part_a_baseline),
    ("B. Key sets", parts.part_b_key_sets),
    ("C. Logging mode, F.linear(x, W, b)", parts.part_c_linear_ops),
    ("D. Logging mode, torch.addmm(b, x, W.T)", parts.part_d_addmm_directly),
    ("E. Profiler, forward and backward (rows of interest)", parts.part_e_profile),
]


def report() -> dict[str, str]:
    """Run parts A to E; return the lab's files (trace.log, REPORT.md) as text."""
    results, lines = [], ["# Lab 00 report: the dispatcher on linear(x, W, b)", "",
                          f"torch {torch.__version__}, seed {parts.SEED}.", ""]
    for title, part in SECTIONS:
        result, output = printed(part)
        results.append(result)
        lines.append(section(title, output))
    lines += ["## Interpretation", "", parts.interpretation(*results), ""]
    return {"trace.log": render_calls(results[2]) + "\n", "REPORT.md": "\n".join(lines)}


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the deliverables and manifest.json into `--out`; print and return their paths."""
    meta = manifest(lab="lab00", seed=parts.SEED, code=[Path(parts.__file__), Path(__file__)])
    return run_lab(__doc__.splitlines()[0], report(), meta, argv)


if __name__ == "__main__":
    main()
