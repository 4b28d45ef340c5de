"""Committed traces: one human-readable file per executed block, compared with every fresh output."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hood.engine.cache import write_atomically

BLESS_COMMAND = "make bless"
HEADER_PREFIX = "# "


def trace_path(traces_dir: Path, page: str, block_id: str) -> Path:
    """`traces/<page without .md>/<block id>.txt`: stable as long as the page path and block id are."""
    return traces_dir / PurePosixPath(page).with_suffix("") / f"{block_id}.txt"


def render_trace(page: str, block_id: str, normalised: str) -> str:
    """The trace file's text: a header naming the page and the block, then the normalised output.

    The torch build is not in the header: it is recorded once for all traces, in `TORCH.txt`, so that an
    upgrade shows as one line there and as a diff only in the traces whose output really changed.
    """
    header = [
        f"{HEADER_PREFIX}page: {page}",
        f"{HEADER_PREFIX}block: {block_id}",
        f"{HEADER_PREFIX}normalised output of the block; regenerate with `{BLESS_COMMAND}`",
    ]
    body = normalised if normalised.endswith("\n") or not normalised else normalised + "\n"
    return "\n".join(header) + "\n" + body


def trace_body(path: Path) -> str | None:
    """A committed trace's normalised output (its header dropped), or `None` when there is no trace."""
    return without_header(path.read_text(encoding="utf-8")) if path.is_file() else None


def without_header(text: str) -> str:
    """A trace's text without the header `render_trace` writes (the text itself when it has none)."""
    lines = text.splitlines(True)
    return "".join(lines[3:]) if lines and lines[0].startswith(HEADER_PREFIX) else "".join(lines)


TORCH_FILE = "TORCH.txt"
"""The file under the traces folder that names the torch build every trace was blessed with."""


def blessed_torch(traces_dir: Path) -> str | None:
    """The torch version the traces were blessed with, or `None` when it was never recorded."""
    path = traces_dir / TORCH_FILE
    if not path.exists():
        return None
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return next((line for line in lines if line and not line.startswith("#")), None)


def bless_torch(traces_dir: Path, version: str) -> None:
    """Record `version` as the torch build of the traces (atomically)."""
    text = f"# The torch build every trace in this folder was blessed with; written by `{BLESS_COMMAND}`.\n{version}\n"
    write_atomically(traces_dir / TORCH_FILE, text)


@dataclass(frozen=True)
class TraceCheck:
    """The comparison of a fresh output with its committed trace.

    Attributes:
        path: The trace file.
        expected: The committed text, or `None` when there is no trace yet.
        actual: The text the fresh output would commit.
    """

    path: Path
    expected: str | None
    actual: str

    @property
    def ok(self) -> bool:
        """Whether the trace exists and matches."""
        return self.expected == self.actual

    def diff(self, root: Path) -> str:
        """A unified diff from the committed trace to the fresh one."""
        name = str(self.path.relative_to(root)) if self.path.is_relative_to(root) else str(self.path)
        lines = difflib.unified_diff(
            (self.expected or "").splitlines(keepends=True),
            self.actual.splitlines(keepends=True),
            fromfile=f"{name} (committed)",
            tofile=f"{name} (this build)",
        )
        return "".join(lines)


def check_trace(path: Path, actual: str) -> TraceCheck:
    """Compare `actual` with the trace at `path`."""
    expected = path.read_text(encoding="utf-8") if path.exists() else None
    return TraceCheck(path=path, expected=expected, actual=actual)


def bless(check: TraceCheck) -> None:
    """Write the fresh trace (atomically)."""
    if not check.ok:
        write_atomically(check.path, check.actual)


def orphan_traces(traces_dir: Path, held: set[Path]) -> list[Path]:
    """Trace files that no block of any page holds (`held`: the trace paths of every block with an id)."""
    if not traces_dir.exists():
        return []
    lens_records = traces_dir / "lens"  # what other torch releases print: `hood.engine.lens` owns them
    return sorted(p for p in traces_dir.glob("*/**/*.txt") if p not in held and lens_records not in p.parents)
