"""Read the pages as a reader meets them: code boxes with their includes expanded, outputs, admonitions.

`python -m tools.pages [--root DIR]` prints, per page, the lines of code a reader sees and the lines of output
the executed blocks print (from their traces): the figures `tests/test_course.py` bounds.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)$")
_INCLUDE = re.compile(r'^\s*--8<-- "(?P<target>[^"]+)"\s*$')


@dataclass
class Fence:
    """A fenced block of a page: where it starts, its options, its lines, and the admonition it sits in."""

    line: int
    info: str
    lines: list[str]
    container: str  # the `!!!`/`???` line it is indented under, or "" at the top level

    def option(self, name: str) -> str | None:
        match = re.search(rf'\b{name}="([^"]*)"', self.info)
        return match[1] if match else None


def page_lines(language: str, page: str, root: Path = ROOT) -> list[str]:
    """A page's Markdown lines, front matter removed."""
    text = (root / "docs" / language / page).read_text(encoding="utf-8")
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.DOTALL)
    return text.splitlines()


def fences(lines: list[str]) -> list[Fence]:
    """Every fenced block, with the admonition line it is nested in (found by indentation)."""
    found, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match or not match["info"].strip():
            i += 1
            continue
        indent = len(match["indent"])
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```" and
                   len(lines[j]) - len(lines[j].lstrip()) == indent)
        container = ""
        if indent:
            container = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip() and
                              len(lines[k]) - len(lines[k].lstrip()) < indent), "")
        found.append(Fence(i + 1, match["info"].strip(), [line[indent:] for line in lines[i + 1:end]], container))
        i = end + 1
    return found


def _include(target: str, root: Path) -> list[str]:
    name, _, section = target.partition(":")
    path = next(base / name for base in (root / "snippets", root / "src") if (base / name).is_file())
    lines = path.read_text(encoding="utf-8").splitlines()
    if section:
        start = lines.index(f"# --8<-- [start:{section}]")
        lines = lines[start + 1:lines.index(f"# --8<-- [end:{section}]", start)]
    return lines


def shown_code(fence: Fence, root: Path = ROOT) -> list[str]:
    """The lines a reader sees in a code box: includes expanded, hidden lines dropped, blank ends trimmed."""
    lines: list[str] = []
    for line in fence.lines:
        match = _INCLUDE.match(line)
        lines.extend(_include(match["target"], root) if match else [line])
    lines = [line for line in lines if "# markdown-exec: hide" not in line]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def shows_code(fence: Fence) -> bool:
    """Whether the reader sees the fence's code: a plain code fence, or an executed one with `source`."""
    is_python = fence.info.split()[0] in ("python", "py")
    return is_python and ("exec=" not in fence.info or fence.option("source") is not None)


def included(fence: Fence) -> list[str]:
    """The `--8<--` targets of a fence."""
    return [m["target"] for line in fence.lines if (m := _INCLUDE.match(line))]


def output_lines(page: str, block_id: str, root: Path = ROOT) -> int:
    """How many lines a traced block prints (its trace less the three header lines; 0 without a trace)."""
    path = root / "traces" / page.removesuffix(".md") / f"{block_id}.txt"
    return len(path.read_text(encoding="utf-8").splitlines()) - 3 if path.is_file() else 0


def page_figures(page: str, root: Path = ROOT) -> tuple[int, int]:
    """Visible code lines (setup block excluded) and output lines of an English page."""
    found = fences(page_lines("en", page, root))
    code = sum(len(shown_code(f, root)) for f in found if shows_code(f) and f.option("id") != "setup")
    output = sum(output_lines(page, f.option("id"), root) for f in found
                 if "exec=" in f.info and f.option("id") and f.option("html") != "on")
    return code, output


def main() -> None:
    """Print the code and output lines of every page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="a checkout of the project")
    root = parser.parse_args().root
    print(f"{'page':44} {'code':>5} {'output':>7}")
    for path in sorted((root / "docs" / "en").rglob("*.md")):
        page = str(path.relative_to(root / "docs" / "en"))
        code, output = page_figures(page, root)
        print(f"{page:44} {code:5} {output:7}")


if __name__ == "__main__":
    main()
