"""Build-time and reader-side figures for the maintainers' notes: `make bench` (a script, never a timed test).

Reports executions per block in a two-language build, the cold build, the warm rebuild with nothing changed,
the floor (the same site with execution switched off), the time from saving an edit to the served page showing
it under `make serve` (median of several edits, on a page with executed blocks and on one without), and the
bytes a browser fetches on a first visit of each page (largest and median per language), measured in the
Chromium the browser tests use.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

from tools.sandbox import build, build_env, copy_project
from tools.serve import serve_command

EDITED_PAGES = (("theory/01-dispatcher-and-aten.md", "with executed blocks"), ("index.md", "without blocks"))
EDITS_PER_PAGE = 5
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]


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


def _page_url(base: str, page: str) -> str:
    return base + ("" if page == "index.md" else page.removesuffix(".md") + "/")


def edit_to_reload(project: Path, timeout: float = 900) -> dict[str, list[float]]:
    """Seconds from saving a prose edit to the served page showing it, per page of `EDITED_PAGES`."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(serve_command(project, f"127.0.0.1:{port}"), cwd=project,
                              env=build_env(project, mode="lenient", cache=True),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times: dict[str, list[float]] = {}
    try:
        deadline = time.monotonic() + timeout
        while "Under the Hood" not in _fetch(base):
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("mkdocs serve did not come up")
            time.sleep(0.2)
        for page, _ in EDITED_PAGES:
            source, url = project / "docs" / "en" / page, _page_url(base, page)
            for _ in range(EDITS_PER_PAGE):
                time.sleep(1.5)  # let the watcher settle after the previous rebuild
                marker = f"edited-{time.time_ns()}"
                start = time.perf_counter()
                source.write_text(source.read_text() + f"\n{marker}\n")
                while marker not in _fetch(url):
                    if time.monotonic() > deadline:
                        raise SystemExit(f"the edit of {page} never showed")
                    time.sleep(0.02)
                times.setdefault(page, []).append(time.perf_counter() - start)
        return times
    finally:
        server.terminate()
        server.wait(timeout=30)


def _record_size(sizes: dict[str, int], response) -> None:
    try:
        sizes[response.url] = len(response.body())
    except Exception:  # noqa: BLE001 - a redirect or an aborted request has no body to count
        sizes.setdefault(response.url, 0)


def page_weights(site: Path) -> dict[str, dict[str, int]]:
    """Bytes (uncompressed bodies) a fresh Chromium fetches to show each page, search index included, per language."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    weights: dict[str, dict[str, int]] = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
            for html in sorted(site.rglob("index.html")):
                path = str(html.parent.relative_to(site)).replace(".", "")
                language = "es" if path.split("/")[0] == "es" else "en"
                context = browser.new_context()
                page = context.new_page()
                sizes: dict[str, int] = {}
                page.on("response", functools.partial(_record_size, sizes))
                page.goto(base + (path + "/" if path else ""))
                page.wait_for_load_state("networkidle")
                weights.setdefault(language, {})[path or "/"] = sum(sizes.values())
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return weights


def main() -> None:
    """Run every measurement in a temporary copy of the site and print a table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hood-bench-") as tmp:
        project = copy_project(Path(tmp) / "site")
        cold, executions = _timed_build(project, mode="lenient", cache=True)
        warm, warm_executions = _timed_build(project, mode="lenient", cache=True)
        weights = page_weights(project / "site")
        floor, _ = _timed_build(project, mode="no-exec")
        reloads = edit_to_reload(project)
    counts = Counter(executions)
    rows = [
        ("blocks", str(len(counts))),
        ("executions per block, two-language build",
         f"max {max(counts.values(), default=0)}, total {sum(counts.values())}"),
        ("cold build (empty cache)", f"{cold:.1f} s"),
        ("warm rebuild, nothing changed", f"{warm:.1f} s ({len(warm_executions)} executions)"),
        ("floor: execution switched off", f"{floor:.1f} s"),
    ]
    for page, kind in EDITED_PAGES:
        seconds = reloads[page]
        rows.append((f"edit to reload under make serve, {page} ({kind})",
                     f"median {statistics.median(seconds):.2f} s (min {min(seconds):.2f}, max {max(seconds):.2f}, "
                     f"{len(seconds)} edits)"))
    for language, pages in sorted(weights.items()):
        largest = max(pages, key=pages.get)
        rows.append((f"bytes a first visit fetches, {language} ({len(pages)} pages)",
                     f"largest {pages[largest] / 1000:.0f} KB ({largest}), "
                     f"median {statistics.median(pages.values()) / 1000:.0f} KB"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
