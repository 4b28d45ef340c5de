"""The one reader of a page's Markdown source: its front matter, its fenced blocks and its `--8<--` include lines.

The engine, the downloads, the tools and the tests all find fences and includes here, so they agree on what a
block is. Expanding an include is left to pymdownx.snippets itself (`hood.engine.blocks.expand_includes`).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from functools import cached_property

FRONT_MATTER = re.compile(r"\A---\n(?P<body>.*?\n)---\n", re.DOTALL)
"""A page's YAML front matter, at its very start."""

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>`{3,}|~{3,})(?P<info>[^\n]*)$")
_OPTION = re.compile(r"""(\w+)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
_INCLUDE = re.compile(
    r"""^[ \t]*--8<--[ \t]+(?P<quote>["'])(?P<path>[^"':]+)(?::(?P<section>[^"']*))?(?P=quote)[ \t]*$""")
TRUE = frozenset({"1", "on", "yes", "true"})
"""The values markdown-exec reads as true in `exec="…"`."""


def without_front_matter(text: str) -> str:
    """`text` without its front matter (unchanged when it has none)."""
    return FRONT_MATTER.sub("", text, count=1)


def fence_options(info: str) -> dict[str, str]:
    """The `key="value"` options of a fence's opening line (double, single or no quotes)."""
    return {key: next(v for v in values if v) if any(values) else "" for key, *values in _OPTION.findall(info)}


@dataclass(frozen=True)
class Fence:
    """A fenced block of a page.

    Attributes:
        start: Index of its opening line in the lines it was read from.
        end: Index of its closing line (the number of lines when the page ends first).
        indent: The opening line's indentation (a fence inside an admonition is indented).
        marker: The opening backticks or tildes.
        info: What follows the marker: language and options.
        raw: Its lines between the fences, as written (indentation kept).
    """

    start: int
    end: int
    indent: str
    marker: str
    info: str
    raw: tuple[str, ...]

    @property
    def language(self) -> str:
        """The info string's first word (`""` for a bare fence)."""
        return self.info.split()[0] if self.info.split() else ""

    @cached_property
    def options(self) -> dict[str, str]:
        """The fence's `key="value"` options."""
        return fence_options(self.info)

    @property
    def executed(self) -> bool:
        """A Python fence that markdown-exec runs (`exec="on"`)."""
        return self.language in ("python", "py") and self.options.get("exec", "").lower() in TRUE

    @property
    def body(self) -> str:
        """Its lines dedented, each ending with a newline."""
        return textwrap.dedent("".join(line + "\n" for line in self.raw))

    @property
    def lines(self) -> list[str]:
        """Its lines with the fence's own indentation removed."""
        cut = len(self.indent)
        return [line[cut:] if line[:cut].strip() == "" else line.lstrip() for line in self.raw]


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return len(stripped) >= len(marker) and set(stripped) == {marker[0]}


def fence_at(lines: list[str], at: int) -> Fence | None:
    """The fence opening at `lines[at]`, or None when that line opens none."""
    opening = _FENCE_OPEN.match(lines[at])
    if not opening or (opening["marker"][0] == "`" and "`" in opening["info"]):
        return None
    marker, end = opening["marker"], at + 1
    while end < len(lines) and not _closes(lines[end], marker):
        end += 1
    return Fence(at, end, opening["indent"], marker, opening["info"].strip(), tuple(lines[at + 1:end]))


def fences(lines: list[str]) -> list[Fence]:
    """Every fenced block of `lines` (a page's, split on newlines), in order; fences never nest."""
    found, at = [], 0
    while at < len(lines):
        fence = fence_at(lines, at)
        if fence is None:
            at += 1
        else:
            found.append(fence)
            at = fence.end + 1
    return found


def executed_fences(text: str) -> list[Fence]:
    """The Python fences markdown-exec runs, in page order."""
    return [fence for fence in fences(text.split("\n")) if fence.executed]


def include_target(line: str) -> tuple[str, str | None] | None:
    """`(path, section)` of an `--8<-- "path"` or `--8<-- "path:section"` line (section None), or None."""
    match = _INCLUDE.match(line)
    return (match["path"], match["section"] or None) if match else None
