"""Build-time and reader-side figures for the maintainers' notes: `make bench` (a script, never a timed test).

Reports executions per block in a two-language build, the cold build, the warm rebuild with nothing changed,
the floor (the same site with execution switched off), the time from saving an edit to the served page showing
it under `make serve` (median of several edits, on a page with executed blocks and on one without), and the
bytes a browser fetches on a first visit of each page (largest and median per language), measured in the
Chromium the browser tests use. The reload is timed in the same Chromium: the page is open, the edit is saved,
and the clock stops when the reloaded page shows it.

`--part weights` or `--part reload` runs only that measurement (the copy's authoring cache is then seeded from
this checkout's, so that its first build does not run every block).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import shutil
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path

from tools.sandbox import ROOT, build, build_env, copy_project
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


def _chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)


def edit_to_reload(project: Path, timeout: float = 900) -> dict[str, list[float]]:
    """Seconds from saving a prose edit to Chromium showing the reloaded page with it, per page of `EDITED_PAGES`.

    The page is open in the browser as an author has it under `make serve`: the server's live-reload script
    reloads it once the rebuild is complete.
    """
    from playwright.sync_api import sync_playwright

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
        with sync_playwright() as p:
            browser = _chromium(p)
            page = browser.new_page()
            for edited, _ in EDITED_PAGES:
                source = project / "docs" / "en" / edited
                page.goto(_page_url(base, edited))
                for _ in range(EDITS_PER_PAGE):
                    time.sleep(1.5)  # let the watcher settle after the previous rebuild
                    marker = f"edited-{time.time_ns()}"
                    start = time.perf_counter()
                    source.write_text(source.read_text() + f"\n{marker}\n")
                    page.wait_for_function("marker => document.body && document.body.textContent.includes(marker)",
                                           arg=marker, polling=20, timeout=max(deadline - time.monotonic(), 1) * 1000)
                    times.setdefault(edited, []).append(time.perf_counter() - start)
            browser.close()
        return times
    finally:
        server.terminate()
        server.wait(timeout=30)


def _record_size(sizes: dict[str, int], response) -> None:
    try:
        sizes[response.url] = len(response.body())
    except Exception:  # noqa: BLE001 - a redirect or an aborted request has no body to count
        sizes.setdefault(response.url, 0)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002 - the name the base class gives it
        pass


def site_pages(site: Path) -> list[str]:
    """Every page of a built site as a URL path relative to its root ("" for the home page)."""
    return sorted(str(html.parent.relative_to(site)).removeprefix(".") for html in site.rglob("index.html")
                  if not {"assets", "search"} & set(html.relative_to(site).parts))


def page_requests(site: Path, pages: list[str]) -> dict[str, dict[str, int]]:
    """For each page, every URL a fresh Chromium fetches to show it (once the network is idle) and its bytes
    (uncompressed bodies)."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.handle_error = lambda request, address: None  # a request the browser gave up on is not a failure
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    requests: dict[str, dict[str, int]] = {}
    try:
        with sync_playwright() as p:
            browser = _chromium(p)
            for path in pages:
                context = browser.new_context()
                page = context.new_page()
                sizes: dict[str, int] = {}
                page.on("response", functools.partial(_record_size, sizes))
                response = page.goto(base + (path + "/" if path else ""))
                if response is None or not response.ok:
                    raise SystemExit(f"page {path or '/'} did not load")
                page.wait_for_load_state("networkidle")
                requests[path] = {url.removeprefix(base): size for url, size in sizes.items()}
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return requests


def page_weights(site: Path) -> dict[str, dict[str, int]]:
    """Bytes (uncompressed bodies) a fresh Chromium fetches to show each page, per language."""
    weights: dict[str, dict[str, int]] = {}
    for path, sizes in page_requests(site, site_pages(site)).items():
        language = "es" if path.split("/")[0] == "es" else "en"
        weights.setdefault(language, {})[path or "/"] = sum(sizes.values())
    return weights


def _seed_cache(project: Path) -> None:
    """Give the copy this checkout's authoring cache (blocks whose key is unchanged are not run again)."""
    cache = ROOT / ".cache" / "hood"
    if cache.is_dir():
        shutil.copytree(cache, project / ".cache", dirs_exist_ok=True)


PARTS = ("builds", "weights", "reload")


def main() -> None:
    """Run every measurement (or those of `--part`) in a temporary copy of the site and print a table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", action="append", choices=PARTS, help="run only this part (repeatable)")
    parts = parser.parse_args().part or list(PARTS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hood-bench-") as tmp:
        project = copy_project(Path(tmp) / "site")
        if "builds" in parts:
            cold, executions = _timed_build(project, mode="lenient", cache=True)
            warm, warm_executions = _timed_build(project, mode="lenient", cache=True)
            counts = Counter(executions)
            rows += [
                ("blocks", str(len(counts))),
                ("executions per block, two-language build",
                 f"max {max(counts.values(), default=0)}, total {sum(counts.values())}"),
                ("cold build (empty cache)", f"{cold:.1f} s"),
                ("warm rebuild, nothing changed", f"{warm:.1f} s ({len(warm_executions)} executions)"),
            ]
        else:
            _seed_cache(project)
            if "weights" in parts:
                _timed_build(project, mode="lenient", cache=True)
        weights = page_weights(project / "site") if "weights" in parts else {}
        if "builds" in parts:
            floor, _ = _timed_build(project, mode="no-exec")
            rows.append(("floor: execution switched off", f"{floor:.1f} s"))
        reloads = edit_to_reload(project) if "reload" in parts else {}
    for page, kind in EDITED_PAGES:
        if page in reloads:
            seconds = reloads[page]
            rows.append((f"edit to reload in Chromium under make serve, {page} ({kind})",
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
