"""Lab 03's deliverables: `python -m snippets.lab03.run --out DIR`.

Compiles the head, saves its generated code and kernel, evaluates the kernel annotation, times eager against
compiled, runs the four distributed patterns with two processes each, and writes REPORT.md, output_code.py,
kernel.cpp, KERNEL_ANNOTATION.md, DISTRIBUTED.md and manifest.json.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hood.capture.collectives import render_ranks, run_ranks
from hood.capture.common import Agreement
from hood.capture.compile_timing import interpret, render_table
from hood.labkit import code_hash, manifest, parse_args, write_deliverables
from snippets.distributed.ddp import ddp_rank
from snippets.distributed.fsdp import fsdp_rank
from snippets.distributed.pipeline import pp_rank
from snippets.distributed.tensor_parallel import tp_rank
from snippets.lab03.compile_head import compile_head
from snippets.lab03.kernel_annotation import KERNEL, annotate, render_annotation
from snippets.lab03.timing import time_head

HERE = Path(__file__).resolve().parent
SEED = 42
TOLERANCE = 1e-6
PATTERNS = {"DDP": ddp_rank, "FSDP2": fsdp_rank, "Tensor parallel": tp_rank, "Pipeline parallel": pp_rank}
"""The runs DISTRIBUTED.md reports, by pattern: the same rank functions as the theory page."""


def survey_text() -> str:
    """The survey of the lab page (English), with its links to the site turned into plain text."""
    text = (HERE / "survey_en.md").read_text(encoding="utf-8")
    return re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)


def distributed_report(runs: dict[str, list[dict]]) -> str:
    """DISTRIBUTED.md: the survey, then what each pattern's ranks observed in this run."""
    parts = ["# The four distributed patterns\n", survey_text(),
             "\n## What the runs observed (2 processes, gloo, 127.0.0.1)\n"]
    for name, results in runs.items():
        parts.append(f"### {name}\n\n```text\n{render_ranks(results)}\n```\n")
    return "\n".join(parts)


def report(agreement: Agreement, annotation_ok: bool, rows, sentence: str) -> str:
    """REPORT.md: the agreement check, pointers to the kernel and its annotation, the timings and their reading."""
    return "\n".join([
        "# Lab 03 · Compile the head, survey the patterns",
        "",
        "## Part A · Compile match",
        f"Eager and compiled TinyHead (batch 2), max abs diff {agreement}: **{agreement.within}**.",
        "",
        "## Parts B to D · Generated code",
        f"- `output_code.py`: the module Inductor generated; `kernel.cpp`: its kernel `{KERNEL}`.",
        f"- `KERNEL_ANNOTATION.md`: every claim checked against that kernel; all checks hold: **{annotation_ok}**.",
        "",
        "## Part E · Eager versus compiled (one thread, torch.utils.benchmark medians)",
        render_table(rows),
        "",
        sentence,
        "",
        "## Part F · Distributed survey",
        "See `DISTRIBUTED.md`.",
        "",
    ])


def main(argv: list[str] | None = None, min_run_time: float = 0.3) -> list[Path]:
    """Run the lab and write its deliverables into `--out`; return the paths written."""
    args = parse_args(__doc__.splitlines()[0], argv)
    head_code, agreement = compile_head(seed=SEED, tol=TOLERANCE)
    results = annotate(head_code)
    annotation_ok = all(ok for _, checks in results for _, ok, _ in checks)
    rows = time_head(min_run_time=min_run_time, seed=SEED)
    runs = {name: run_ranks(target) for name, target in PATTERNS.items()}
    files = {
        "REPORT.md": report(agreement, annotation_ok, rows, interpret(rows)[args.lang]),
        "output_code.py": head_code.code,
        "kernel.cpp": head_code.kernels[KERNEL],
        "KERNEL_ANNOTATION.md": f"# Annotation of `{KERNEL}`\n\n```text\n{render_annotation(results)}```\n",
        "DISTRIBUTED.md": distributed_report(runs),
    }
    code = [*sorted(HERE.glob("*.py")), *sorted((HERE.parent / "compile").glob("*.py")),
            *sorted((HERE.parent / "distributed").glob("*.py"))]
    paths = write_deliverables(args.out, files, manifest(lab="lab03", seed=SEED, code_sha256=code_hash(code)), args.lang)
    for path in paths:
        print(path)
    return paths


if __name__ == "__main__":
    main(sys.argv[1:])
