"""Lab 03's deliverables from the command line, for the tests and for anyone with the project checked out:
`python -m snippets.lab03.run --out DIR`.

The page's last block writes the same files from the learner's own functions; this module calls the solutions
(the same bodies the page includes) and the same `lab03_files`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hood.capture.collectives import run_ranks
from hood.labkit import code_hash, manifest, parse_args, write_deliverables
from snippets.lab03.compile_head import compile_head
from snippets.lab03.report import lab03_files
from snippets.lab03.survey import RANK_FUNCTIONS, survey
from snippets.lab03.timing import time_head

HERE = Path(__file__).resolve().parent
SEED = 42
TOLERANCE = 1e-6
PATTERNS = RANK_FUNCTIONS


def main(argv: list[str] | None = None, min_run_time: float = 0.3) -> list[Path]:
    """Run the lab and write its deliverables into `--out`; return the paths written."""
    args = parse_args(__doc__.splitlines()[0], argv)
    head_code, agreement = compile_head(seed=SEED, tol=TOLERANCE)
    rows = time_head(min_run_time=min_run_time, seed=SEED)
    runs = {name: run_ranks(rank_fn) for name, rank_fn in PATTERNS.items()}
    files = lab03_files(head_code, agreement, rows, survey(), runs)
    code = [*sorted(HERE.glob("*.py")), *sorted((HERE.parent / "compile").glob("*.py")),
            *sorted((HERE.parent / "distributed").glob("*.py"))]
    paths = write_deliverables(args.out, files, manifest(lab="lab03", seed=SEED, code_sha256=code_hash(code)),
                               args.lang)
    for path in paths:
        print(path)
    return paths


if __name__ == "__main__":
    main(sys.argv[1:])
