"""Reading a page's Markdown for its executed blocks, before anything runs."""

from __future__ import annotations

import re
from pathlib import Path

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})python\b(?P<options>[^\n]*)$", re.MULTILINE)
_OPTION = re.compile(r'(\w+)="([^"]*)"')
_INCLUDE = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.MULTILINE)


def executed_blocks(markdown: str) -> list[tuple[dict[str, str], str]]:
    """The options and body of every `python exec="on"` fenced block, in page order."""
    blocks = []
    for match in _FENCE.finditer(markdown):
        options = dict(_OPTION.findall(match.group("options")))
        if options.get("exec", "").lower() not in {"1", "on", "yes", "true"}:
            continue
        fence = match.group("fence")
        end = markdown.find("\n" + match.group("indent") + fence, match.end())
        blocks.append((options, markdown[match.end() : end if end != -1 else len(markdown)]))
    return blocks


def missing_includes(markdown: str, bases: list[Path]) -> list[tuple[str, str]]:
    """(block id, include) for every `--8<--` include of an executed block found under none of `bases`."""
    missing = []
    for options, body in executed_blocks(markdown):
        for include in _INCLUDE.findall(body):
            if not any(_include_exists(base, include) for base in bases):
                missing.append((options.get("id", "?"), include))
    return missing


def _include_exists(base: Path, include: str) -> bool:
    name, _, section = include.partition(":")
    path = base / name
    if not path.is_file():
        return False
    return not section or section.replace("-", "").replace(",", "").isdigit() or (
        f"[start:{section}]" in path.read_text(encoding="utf-8")
    )
