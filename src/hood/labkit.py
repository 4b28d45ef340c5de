"""What every lab's runnable module shares: `--out DIR`, the deliverable files and `manifest.json`."""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import platform
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path

from hood.capture.common import LANGUAGES, localize, words
from hood.engine.cache import write_atomically


def section(title: str, output: str, interpretation: str = "") -> str:
    """A REPORT.md section: a title, the real output in a text block, then what it means."""
    return f"## {title}\n\n```text\n{output.rstrip()}\n```\n\n{interpretation.strip()}\n"


def objective(*, en: str, es: str) -> str:
    """A report's opening sentence, `Objective: ...`, in every language (`en` and `es` go after the colon)."""
    return words(en=f"Objective: {en}", es=f"Objetivo: {es}")


def printed_by(version: str) -> str:
    """The sentence that dates a report's outputs: the torch `version` that printed them, in every language."""
    return words(en=f"Every block below was printed by torch {version} while this report was written.",
                 es=f"Todos los bloques de abajo los imprimió torch {version} mientras se escribía este informe.")


def code_hash(paths: Iterable[Path]) -> str:
    """SHA-256 over the given source files (name and content), in the given order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


def manifest(*, lab: str, seed: int, code: Iterable[Path]) -> dict[str, str | int]:
    """The run's identity: lab, torch version, seed, UTC timestamp, code hash, Python version."""
    return {
        "lab": lab,
        "torch": importlib.metadata.version("torch"),
        "python": platform.python_version(),
        "seed": seed,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "code_sha256": code_hash(code),
    }


def write_deliverables(out: Path, files: dict[str, str], meta: dict[str, str | int],
                       language: str = "en") -> list[Path]:
    """Write each deliverable, in `language`, and `manifest.json` into `out` (atomically); return the paths."""
    written = []
    for name, text in {**files, "manifest.json": json.dumps(meta, indent=2) + "\n"}.items():
        path = Path(out) / name
        write_atomically(path, localize(text, language))
        written.append(path)
    return written


def parse_args(description: str, argv: list[str] | None = None) -> argparse.Namespace:
    """The arguments every lab module takes: `--out DIR` and `--lang en|es`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, required=True, help="folder for the lab's deliverables")
    parser.add_argument("--lang", choices=LANGUAGES, default=LANGUAGES[0], help="the deliverables' language")
    return parser.parse_args(argv)


def run_lab(description: str, files: dict[str, str], meta: dict[str, str | int],
            argv: list[str] | None = None) -> list[Path]:
    """A lab module's `main`: parse its arguments, write `files` and `manifest.json`, print and return the paths."""
    args = parse_args(description, argv)
    written = write_deliverables(args.out, files, meta, args.lang)
    for path in written:
        print(path)
    return written
