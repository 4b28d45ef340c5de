"""The authoring cache: one JSON file per block key, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Outcome:
    """What running a block produced.

    Attributes:
        output: Everything the block printed, unnormalised (what readers see).
        error: The formatted traceback if the block raised, else `None`.
    """

    output: str
    error: str | None = None


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` so that a reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # readable like any file the build writes (mkstemp makes it private)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


MAX_AGE = 14 * 24 * 3600.0
"""How long an entry no build has used is kept: two weeks of an author's edits, then it goes."""


class BlockCache:
    """Outcomes on disk, keyed by block key; an unreadable entry is a miss."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory / "blocks"

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Outcome | None:
        """The stored outcome, or `None` when absent or corrupt; a hit marks the entry as used now."""
        path = self._path(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            os.utime(path)
            return Outcome(output=data["output"], error=data["error"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def evict(self, max_age: float = MAX_AGE) -> int:
        """Remove the entries no build has used for `max_age` seconds; return how many."""
        now, removed = time.time(), 0
        for path in self.directory.glob("*/*.json") if self.directory.is_dir() else []:
            try:
                if now - path.stat().st_mtime > max_age:
                    path.unlink()
                    removed += 1
            except OSError:
                continue  # another build removed or replaced it
        return removed

    def put(self, key: str, outcome: Outcome) -> None:
        """Store an outcome atomically."""
        write_atomically(self._path(key), json.dumps(asdict(outcome)))
