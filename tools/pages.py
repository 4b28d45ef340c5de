"""Read the pages as a reader meets them: code boxes with their includes expanded, outputs, admonitions.

`python -m tools.pages [--root DIR]` prints, per page, the lines of code a reader sees and the lines of output
the executed blocks print (from their traces): the figures `tests/test_course.py` bounds.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hood.engine import markdown_source
from hood.engine.blocks import expand_includes
from hood.engine.blocks import project_snippets_config as _snippets_config
from hood.engine.markdown_source import Fence, include_target, without_front_matter

ROOT = Path(__file__).resolve().parents[1]
project_snippets_config = cache(_snippets_config)
"""pymdownx.snippets' options of a project (read once per project)."""


@dataclass(frozen=True)
class PageFence:
    """A fenced block of a page (`hood.engine.markdown_source.Fence`) and the admonition it sits in.

    Attributes:
        fence: The block as the shared reader found it.
        container: The `!!!`/`???` line it is indented under, or "" at the top level.
    """

    fence: Fence
    container: str

    @property
    def line(self) -> int:
        """Its opening line's number (from 1)."""
        return self.fence.start + 1

    @property
    def info(self) -> str:
        return self.fence.info

    def option(self, name: str) -> str | None:
        return self.fence.options.get(name)


def page_lines(language: str, page: str, root: Path = ROOT) -> list[str]:
    """A page's Markdown lines, front matter removed."""
    return without_front_matter((root / "docs" / language / page).read_text(encoding="utf-8")).splitlines()


def fences(lines: list[str]) -> list[PageFence]:
    """Every fenced block, with the admonition line it is nested in (found by indentation)."""
    found = []
    for fence in markdown_source.fences(lines):
        indent, container = len(fence.indent), ""
        if indent:
            container = next((lines[k].strip() for k in range(fence.start - 1, -1, -1) if lines[k].strip() and
                              len(lines[k]) - len(lines[k].lstrip()) < indent), "")
        found.append(PageFence(fence, container))
    return found


def shown_code(fence: PageFence, root: Path = ROOT) -> list[str]:
    """The lines a reader sees in a code box: includes expanded, hidden lines dropped, blank ends trimmed."""
    text = expand_includes("\n".join(fence.fence.lines), project_snippets_config(root))
    lines = [line for line in text.split("\n") if "# markdown-exec: hide" not in line]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def shows_code(fence: PageFence) -> bool:
    """Whether the reader sees the fence's code: a plain code fence, or an executed one with `source`."""
    return fence.fence.language in ("python", "py") and ("exec" not in fence.fence.options
                                                          or fence.option("source") is not None)


def included(fence: PageFence) -> list[str]:
    """The `--8<--` targets of a fence (`path` or `path:section`)."""
    targets = (include_target(line) for line in fence.fence.lines)
    return [path + (f":{section}" if section else "") for path, section in filter(None, targets)]


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
