"""The MkDocs plugin: hands every `python exec` block to the engine and checks its trace.

It runs after mkdocs-static-i18n in every event, so it sees each language's build, and it acts on the
whole build only once the last language is done.
"""

from __future__ import annotations

import logging
import sys
from functools import partial
from pathlib import Path, PurePosixPath

import markdown_exec
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority

from hood.build import runtime
from hood.build.blocks import missing_includes
from hood.build.engine import Block, Engine
from hood.build.fingerprint import fingerprint, torch_build
from hood.build.report import Problem, Report, drift_box
from hood.build.settings import Settings
from hood.build.traces import BLESS_COMMAND, bless, check_trace, orphan_traces, render_trace, trace_path
from hood.normalize import normalise

log = logging.getLogger("mkdocs.plugins.hood")

LATE = -200
"""Event priority: after mkdocs-static-i18n (-100), which switches the language in its own events."""


class HoodConfig(Config):
    """Options of the `hood` plugin in `mkdocs.yml` (none yet: includes are looked up in pymdownx.snippets' bases)."""


class BuildState:
    """Everything one build (all languages) shares: the engine, the traces seen and the problems found."""

    def __init__(self, settings: Settings, serving: bool) -> None:
        self.settings = settings
        self.serving = serving
        self.torch_version = torch_build()["version"]
        self.engine = Engine(settings, fingerprint(settings.root, settings.pins()))
        self.report = Report(check=settings.check)
        self.traces_seen: dict[Path, str] = {}
        self.language = ""
        self.page = ""
        self.block_count = 0
        self.blocks: dict[str, dict[str, list[str]]] = {}


_state: BuildState | None = None
_serving = False


def _page_path(src_uri: str, language: str) -> str:
    parts = PurePosixPath(src_uri).parts
    return str(PurePosixPath(*parts[1:])) if parts and parts[0] == language else src_uri


def format_python(**options) -> str:
    """markdown-exec's formatter for Python blocks, with the engine as runner.

    A block with the option `trace="off"` (a timing, or a plot of timings) runs once like any other, but its
    output is shown without being compared: measurements are not traces. The option is taken out before
    markdown-exec renders the block's source, which would otherwise carry it into the source fence.
    """
    extra = dict(options.pop("extra", {}))
    traced = extra.pop("trace", "on") != "off"
    return markdown_exec.base_format(language="python", run=partial(run_block, traced=traced), extra=extra, **options)


def run_block(code: str, returncode: int = 0, session: str | None = None, id: str | None = None,  # noqa: A002, ARG001
              *, traced: bool = True, **extra: str) -> str:
    """markdown-exec's `run` for Python: the engine's outcome, with its trace checked unless `traced` is off."""
    state = _state
    if state is None:
        raise PluginError("the hood plugin must be listed in mkdocs.yml after markdown-exec")
    if not state.settings.execute:
        return ""
    state.block_count += 1
    block_id = id or f"block-{state.block_count}"
    if not id:
        state.report.add(Problem(state.page, block_id, "no id", f'give the block an id: ```python exec="on" id="..."'))
    state.blocks[state.language][state.page].append(block_id)
    outcome = state.engine.run(Block(state.page, block_id, code, session or None))
    if outcome.error is not None:
        state.report.add(
            Problem(state.page, block_id, "raised", f"the block raised; fix it or its snippet:\n{outcome.error}")
        )
        raise markdown_exec.ExecutionError(markdown_exec.code_block("python", outcome.error))
    if not traced:
        return outcome.output
    return outcome.output + _compare_with_trace(state, block_id, outcome.output)


def _compare_with_trace(state: BuildState, block_id: str, output: str) -> str:
    path = trace_path(state.settings.traces_dir, state.page, block_id)
    if path in state.traces_seen:
        if state.traces_seen[path] != output:
            state.report.add(Problem(state.page, block_id, "not deterministic", "the same block printed different outputs in one build"))
        return ""
    state.traces_seen[path] = output
    check = check_trace(path, render_trace(state.page, block_id, state.torch_version, normalise(output, root=str(state.settings.root))))
    if check.ok:
        return ""
    rel = path.relative_to(state.settings.root)
    if state.settings.bless:
        bless(check)
        log.info("blessed %s", rel)
        return ""
    kind = "missing trace" if check.expected is None else "drift"
    state.report.add(
        Problem(state.page, block_id, kind, f"trace {rel} differs; if the change is right, run `{BLESS_COMMAND}`",
                diff=check.diff(state.settings.root))
    )
    return drift_box(kind, rel, check.diff(state.settings.root)) if not state.settings.check else ""


