"""Fragility audit: re-run every traced block under variations its trace claims not to depend on.

    python -m tools.audit                      # every variation; exit 1 when any block's output changes
    python -m tools.audit --variation threads-1 --variation pages-alone

Each variation runs in fresh processes (the CPU-library caps must be set before torch loads), runs the blocks
with the engine, normalises their output and compares it with the committed trace. A block listed here prints
something that depends on the machine, the thread count, the order of pages or the Inductor cache: fix the
block (a fixed tolerance, a pinned setting), never the trace.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Variation:
    """One way of running the blocks that must not change any trace.

    Attributes:
        name: How the report names it.
        what: One line on what it varies.
        env: Environment variables of the worker processes.
        threads: ATen's intra-op thread count, instead of the pinned one.
        per_page: One process per page (no state leaks in from earlier pages), instead of one for the site.
        inductor_cache: `fresh` (a new, empty cache for each process), or `shared` (one cache for every
            `shared` variation, filled by the first).
    """

    name: str
    what: str
    env: dict[str, str] = field(default_factory=dict)
    threads: int | None = None
    per_page: bool = False
    inductor_cache: str = "shared"


VARIATIONS = (
    Variation("pages-alone", "each page in its own process, with a cold Inductor cache of its own",
              per_page=True, inductor_cache="fresh"),
    Variation("threads-1", "ATen on 1 thread instead of 2", threads=1),
    Variation("threads-4", "ATen on 4 threads instead of 2", threads=4),
    Variation("blas-avx2", "MKL and oneDNN capped at AVX2 (the same as uncapped on a CPU without AVX-512)",
              env={"MKL_ENABLE_INSTRUCTIONS": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}),
    Variation("blas-avx", "MKL and oneDNN capped at AVX, as on an older CPU: other BLAS kernels, other last bits",
              env={"MKL_ENABLE_INSTRUCTIONS": "AVX", "ONEDNN_MAX_CPU_ISA": "AVX"}),
    Variation("warm-cache", "the whole site again, with the Inductor cache the variations above filled"),
)
"""In the order they run: the first `shared` variation fills the shared Inductor cache, the last finds it warm
(Inductor's generated code is the same for every thread count: its thread count is pinned apart)."""


def site_pages(project: Path) -> list[str]:
    """The English pages, home first, as paths inside `docs/en` (the Spanish pages run the same blocks)."""
    docs = project / "docs" / "en"
    return sorted((str(p.relative_to(docs)) for p in docs.rglob("*.md")), key=lambda p: (p != "index.md", p))


# ---------------------------------------------------------------- worker: runs in a fresh process


def run_pages(project: Path, pages: list[str], threads: int | None, inductor_cache: Path) -> list[dict]:
    """Run every block of `pages` in order; one record per traced block: page, block, ok, diff."""
    from hood.engine import runtime
    from hood.engine.blocks import page_blocks, project_snippets_config
    from hood.engine.engine import Engine
    from hood.engine.settings import Settings
    from hood.engine.build import compare_output

    settings = Settings(root=project, check=True, use_cache=False, traces_dir=project / "traces")
    settings = replace(settings, threads=threads) if threads else settings
    runtime.pin_process(settings, str(inductor_cache))
    sys.path.insert(0, str(project))
    snippets = project_snippets_config(project)
    engine = Engine(settings, f"audit-{os.getpid()}")
    records = []
    for page in pages:
        text = (project / "docs" / "en" / page).read_text(encoding="utf-8")
        engine.begin_page(page)
        for page_block in page_blocks(page, text, snippets):
            block = page_block.block
            outcome = engine.run(block)
            if not page_block.traced or not block.block_id:
                continue
            if outcome.error is not None:
                records.append({"page": page, "block": block.block_id, "ok": False, "diff": outcome.error})
                continue
            check = compare_output(settings.traces_dir, page, block.block_id, outcome.output, project)
            records.append({"page": page, "block": block.block_id, "ok": check.ok, "diff": check.diff(project)})
        engine.end_page(page)
    return records


# ---------------------------------------------------------------- driver


@dataclass
class Result:
    """What one variation found."""

    variation: Variation
    seconds: float
    """Its workers' time, summed (they may run beside other workers)."""
    blocks: int
    changed: list[dict]


def _worker(project: Path, variation: Variation, pages: list[str], cache: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "records.json"
        args = [sys.executable, "-m", "tools.audit", "--worker", "--project", str(project), "--out", str(out),
                "--inductor-cache", str(cache), *(["--threads", str(variation.threads)] if variation.threads else []),
                *[arg for page in pages for arg in ("--page", page)]]
        env = {k: v for k, v in os.environ.items() if not k.startswith("HOOD_")} | variation.env
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        proc = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=3600, check=False)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"audit worker for {variation.name} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
        return json.loads(out.read_text(encoding="utf-8"))


def _stages(variations: tuple[Variation, ...]) -> list[list[Variation]]:
    """The variations in stages that may run at the same time: those with a cache of their own, then the ones
    sharing the Inductor cache, then the last of those alone (it must find the cache the others filled warm)."""
    fresh = [v for v in variations if v.inductor_cache == "fresh"]
    shared = [v for v in variations if v.inductor_cache == "shared"]
    return [stage for stage in (fresh, shared[:-1], shared[-1:]) if stage]


def audit(project: Path, variations: tuple[Variation, ...], workdir: Path, jobs: int = 1) -> list[Result]:
    """Run the variations, `jobs` worker processes at a time, and collect the blocks whose output differs from their
    trace. Outputs never depend on how busy the machine is (timings are never traced), so workers may share it."""
    pages = site_pages(project)
    done: dict[str, Result] = {}

    def run(variation: Variation, group: list[str]) -> tuple[Variation, list[dict], float]:
        start = time.monotonic()
        fresh = variation.inductor_cache == "fresh"
        cache = Path(tempfile.mkdtemp(dir=workdir)) if fresh else workdir / "inductor-shared"
        return variation, _worker(project, variation, group, cache), time.monotonic() - start

    for stage in _stages(variations):
        tasks = [(v, group) for v in stage for group in ([[p] for p in pages] if v.per_page else [pages])]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for variation, records, seconds in pool.map(lambda task: run(*task), tasks):
                result = done.setdefault(variation.name, Result(variation, 0.0, 0, []))
                result.seconds += seconds
                result.blocks += len(records)
                result.changed += [r for r in records if not r["ok"]]
    return [done[v.name] for v in variations]


def render(results: list[Result]) -> str:
    """The report: per variation, what it varies, how long it took and which blocks changed; then the diffs."""
    total = sum(len(r.changed) for r in results)
    lines = [f"fragility audit: {total} block output(s) changed under {len(results)} variation(s)", ""]
    for r in results:
        lines.append(f"{r.variation.name:<12} {len(r.changed):>3} of {r.blocks} changed  {r.seconds:6.1f} s  "
                     f"{r.variation.what}")
        lines += [f"    {c['page']}#{c['block']}" for c in r.changed]
    for r in results:
        for c in r.changed:
            lines += ["", f"--- {r.variation.name}: {c['page']}#{c['block']}", c["diff"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: the driver by default, a worker with `--worker`."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT)
    parser.add_argument("--variation", action="append", choices=[v.name for v in VARIATIONS])
    parser.add_argument("--report", type=Path, help="also write the report to this file")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="worker processes at a time (default: one per CPU)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--page", action="append", help=argparse.SUPPRESS)
    parser.add_argument("--threads", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--inductor-cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    project = args.project.resolve()
    if args.worker:
        records = run_pages(project, args.page or [], args.threads, args.inductor_cache)
        args.out.write_text(json.dumps(records), encoding="utf-8")
        return 0
    chosen = tuple(v for v in VARIATIONS if not args.variation or v.name in args.variation)
    with tempfile.TemporaryDirectory(prefix="hood-audit-") as workdir:
        results = audit(project, chosen, Path(workdir), args.jobs)
    report = render(results)
    print(report)
    if args.report:
        args.report.write_text(report + "\n", encoding="utf-8")
    return 1 if any(r.changed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
