"""`make serve`: build both languages, serve them, and after an edit render only the pages it touches.

`mkdocs serve --dirty` renders again the pages whose source changed; the `hood` plugin adds those whose included
snippets or glossary changed, and its engine runs only the blocks whose code changed (the rest come from the
authoring cache). mkdocs runs in this process with one change: it looks for saved files every `POLL_SECONDS`
instead of every half second. The benchmark and the tests run the same command (`serve_command`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from hood import compat

WATCHED = ("src", "snippets", "glossary.yml")
"""What an author edits besides `docs/` and `mkdocs.yml` (which `mkdocs serve` always watches)."""

POLL_SECONDS = 0.1
"""How often the server looks for saved files. mkdocs polls every 0.5 s, a quarter of a second of waiting on
average, up to half a second, out of the one-second aim from a save to the page showing it; one look at the watched
folders takes a few milliseconds."""

PROJECT = Path(__file__).resolve().parents[1]
"""The project this module belongs to."""


def mkdocs_args(project: Path, address: str) -> list[str]:
    """The `mkdocs` arguments that serve `project` on `address` (host:port), rebuilding only what an edit touches."""
    watched = [arg for name in WATCHED for arg in ("-w", str(project / name))]
    return ["serve", "--dirty", "-f", str(project / "mkdocs.yml"), "-a", address, *watched]


def serve_command(project: Path, address: str) -> list[str]:
    """The command line that serves `project` on `address`: this module run as a script."""
    return [sys.executable, str(Path(__file__).resolve()), *mkdocs_args(project, address)]


def run_mkdocs(args: list[str]) -> None:
    """Run `mkdocs <args>` in this process, its server polling for saved files every `POLL_SECONDS`."""
    from mkdocs import __main__ as mkdocs_main

    compat.poll_saved_files(POLL_SECONDS)
    sys.argv = ["mkdocs", *args]  # as typed: the i18n plugin reads `--dirty` from the command line
    mkdocs_main.cli()


def main(argv: list[str]) -> None:
    """`mkdocs` arguments (from `serve_command`), or an address (default 127.0.0.1:8000) to serve this project on."""
    if argv[:1] == ["serve"]:
        run_mkdocs(argv)
    else:
        run_mkdocs(mkdocs_args(PROJECT, argv[0] if argv else "127.0.0.1:8000"))


if __name__ == "__main__":
    main(sys.argv[1:])
