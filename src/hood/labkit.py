"""What every lab's deliverables share: report sections, `manifest.json`, and writing the files.

The `body` section is self-contained (torch and the standard library, `words`/`localize` from
`hood.capture.common` included before it), so a lab's setup block includes it and the lab's last block writes the
deliverables from the learner's own functions, on the site and in the lab's notebook alike.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from hood.capture.common import LANGUAGES, localize, words

# --8<-- [start:body]
import hashlib
import inspect
import json
import os
import platform
import tempfile
from datetime import datetime, timezone
from pathlib import Path


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


def source_hash(functions) -> str:
    """SHA-256 over the source of the given functions and classes (their code when the source is not at hand)."""
    digest = hashlib.sha256()
    for item in functions:
        try:
            digest.update(inspect.getsource(item).encode())
        except (OSError, TypeError):
            digest.update(item.__code__.co_code if hasattr(item, "__code__") else repr(item).encode())
    return digest.hexdigest()


def manifest(*, lab: str, seed: int, functions=(), code_sha256: str = "") -> dict:
    """The run's identity: lab, torch and Python versions, seed, UTC timestamp, and the hash of the code that
    produced the deliverables (`functions`' source, or `code_sha256` given)."""
    import torch

    return {
        "lab": lab,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "seed": seed,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "code_sha256": code_sha256 or source_hash(functions),
    }


def deliverables_folder(lab: str) -> Path:
    """Where a lab's last block writes: `<lab>-deliverables/` next to a notebook or script; a temporary folder
    while the site builds (the site's checkout is not the place for them)."""
    if globals().get("PAGE_LANGUAGE"):
        return Path(f"{lab}-deliverables")
    return Path(tempfile.mkdtemp(prefix=f"{lab}-"))


def write_deliverables(out, files: dict, meta: dict, language: str = "") -> list:
    """Write each deliverable and `manifest.json` into `out`, in `language` (the page's in a download), each file
    whole or not at all; return the paths written."""
    language = language or globals().get("PAGE_LANGUAGE") or "en"
    written = []
    for name, text in {**files, "manifest.json": json.dumps(meta, indent=2) + "\n"}.items():
        path = Path(out) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        partial.write_text(localize(text, language), encoding="utf-8")
        os.replace(partial, path)
        written.append(path)
    return written
# --8<-- [end:body]


def code_hash(paths: Iterable[Path]) -> str:
    """SHA-256 over the given source files (name and content), in the given order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(Path(path).name.encode() + b"\0" + Path(path).read_bytes() + b"\0")
    return digest.hexdigest()


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