def _set_api_locale(config, language: str) -> None:  # noqa: ANN001
    """Make mkdocstrings render this language's labels.

    mkdocstrings reads the locale before mkdocs-static-i18n sets it, and every language's build appends
    one more of its Markdown extensions to the same config: each of them must learn the language.
    """
    for extension in config.markdown_extensions:
        handlers = getattr(extension, "_handlers", None)
        if type(extension).__name__ == "MkdocstringsExtension" and handlers is not None:
            handlers._locale = language  # noqa: SLF001


class HoodPlugin(BasePlugin[HoodConfig]):
    """Executes blocks once per build, compares them with their traces, and fails check builds on problems."""

    def on_startup(self, *, command: str, dirty: bool) -> None:  # noqa: ARG002
        """Remember whether this process serves (drift then warns in the page instead of failing)."""
        global _serving
        _serving = command == "serve"

    @event_priority(LATE)
    def on_config(self, config):  # noqa: ANN001, ANN201
        """Start a build (first language) or switch language; route Python blocks to the engine."""
        global _state
        i18n = config.plugins.get("i18n")
        language = getattr(i18n, "current_language", None) or "en"
        if _state is None or not getattr(i18n, "building", False):
            root = Path(config.config_file_path).parent
            settings = Settings.from_env(root, strict=bool(config.strict))
            if str(root) not in sys.path:  # blocks may import the project's `snippets` package
                sys.path.insert(0, str(root))
            runtime.purge_project_modules()
            runtime.pin_process(settings, str(settings.cache_dir / ("inductor-" + "-".join(settings.pins().values()))))
            _state = BuildState(settings, _serving)
        _state.language = language
        markdown_exec.formatters["python"] = format_python
        markdown_exec.formatters["py"] = markdown_exec.formatters["python"]
        _set_api_locale(config, language)
        return config

    @event_priority(LATE)
    def on_page_markdown(self, markdown: str, *, page, config, files) -> str:  # noqa: ANN001, ARG002
        """Note the page being rendered and check its snippet includes before anything runs."""
        assert _state is not None
        _state.page = _page_path(page.file.src_uri, _state.language)
        _state.block_count = 0
        _state.blocks.setdefault(_state.language, {})[_state.page] = []
        _state.engine.begin_page(_state.page)
        root = Path(config.config_file_path).parent
        bases = config.mdx_configs.get("pymdownx.snippets", {}).get("base_path", ["."])
        missing = missing_includes(markdown, [root / base for base in bases])
        if missing:
            where = " or ".join(f"{base}/" for base in bases)
            lines = [f"  block {bid!r}: {inc!r} not found under {where}" for bid, inc in missing]
            raise PluginError(
                f"page {_state.page} ({_state.language}) includes snippets that do not exist:\n" + "\n".join(lines)
                + "\nCreate the file (or section), or fix the path in the `--8<--` line."
            )
        return markdown

    @event_priority(LATE)
    def on_post_build(self, *, config) -> None:  # noqa: ANN001
        """After the last language: check translations and orphan traces, then report every problem."""
        i18n = config.plugins.get("i18n")
        if getattr(i18n, "building", False) or _state is None:
            return
        state = _state
        if state.settings.execute:
            _check_translations(state)
            _check_orphans(state)
        log.info(
            "hood: %d blocks executed, %d traces checked, torch imported: %s",
            sum(state.engine.executions.values()), len(state.traces_seen), "torch" in sys.modules,
        )
        message = state.report.render()
        if message and state.settings.check:
            raise Abort(message)


def _check_translations(state: BuildState) -> None:
    """Every language must run the same blocks on the same pages."""
    first, *others = sorted(state.blocks)
    for other in others:
        for page in sorted(set(state.blocks[first]) | set(state.blocks[other])):
            ours, theirs = state.blocks[first].get(page, []), state.blocks[other].get(page, [])
            if ours != theirs:
                state.report.add(Problem(
                    page, "*", "translation",
                    f"blocks differ between {first} {ours} and {other} {theirs}: both languages must run the same blocks",
                ))


def _check_orphans(state: BuildState) -> None:
    """A trace no block wrote is stale: bless removes it, a check build reports it."""
    for orphan in orphan_traces(state.settings.traces_dir, set(state.traces_seen)):
        rel = orphan.relative_to(state.settings.root)
        if state.settings.bless:
            orphan.unlink()
            log.info("removed orphan trace %s", rel)
        else:
            state.report.add(Problem(str(rel), "*", "orphan trace", f"no block writes it; run `{BLESS_COMMAND}` to remove it"))
