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


def missing_includes(markdown: str, snippets_dir: Path) -> list[tuple[str, str]]:
    """(block id, include) for every `--8<--` include of an executed block whose file or section is missing."""
    missing = []
    for options, body in executed_blocks(markdown):
        for include in _INCLUDE.findall(body):
            name, _, section = include.partition(":")
            path = snippets_dir / name
            if not path.is_file():
                missing.append((options.get("id", "?"), include))
            elif section and not section.isdigit() and f"[start:{section}]" not in path.read_text(encoding="utf-8"):
                missing.append((options.get("id", "?"), include))
    return missing
