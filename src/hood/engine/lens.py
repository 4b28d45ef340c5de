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

import yaml

from hood import interface
from hood.capture.common import localize
from hood.capture.figure import FIGURE_MARK
from hood.engine.traces import trace_body, without_header

LENS_DIR = "lens"
"""The folder under `traces/` that holds one folder per release."""
MANIFEST = "manifest.json"
COMMAND = "make lens TORCH={version}"
# What only a CUDA build prints; not `AutogradCUDA`, whose row for the ops the pages dump (add, mm) shows the same
# autograd kernel in either build (not for every op: see the release pages).
_BUILD_ONLY = re.compile(r"(?<!autograd)cuda|\+cu\d+|cudnn|nccl", re.IGNORECASE)


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
            the pin a CPU build), `both` when some do and some do not, else `release`.
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
    """`build` when every line that differs between the two outputs names CUDA (`AutogradCUDA` aside), `both` when
    some do, else `release`."""
    changed = [line[1:] for line in difflib.unified_diff(expected.splitlines(), actual.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    cuda = sum(1 for line in changed if _BUILD_ONLY.search(line))
    return "release" if not cuda else "build" if cuda == len(changed) else "both"



_TABLE_ROW = re.compile(r"^\|.*\|$")
_TABLE_RULE = re.compile(r"^\|(\s*:?-+:?\s*\|)+$")


def _cells(row: str) -> list[str]:
    """A Markdown table row's cells as the page shows them: trimmed, without the backticks of code."""
    return [cell.strip().replace("`", "") for cell in row.strip()[1:-1].split("|")]


def as_text_tables(*outputs: list[str]) -> list[list[str]]:
    """The outputs' lines with every Markdown table row written as the page shows it, its cells in columns aligned
    across all the outputs (so a diff pairs them), and the `|---|` rule dropped."""
    widths: list[int] = []
    for row in (line for lines in outputs for line in lines if _TABLE_ROW.match(line) and not _TABLE_RULE.match(line)):
        for column, cell in enumerate(_cells(row)):
            widths[len(widths):] = [0] * (column + 1 - len(widths))
            widths[column] = max(widths[column], len(cell))

    def text(row: str) -> str:
        return "   ".join(cell.ljust(width) for cell, width in zip(_cells(row), widths)).rstrip()

    return [[text(line) if _TABLE_ROW.match(line) else line for line in lines if not _TABLE_RULE.match(line)]
            for lines in outputs]


def diff(expected: str, actual: str, release: str, language: str = "en") -> str:
    """The unified diff from the pinned output to the release's, both as a page in `language` shows them: no trace
    header, a table as its aligned cells (`as_text_tables`), and a figure as the data it is drawn from under a line
    that says so in `language`."""
    words = interface.words(language, "lens_page")

    def shown(output: str) -> list[str]:
        lines = localize(without_header(output), language).splitlines()
        return [words["figure"] if line == FIGURE_MARK else line for line in lines]

    before, after = as_text_tables(shown(expected), shown(actual))
    return "\n".join(difflib.unified_diff(before, after, words["pinned"], f"torch {release}", lineterm="", n=1))


@dataclass
class Release:
    """The records of one release, and the maintainers' notes on them (`NOTES`)."""

    release: str
    torch_version: str
    entries: dict[str, LensEntry]
    notes: dict[str, dict[str, str]] = field(default_factory=dict)

    def origin(self, entry: LensEntry) -> str:
        """Where a difference comes from: the note's `origin` when a maintainer set one, else the recorded guess."""
        return self.notes.get(entry.key, {}).get("origin") or entry.origin


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
        name = manifest_file.parent.name
        releases.append(Release(name, data["torch"], entries, load_notes(folder, name)))
    return sorted(releases, key=lambda r: tuple(int(p) for p in re.findall(r"\d+", r.release)))


RELEASE_MARKER = re.compile(r"<!-- lens: (?P<release>[\w.]+) -->")
"""Where a release page shows what changes under that release (`release_page`)."""
NOTES = "notes-{release}.yml"
"""Next to the release folders: one sentence per differing block, per language, saying what changed in torch."""

def page_title(markdown: str) -> str:
    """A page's title: its first `# ` heading, without an attribute list (`{#id}`)."""
    heading = next((line for line in markdown.splitlines() if line.startswith("# ")), "# ")
    return re.sub(r"\s*\{[^}]*\}\s*$", "", heading[2:]).strip()


def release_page(release: Release, traces_dir: Path, language: str, docs_dir: Path | None = None) -> str:
    """The Markdown of a release page: the count of blocks that did not change, then each one that did, with a link
    to its page (titled as `docs_dir/<language>/` titles it), the sentence of the release's notes that explains it
    and its diff from the pinned trace."""

    def link(page: str) -> str:
        path = docs_dir / language / page if docs_dir else None
        title = page_title(path.read_text(encoding="utf-8")) if path and path.is_file() else page
        return f"[{title}](../{page})"

    notes = release.notes
    words = interface.words(language, "lens_page")
    entries = sorted(release.entries.values(), key=lambda e: e.key)
    differ = [e for e in entries if not e.matched]
    raising = sum(1 for e in differ if e.error)
    lines = [words["count"].format(same=len(entries) - len(differ), total=len(entries), torch=release.torch_version,
                                   differ=len(differ) - raising,
                                   raising=words["raising"][raising > 0].format(n=raising)), ""]
    for entry in differ:
        lines += [f"### `{entry.key}`", "", f"{link(entry.page)}. "
                  + words["origin_" + (release.origin(entry) or "release")] + " "
                  + notes.get(entry.key, {}).get(language, ""),
                  ""]
        if entry.error:
            lines += [words["raises"].format(release=release.release), "", "```text", entry.error, "```", ""]
        else:
            expected = trace_body(traces_dir / entry.page.removesuffix(".md") / f"{entry.block_id}.txt") or ""
            lines += ["```diff", diff(expected, entry.output, release.release, language), "```", ""]
    return "\n".join(lines)


def load_notes(folder: Path, release: str) -> dict[str, dict[str, str]]:
    """The explaining sentences of a release (`notes-<release>.yml`), by `page#block` and language."""
    path = folder / NOTES.format(release=release)
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}
