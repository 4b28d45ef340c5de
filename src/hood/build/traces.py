"""Committed traces: one human-readable file per executed block, compared with every fresh output."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hood.build.cache import write_atomically

BLESS_COMMAND = "make bless"
HEADER_PREFIX = "# "


def trace_path(traces_dir: Path, page: str, block_id: str) -> Path:
    """`traces/<page without .md>/<block id>.txt`: stable as long as the page path and block id are."""
    return traces_dir / PurePosixPath(page).with_suffix("") / f"{block_id}.txt"


def render_trace(page: str, block_id: str, torch_version: str, normalised: str) -> str:
    """The trace file's text: a header naming the page, the block and the torch that produced it."""
    header = [
        f"{HEADER_PREFIX}page: {page}",
        f"{HEADER_PREFIX}block: {block_id}",
        f"{HEADER_PREFIX}torch: {torch_version}",
        f"{HEADER_PREFIX}normalised output of the block; regenerate with `{BLESS_COMMAND}`",
    ]
    body = normalised if normalised.endswith("\n") or not normalised else normalised + "\n"
    return "\n".join(header) + "\n" + body


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


def orphan_traces(traces_dir: Path, seen: set[Path]) -> list[Path]:
    """Trace files whose block no longer exists."""
    if not traces_dir.exists():
        return []
    return sorted(p for p in traces_dir.rglob("*.txt") if p not in seen)
