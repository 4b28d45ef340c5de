"""Reading a page's Markdown for its executed blocks, before anything runs and without MkDocs.

Includes are expanded by pymdownx.snippets itself, with the same options the site uses, so a block's code is
what markdown-exec receives, and an include pymdownx accepts (sections, line ranges, either quote) is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import markdown
from pymdownx.snippets import SnippetMissingError

from hood.engine.engine import Block
from hood.engine.markdown_source import executed_fences, include_target


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


def executed_blocks(text: str) -> list[tuple[dict[str, str], str]]:
    """The options and dedented body of every `python`/`py` fence with `exec="on"`, in page order."""
    return [(fence.options, fence.body) for fence in executed_fences(text)]


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


def project_snippets_config(root: Path) -> dict:
    """pymdownx.snippets' options as the `mkdocs.yml` of the project at `root` sets them (read by MkDocs' loader,
    which knows its `!ENV` tags)."""
    from mkdocs.utils.yaml import yaml_load

    config = yaml_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    items = [item for item in config.get("markdown_extensions", []) if isinstance(item, dict)]
    return snippets_config({key: value for item in items for key, value in item.items()}, root)


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


def included_files(markdown_text: str, bases: list[Path]) -> list[Path]:
    """The files a page includes with `--8<--` lines (whole or by section), as found under `bases`."""
    found = []
    targets = (include_target(line) for line in markdown_text.split("\n"))
    for name in dict.fromkeys(target[0] for target in targets if target):
        path = next((base / name for base in bases if (base / name).is_file()), None)
        if path is not None:
            found.append(path)
    return found
