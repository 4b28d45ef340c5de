"""Translation freshness: each translated page names the version of the English page it translates.

A translated page carries `translated_from: <hash>` in its front matter, the hash of the English page's text when
the translation was last brought up to date (`make translated PAGE=...` writes it). When the English page changes
afterwards, the hash no longer matches: the check build fails and names the page, with the English diff since the
translated version (found in git history).
"""

from __future__ import annotations

import difflib
import hashlib
import re
import subprocess
from pathlib import Path

from hood.engine.markdown_source import FRONT_MATTER

FIELD = "translated_from"
"""The front-matter field of a translated page."""

MARK_COMMAND = "make translated PAGE={page}"


def english_hash(text: str) -> str:
    """The hash that names one version of an English page (its whole text, trailing spaces ignored)."""
    normal = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normal.encode()).hexdigest()[:16]


def recorded_hash(translated: str) -> str | None:
    """The `translated_from` hash in a translated page's front matter, or `None`."""
    match = FRONT_MATTER.match(translated)
    if not match:
        return None
    field = re.search(rf"^{FIELD}:\s*(\S+)\s*$", match["body"], re.MULTILINE)
    return field.group(1) if field else None


def mark(translated: str, english: str) -> str:
    """`translated` with its front matter saying it translates this version of `english`."""
    line = f"{FIELD}: {english_hash(english)}\n"
    match = FRONT_MATTER.match(translated)
    if not match:
        return f"---\n{line}---\n\n{translated}"
    body = re.sub(rf"^{FIELD}:.*\n", "", match["body"], flags=re.MULTILINE)
    return f"---\n{body}{line}---\n" + translated[match.end():]


def english_diff_since(root: Path, english_path: Path, old_hash: str, current: str) -> str:
    """The diff of the English page from the version whose hash is `old_hash` to `current`, from git history.

    Empty when no committed version has that hash (or git is not available): the page then says so.
    """
    rel = english_path.relative_to(root)
    try:
        revisions = subprocess.run(["git", "log", "--format=%H", "--", str(rel)], cwd=root, capture_output=True,
                                   text=True, check=True).stdout.split()
        for revision in revisions:
            old = subprocess.run(["git", "show", f"{revision}:{rel}"], cwd=root, capture_output=True, text=True,
                                 check=True).stdout
            if english_hash(old) == old_hash:
                return "".join(difflib.unified_diff(old.splitlines(keepends=True), current.splitlines(keepends=True),
                                                    fromfile=f"{rel} (translated)", tofile=f"{rel} (now)"))
    except (OSError, subprocess.CalledProcessError):
        pass
    return ""
