"""Lab 00's deliverables from a real run: `python -m snippets.lab00.run --out DIR`.

Writes trace.log (every ATen call of F.linear under the logging mode), REPORT.md (the real outputs and their
interpretation, in the language `--lang` names) and manifest.json (torch version, seed, timestamp, code hash).

The `body` section is the lab page's last block: it writes the same files from the functions the learner wrote
(`part_a_baseline` ... `interpretation`), found by name when it runs, into `deliverables_folder("lab00")`.
"""

from pathlib import Path

from hood.capture.common import words
from hood.capture.ops import render_calls
from hood.labkit import code_hash, deliverables_folder, manifest, run_lab, section, write_deliverables
from snippets.lab00.parts import (SEED, interpretation, part_a_baseline, part_b_key_sets, part_c_linear_ops,
                                  part_d_addmm_directly, part_e_profile)

# --8<-- [start:body]
import contextlib
import io

import torch


def lab00_sections() -> list:
    """(title, function) of the parts the report runs, A to E, in every language."""
    return [
        (words(en="A. Baseline", es="A. La llamada de referencia"), part_a_baseline),
        (words(en="B. Key sets", es="B. Conjuntos de claves"), part_b_key_sets),
        (words(en="C. Logging mode, F.linear(x, W, b)", es="C. Log del modo de dispatch, F.linear(x, W, b)"),
         part_c_linear_ops),
        (words(en="D. Logging mode, torch.addmm(b, x, W.T)",
               es="D. Log del modo de dispatch, torch.addmm(b, x, W.T)"), part_d_addmm_directly),
        (words(en="E. Profiler, forward and backward (rows of interest)",
               es="E. Profiler, forward y backward (las filas que interesan)"), part_e_profile),
    ]


def lab00_files() -> dict:
    """Run parts A to E; return the lab's files (trace.log, REPORT.md) as text, REPORT.md in every language."""
    results, lines = [], [words(en="# Lab 00 report: the dispatcher on linear(x, W, b)",
                                es="# Informe del lab 00: el dispatcher en linear(x, W, b)"), "",
                          words(en=f"torch {torch.__version__}, seed {SEED}.",
                                es=f"torch {torch.__version__}, semilla {SEED}."), ""]
    for title, part in lab00_sections():
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            results.append(part())
        lines.append(section(title, output.getvalue()))
    lines += [words(en="## Interpretation", es="## Interpretación"), "", interpretation(*results), ""]
    return {"trace.log": render_calls(results[2]) + "\n", "REPORT.md": "\n".join(lines)}


def write_lab00(out=None) -> list:
    """Write trace.log, REPORT.md and manifest.json into `out` (the lab's deliverables folder when None); print
    trace.log and what the manifest says, and return the paths."""
    files = lab00_files()
    functions = [part for _, part in lab00_sections()] + [interpretation, lab00_files]
    meta = manifest(lab="lab00", seed=SEED, functions=functions)
    paths = write_deliverables(out or deliverables_folder("lab00"), files, meta)
    print(words(en="written:", es="escritos:"), ", ".join(path.name for path in paths))
    print(f"trace.log:\n{files['trace.log'].rstrip()}")
    print(f"manifest.json: lab {meta['lab']}, torch {meta['torch'].split('+')[0]},",
          words(en="seed", es="semilla"), meta["seed"])
    return paths
# --8<-- [end:body]


def report() -> dict[str, str]:
    """The lab's files, as the page's last block writes them (kept for callers of the module)."""
    return lab00_files()


def main(argv: list[str] | None = None) -> list[Path]:
    """Write the deliverables and manifest.json into `--out`; print and return their paths."""
    from snippets.lab00 import parts

    meta = manifest(lab="lab00", seed=SEED, code_sha256=code_hash([Path(parts.__file__), Path(__file__)]))
    return run_lab(__doc__.splitlines()[0], lab00_files(), meta, argv)


if __name__ == "__main__":
    main()
