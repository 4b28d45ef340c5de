"""`make serve`: build both languages, serve them, and after an edit render only the pages it touches.

`mkdocs serve --dirty` renders again the pages whose source changed; the `hood` plugin adds those whose included
snippets or glossary changed, and its engine runs only the blocks whose code changed (the rest come from the
authoring cache). The benchmark times the same command.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

WATCHED = ("src", "snippets", "glossary.yml")
"""What an author edits besides `docs/` and `mkdocs.yml` (which `mkdocs serve` always watches)."""


def serve_command(project: Path, address: str) -> list[str]:
    """The `mkdocs serve` command line for `project`, served on `address` (host:port)."""
    watched = [arg for name in WATCHED for arg in ("-w", str(project / name))]
    return [sys.executable, "-m", "mkdocs", "serve", "--dirty", "-f", str(project / "mkdocs.yml"), "-a", address,
            *watched]


def main() -> None:
    """Serve the project this module belongs to on the address given as first argument (default 127.0.0.1:8000)."""
    project = Path(__file__).resolve().parents[1]
    command = serve_command(project, sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8000")
    os.execv(command[0], command)


if __name__ == "__main__":
    main()
