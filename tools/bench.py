"""Build-time figures for the README's note: `make bench` (a script, never a timed test).

Reports executions per block in a two-language build, the cold build, the warm rebuild with nothing
changed, the floor (the same site with execution switched off), and the time from a prose edit to the
reloaded page under `mkdocs serve`.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

from tools.sandbox import build, build_env, copy_project


def _timed_build(project: Path, **kwargs) -> tuple[float, list[tuple[str, str]]]:
    start = time.perf_counter()
    result = build(project, **kwargs)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"build failed:\n{result.output}")
    return elapsed, result.executions()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return ""


def edit_to_reload(project: Path, timeout: float = 600) -> float:
    """Seconds from saving a prose edit to the served page showing it, under `mkdocs serve` with the cache."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    args = [sys.executable, "-m", "mkdocs", "serve", "-f", str(project / "mkdocs.yml"), "-a", f"127.0.0.1:{port}",
            "-w", str(project / "snippets")]
    server = subprocess.Popen(args, cwd=project, env=build_env(project, mode="lenient", cache=True),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + timeout
        while "Under the Hood" not in _fetch(url):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("mkdocs serve did not come up")
            time.sleep(0.2)
        page = project / "docs" / "en" / "index.md"
        marker = f"edited-{time.time_ns()}"
        start = time.perf_counter()
        page.write_text(page.read_text() + f"\n{marker}\n")
        while marker not in _fetch(url):
            if time.monotonic() > deadline:
                raise SystemExit("the edit never showed")
            time.sleep(0.1)
        return time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    """Run every measurement in a temporary copy of the site and print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hood-bench-") as tmp:
        project = copy_project(Path(tmp) / "site")
        cold, executions = _timed_build(project, mode="lenient", cache=True)
        warm, warm_executions = _timed_build(project, mode="lenient", cache=True)
        floor, _ = _timed_build(project, mode="no-exec")
        reload_seconds = edit_to_reload(project)
    counts = Counter(executions)
    rows = [
        ("blocks", str(len(counts))),
        ("executions per block, two-language build",
         f"max {max(counts.values(), default=0)}, total {sum(counts.values())}"),
        ("cold build (empty cache)", f"{cold:.1f} s"),
        ("warm rebuild, nothing changed", f"{warm:.1f} s ({len(warm_executions)} executions)"),
        ("floor: execution switched off", f"{floor:.1f} s"),
        ("prose edit to reload under mkdocs serve", f"{reload_seconds:.1f} s"),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
