"""Reading a page's Markdown for its executed blocks, before anything runs and without MkDocs.

Includes are expanded by pymdownx.snippets itself, with the same options the site uses, so a block's code is
what markdown-exec receives, and an include pymdownx accepts (sections, line ranges, either quote) is accepted.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import markdown
from pymdownx.snippets import SnippetMissingError

from hood.engine.engine import Block

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?:python|py)\b(?P<options>[^\n]*)$", re.MULTILINE)
_OPTION = re.compile(r"""(\w+)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
_TRUE = {"1", "on", "yes", "true"}


@dataclass(frozen=True)
class PageBlock:
    """An executed block as the page declares it.

    Attributes:
        block: What the engine runs (the id is `""` when the block has none).
        traced: Whether its output is compared with a trace (`trace="off"` turns it off).
    """

    block: Block
    traced: bool


class MissingInclude(ValueError):
    """A `--8<--` include that pymdownx.snippets cannot find."""


def fence_options(line: str) -> dict[str, str]:
    """The `key="value"` options of a fence's opening line (double, single or no quotes)."""
    return {key: next(v for v in values if v) if any(values) else "" for key, *values in _OPTION.findall(line)}


def executed_blocks(text: str) -> list[tuple[dict[str, str], str]]:
    """The options and dedented body of every `python`/`py` fence with `exec="on"`, in page order."""
    blocks = []
    for match in _FENCE.finditer(text):
        options = fence_options(match.group("options"))
        if options.get("exec", "").lower() not in _TRUE:
            continue
        indent, fence = match.group("indent"), match.group("fence")
        closing = re.compile(rf"^{re.escape(indent)}{fence[0]}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        end = closing.search(text, match.end())
        body = text[match.end() + 1 : end.start() if end else len(text)]
        blocks.append((options, textwrap.dedent(body)))
    return blocks


def expand_includes(text: str, snippets_config: dict) -> str:
    """`text` with every `--8<--` include expanded by pymdownx.snippets, configured as in `mkdocs.yml`.

    Raises:
        MissingInclude: with pymdownx's own message, when an include cannot be found.
    """
    md = markdown.Markdown(extensions=["pymdownx.snippets"],
                           extension_configs={"pymdownx.snippets": {**snippets_config, "check_paths": True}})
    try:
        return "\n".join(md.preprocessors["snippet"].run(text.split("\n")))
    except SnippetMissingError as err:
        raise MissingInclude(str(err)) from err


def page_blocks(page: str, text: str, snippets_config: dict) -> list[PageBlock]:
    """The executed blocks of the page `page` (its path inside a language folder), includes expanded."""
    expanded = expand_includes(text, snippets_config)
    return [
        PageBlock(Block(page, options.get("id", ""), body, options.get("session") or None),
                  traced=options.get("trace", "on") != "off")
        for options, body in executed_blocks(expanded)
    ]


def snippets_config(mdx_configs: dict, root: Path) -> dict:
    """pymdownx.snippets' options from a MkDocs `mdx_configs`, with its base paths made absolute."""
    config = dict(mdx_configs.get("pymdownx.snippets", {}))
    config["base_path"] = [str(root / base) for base in config.get("base_path", ["."])]
    return config


def missing_includes(markdown_text: str, bases: list[Path]) -> list[tuple[str, str]]:
    """(block id, include) for every `--8<--` include of an executed block found under none of `bases`."""
    missing = []
    config = {"base_path": [str(b) for b in bases]}
    for options, body in executed_blocks(markdown_text):
        for line in body.splitlines():
            if line.strip().startswith("--8<--"):
                try:
                    expand_includes(line.strip(), config)
                except MissingInclude:
                    missing.append((options.get("id", "?"), line.strip().removeprefix("--8<--").strip().strip("\"'")))
    return missing


_INCLUDE_LINE = re.compile(r"""^[ \t]*--8<--[ \t]+["']([^"':]+)(?::[^"']*)?["'][ \t]*$""", re.MULTILINE)


def included_files(markdown_text: str, bases: list[Path]) -> list[Path]:
    """The files a page includes with `--8<--` lines (whole or by section), as found under `bases`."""
    found = []
    for name in dict.fromkeys(_INCLUDE_LINE.findall(markdown_text)):
        path = next((base / name for base in bases if (base / name).is_file()), None)
        if path is not None:
            found.append(path)
    return found
