"""The version lens: what each traced block prints under the torch releases around the pinned one.

`make lens TORCH=2.14.1` runs every block under that release (in a virtualenv of its own) and records, in
`traces/lens/<release>/`, a manifest of every traced block (its code hash, whether its output matched the pinned
trace, its error if it raised) and the normalised output of each block that differs. A normal build never runs
another torch: it reads those records, shows a block's difference under its output, and fails when a record's code
hash no longer matches its block (the record is stale: run the command again).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

LENS_DIR = "lens"
"""The folder under `traces/` that holds one folder per release."""
MANIFEST = "manifest.json"
COMMAND = "make lens TORCH={version}"
_BUILD_ONLY = re.compile(r"cuda|\+cu\d+|cudnn|nccl", re.IGNORECASE)


def code_hash(code: str) -> str:
    """The hash that ties a record to the code of its block."""
    return hashlib.sha256(code.encode()).hexdigest()[:16]


def release_of(torch_version: str) -> str:
    """`2.14.1+cu130` -> `2.14.1`: records are named by release, whatever the build."""
    return torch_version.split("+", 1)[0]


@dataclass(frozen=True)
class LensEntry:
    """One traced block under one release.

    Attributes:
        page: The page's path inside its language folder.
        block_id: The block's id.
        code_hash: `code_hash` of the block's code when it was recorded.
        matched: Whether its normalised output was the pinned trace's.
        error: The last line of its traceback, if it raised.
        origin: For a difference, `build` when every changed line names CUDA (the index's wheels are CUDA builds,
            the pin a CPU build), else `release`.
        output: The normalised output, when it differs (empty otherwise).
    """

    page: str
    block_id: str
    code_hash: str
    matched: bool
    error: str | None = None
    origin: str = ""
    output: str = field(default="", repr=False)

    @property
    def key(self) -> str:
        """`page#block`."""
        return f"{self.page}#{self.block_id}"


def origin(expected: str, actual: str) -> str:
    """`build` when every line that differs between the two outputs names CUDA, else `release`."""
    changed = [line[1:] for line in difflib.unified_diff(expected.splitlines(), actual.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return "build" if changed and all(_BUILD_ONLY.search(line) for line in changed) else "release"


def diff(expected: str, actual: str, release: str) -> str:
    """The unified diff from the pinned output to the release's."""
    return "\n".join(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "pinned", release,
                                          lineterm="", n=1))


@dataclass
class Release:
    """The records of one release."""

    release: str
    torch_version: str
    entries: dict[str, LensEntry]


def write(folder: Path, torch_version: str, entries: list[LensEntry]) -> Path:
    """Write a release's records under `folder` (replacing the old ones whole, never half); return its folder."""
    target = folder / release_of(torch_version)
    staging = Path(tempfile.mkdtemp(dir=folder if folder.exists() else None, prefix=".lens-"))
    manifest = {"torch": torch_version, "blocks": []}
    for entry in sorted(entries, key=lambda e: e.key):
        record = asdict(entry)
        output = record.pop("output")
        if output:
            path = staging / entry.page.removesuffix(".md") / f"{entry.block_id}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(output, encoding="utf-8")
        manifest["blocks"].append(record)
    (staging / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    if target.exists():
        shutil.rmtree(target)
    staging.replace(target)
    return target


def load(folder: Path) -> list[Release]:
    """Every release recorded under `folder`, oldest first."""
    releases = []
    for manifest_file in sorted(folder.glob(f"*/{MANIFEST}")):
        data = json.loads(manifest_file.read_text(encoding="utf-8"))
        entries = {}
        for record in data["blocks"]:
            output_file = manifest_file.parent / record["page"].removesuffix(".md") / f"{record['block_id']}.txt"
            output = output_file.read_text(encoding="utf-8") if output_file.is_file() else ""
            entry = LensEntry(**record, output=output)
            entries[entry.key] = entry
        releases.append(Release(manifest_file.parent.name, data["torch"], entries))
    return sorted(releases, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r.release)))
