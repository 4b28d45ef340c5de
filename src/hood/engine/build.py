"""One build of the site, without MkDocs: its shared state, each block run and compared, the whole-site checks, bless.

`hood.mkdocs_plugin` adapts MkDocs' events to these functions; markdown-exec renders the blocks with
`format_python` as its formatter. Everything here can be called, and is tested, without building a site.
"""

from __future__ import annotations

import importlib
import logging
import re
import sys
import textwrap
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import jinja2
import jinja2.bccache
import markdown_exec
from markupsafe import Markup

from hood import glossary, interface
from hood.capture.common import localize
from hood.capture.figure import without_data
from hood.engine import download, lens, normalize, runtime, translations
from hood.engine.blocks import expand_includes, included_files, missing_includes
from hood.engine.cache import write_atomically
from hood.engine.engine import Block, Engine
from hood.engine.fingerprint import fingerprint, torch_build
from hood.engine.report import TRACE_KINDS, Kind, Problem, Report, drift_box, lens_box
from hood.engine.settings import Settings
from hood.engine.traces import (
    BLESS_COMMAND, TORCH_FILE, TraceCheck, bless, bless_torch, blessed_torch, check_trace, orphan_traces,
    render_trace, trace_body, trace_path,
)

log = logging.getLogger("mkdocs.plugins.hood")


class BuildError(Exception):
    """A build cannot go on (a page includes a missing snippet) or a bless refuses; the message says the fix."""


@dataclass
class BuildState:
    """Everything one build (all languages) shares: the engine, the traces checked and the problems found."""

    settings: Settings
    engine: Engine
    report: Report
    torch_version: str
    languages: list[str]
    """The locales this build renders, the default first."""
    language: str = ""
    done: int = 0
    """How many languages have finished."""
    page: str = ""
    page_dir: Path | None = None
    """Where the page being rendered is written (a setup block's file goes next to it)."""
    blocks: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """Block ids per language and page, in page order."""
    checks: dict[Path, TraceCheck] = field(default_factory=dict)
    """The comparison of each traced block with its trace, made once, shown in every language."""
    codes: dict[Path, str] = field(default_factory=dict)
    """The code of each traced block in the first language (a later language must run the same)."""
    held: set[Path] = field(default_factory=set)
    """The trace path of every traced block with an id: a trace outside it is an orphan."""
    reported: bool = False
    """Whether the full report was written (at the end of the last language)."""
    releases: list[lens.Release] = field(default_factory=list)
    """What the traced blocks print under other torch releases (`traces/lens/`), shown under their outputs."""
    recorded: list[lens.LensEntry] = field(default_factory=list)
    """What this build records for the lens (`make lens`), one entry per traced block."""
    dirty_rebuild: bool = False
    """A dirty rebuild under serve, which renders only the pages an edit touched: no whole-site checks."""
    terms: dict[str, list[glossary.Term]] = field(default_factory=dict)
    """The glossary's terms per language (`glossary.yml`)."""

    @classmethod
    def start(cls, settings: Settings, languages: list[str]) -> BuildState:
        """A new build: the engine keyed on everything outputs depend on."""
        engine = Engine(settings, fingerprint(settings.root, settings.pins()))
        terms_file = settings.root / glossary.GLOSSARY_FILE
        terms = glossary.load(terms_file, languages) if terms_file.is_file() else {}
        releases = [] if settings.lens else lens.load(settings.traces_dir / lens.LENS_DIR)
        return cls(settings, engine, Report(check=settings.check), torch_build()["version"], languages, terms=terms,
                   releases=releases)

    @classmethod
    def open(cls, root: Path, languages: list[str], *, serving: bool, **options) -> BuildState:
        """Prepare the process for a build of the project at `root` (pins, import paths, the normaliser as last
        saved) and start it; `options` are the plugin's (`Settings.from_options`)."""
        settings = Settings.from_options(root, serving=serving, **options)
        runtime.prepare_process(settings, root)
        importlib.reload(normalize)  # under serve, an edited normaliser applies at the next build
        try:
            return cls.start(settings, languages)
        except glossary.GlossaryError as exc:
            raise BuildError(f"{exc} (the glossary, next to mkdocs.yml)") from exc

    def rel(self, path: Path) -> str:
        """`path` relative to the project root, as the report and the page show it."""
        return str(path.relative_to(self.settings.root))


def fence_format(source: str, language: str, css_class: str, options: dict, md, *, state: BuildState,
                 **kwargs) -> Markup:
    """SuperFences' `format` for a Python fence: markdown-exec's rendering, the engine as runner."""
    return format_python(state=state, code=source, md=md, **options)


DOWNLOAD_OPTIONS = ("answer", "predict", "requires", "compiles")
"""Fence options that shape a page's downloads (`hood.engine.download`), not its rendering."""


def format_python(*, state: BuildState, **options) -> Markup:
    """markdown-exec's formatter for Python blocks, with the engine as runner.

    A block with the option `trace="off"` (a timing, or a plot of timings) runs once like any other, but its
    output is shown without being compared: measurements are not traces. The option is taken out before
    markdown-exec renders the block's source, which would otherwise carry it into the source fence. A drifted
    output is followed by a danger box in lenient builds, in the page's language. Phrases printed with
    `hood.capture.common.words` are shown in the page's language (the output itself, and its trace, hold all).
    A figure's data, which its trace keeps, is left off the page (`hood.capture.figure.without_data`).
    """
    extra = dict(options.pop("extra", {}))
    traced = extra.pop("trace", "on") != "off"
    for name in DOWNLOAD_OPTIONS:  # for the downloads only: kept out of the source fence markdown-exec writes
        extra.pop(name, None)
    boxes: list[str] = []
    run = partial(run_block, state=state, traced=traced, boxes=boxes)
    offered = options.get("id") == SETUP_ID and options.pop("source", None) is not None
    rendered = markdown_exec.base_format(language="python", run=run, extra=extra, **options)
    head = _offer_as_file(state, options["code"]) if offered else ""
    return Markup(head + localize(without_data(str(rendered)), state.language) + "".join(boxes))


SETUP_ID = "setup"
SETUP_FILE = "setup.py"
"""A setup block's source is offered as a file next to its page instead of a long highlighted box: it holds the
plumbing (capture modules included whole), which a reader runs rather than reads."""


def _offer_as_file(state: BuildState, code: str) -> str:
    """Write a setup block's code next to its page, in the page's language; return the link that replaces its
    source box."""
    assert state.page_dir is not None
    code = f'PAGE_LANGUAGE = "{state.language}"  # what `words` prints\n' + code
    write_atomically(state.page_dir / SETUP_FILE, code)
    link = f'<a href="{SETUP_FILE}" download><code>{SETUP_FILE}</code></a>'
    text = interface.words(state.language, "setup_link").format(
        file=link, name=SETUP_FILE, lines=len(code.splitlines()), torch=state.torch_version.split("+")[0])
    return f'<p class="hood-setup-file" data-search-exclude>{text}</p>'


_TITLE = re.compile(r"^# .*$", re.MULTILINE)


def _offer_downloads(state: BuildState, markdown: str, config: dict) -> str:
    """Write the page's notebook and script (`hood.engine.download`) next to it; offer them under its title."""
    assert state.page_dir is not None
    settings = state.settings
    try:
        files = download.page_downloads(
            state.page, markdown, language=state.language, snippets_config=config,
            pins=download.Pins(settings.threads, settings.inductor_threads, settings.simdlen, settings.cpu_capability),
            torch_version=state.torch_version.split("+")[0],
            normaliser=expand_includes(download.NORMALISER_INCLUDE, config),
            expected=lambda block: trace_body(trace_path(settings.traces_dir, state.page, block)))
    except download.DownloadError as exc:
        state.report.add(Problem(state.page, "*", "download", str(exc)))
        return markdown
    for file in files:
        write_atomically(state.page_dir / file.name, file.text)
    if not files:
        return markdown
    links = download.links_paragraph(files, state.language, state.torch_version.split("+")[0])
    return _TITLE.sub(lambda title: f"{title.group(0)}\n\n{links}\n", markdown, count=1)


def run_block(code: str, returncode: int = 0, session: str | None = None, id: str | None = None,  # noqa: A002
              *, state: BuildState, traced: bool, boxes: list[str], **extra: str) -> str:
    """markdown-exec's `run` for Python: the engine's outcome, with its trace checked unless `traced` is off."""
    if not state.settings.execute:
        return ""
    ids = state.blocks[state.language][state.page]
    block_id = id or f"block-{len(ids) + 1}"
    if not id:
        state.report.add(Problem(state.page, block_id, "no id", 'give the block an id: ```python exec="on" id="..."'))
    elif id in ids:
        state.report.add(Problem(state.page, id, "duplicate id",
                                 "two blocks of this page share this id; give each block its own"))
    ids.append(block_id)
    path = trace_path(state.settings.traces_dir, state.page, block_id)
    if id and traced:  # a `trace="off"` block holds no trace: one left from when it was traced is an orphan
        state.held.add(path)
    outcome = state.engine.run(Block(state.page, block_id, code, session or None))
    if outcome.error is not None:
        if state.settings.lens and id and state.language == state.languages[0]:
            last_line = outcome.error.strip().splitlines()[-1]
            state.recorded.append(lens.LensEntry(state.page, id, lens.code_hash(code), matched=False, error=last_line))
        state.report.add(
            Problem(state.page, block_id, "raised", f"the block raised; fix it or its snippet:\n{outcome.error}")
        )
        raise markdown_exec.ExecutionError(markdown_exec.code_block("python", outcome.error))
    if traced and id:
        boxes.append(_compare_with_trace(state, path, block_id, code, outcome.output))
    return outcome.output


def compare_output(traces_dir: Path, page: str, block_id: str, output: str, root: Path) -> TraceCheck:
    """A block's output against its trace: normalised as every trace is (`root`, the project, becomes `<repo>`).

    The one comparison of the build, bless and the audit (`tools.audit`)."""
    normalised = normalize.normalise(output, root=str(root))
    return check_trace(trace_path(traces_dir, page, block_id), render_trace(page, block_id, normalised))


def _compare_with_trace(state: BuildState, path: Path, block_id: str, code: str, output: str) -> str:
    """Compare once per build; return the drift box (lenient builds only) and the lens boxes for this language."""
    if path not in state.checks:
        state.codes[path] = code
        check = state.checks[path] = compare_output(state.settings.traces_dir, state.page, block_id, output,
                                                    state.settings.root)
        if not check.ok:
            kind = "missing trace" if check.expected is None else "drift"
            fix = (f"no trace {state.rel(path)} yet" if kind == "missing trace" else
                   f"the output differs from trace {state.rel(path)}")
            state.report.add(Problem(state.page, block_id, kind,
                                     f"{fix}; if the output is right, run `{BLESS_COMMAND}`",
                                     diff=check.diff(state.settings.root)))
        if state.settings.lens:
            state.recorded.append(lens.LensEntry(
                state.page, block_id, lens.code_hash(code), matched=check.ok,
                origin="" if check.ok else lens.origin(check.expected or "", check.actual),
                output="" if check.ok else check.actual))
        _check_lens_hashes(state, block_id, code)
    elif state.codes[path] != code:
        state.report.add(Problem(state.page, block_id, "translation differs",
                                 f"the block's code in docs/{state.language}/{state.page} differs from the first "
                                 f"language's: edit docs/{state.language}/{state.page} so that both run the same code"))
    check = state.checks[path]
    boxes = [] if check.ok or state.settings.check or state.settings.bless else [
        drift_box("missing trace" if check.expected is None else "drift", state.rel(path),
                  check.diff(state.settings.root), state.language)]
    for release in state.releases:
        entry = release.entries.get(f"{state.page}#{block_id}")
        if entry is None or entry.matched or entry.code_hash != lens.code_hash(code):
            continue  # the same output, or a stale record (reported once, never shown)
        boxes.append(lens_box(release.release, release.torch_version, origin=release.origin(entry), error=entry.error,
                              diff=lens.diff(check.expected or "", entry.output, release.release, state.language),
                              language=state.language))
    return "".join(boxes)


def _release_page(state: BuildState, marker) -> str:
    """What a release page shows where it says `<!-- lens: X -->`: the lens records of release X, explained."""
    wanted = marker["release"]
    release = next((r for r in state.releases if r.release == wanted), None)
    folder = state.settings.traces_dir / lens.LENS_DIR
    if release is None:
        state.report.add(Problem(state.page, "*", "lens stale", f"no lens records of torch {wanted} in "
                                 f"{state.rel(folder)}: run `{lens.COMMAND.format(version=wanted)}`"))
        return ""
    unexplained = [e.key for e in release.entries.values() if not e.matched
                   and not release.notes.get(e.key, {}).get(state.language)]
    if unexplained:
        state.report.add(Problem(state.page, "*", "lens unexplained",
                                 f"say in {state.language} what changed in torch for {', '.join(unexplained)}, in "
                                 f"{state.rel(folder / lens.NOTES.format(release=wanted))}"))
    return lens.release_page(release, state.settings.traces_dir, state.language, state.settings.root / "docs")


def _check_lens_hashes(state: BuildState, block_id: str, code: str) -> None:
    """A lens record made for other code is stale: the check build fails and names the commands that renew it."""
    stale = [release.release for release in state.releases
             if (entry := release.entries.get(f"{state.page}#{block_id}")) and entry.code_hash != lens.code_hash(code)]
    if stale:
        commands = " and ".join(f"`{lens.COMMAND.format(version=release)}`" for release in stale)
        state.report.add(Problem(state.page, block_id, "lens stale",
                                 f"the records of torch {', '.join(stale)} were made for other code of this block: "
                                 f"run {commands} again"))


def _check_freshness(state: BuildState, recorded: str | None, docs_dir: Path) -> str:
    """A translated page must name the current version of its English page (`recorded`: the version it names);
    returns a box for lenient builds."""
    english_path = docs_dir / state.languages[0] / state.page
    english = english_path.read_text(encoding="utf-8")
    if recorded == translations.english_hash(english):
        return ""
    diff = translations.english_diff_since(state.settings.root, english_path, recorded, english) if recorded else ""
    command = translations.MARK_COMMAND.format(page=state.page)
    what = "names no version of" if recorded is None else "translates an older version of"
    state.report.add(Problem(
        state.page, "*", "translation stale",
        f"docs/{state.language}/{state.page} {what} docs/{state.languages[0]}/{state.page}: bring the translation up "
        f"to date, then run `{command}`" + ("" if diff or recorded is None else " (the older version is not in git)"),
        diff=diff))
    if state.settings.check or state.settings.bless:
        return ""
    stale = interface.words(state.language, "stale")
    title, lead = stale["title"], stale["lead"]
    body = textwrap.indent(f"{lead}\n\n```diff\n{diff or '(?)'}\n```\n\n`{command}`", "    ")
    return f'!!! danger "{title}"\n{body}\n\n'


def _check_translations(state: BuildState) -> None:
    """Every language must run the same blocks on the same pages."""
    first, *others = sorted(state.blocks)
    for other in others:
        for page in sorted(set(state.blocks[first]) | set(state.blocks[other])):
            ours, theirs = state.blocks[first].get(page, []), state.blocks[other].get(page, [])
            if ours != theirs:
                state.report.add(Problem(
                    page, "*", "translation differs",
                    f"docs/{other}/{page} runs blocks {theirs} where docs/{first}/{page} runs {ours}: "
                    f"edit docs/{other}/{page} so that both run the same blocks",
                ))


def _check_torch(state: BuildState) -> None:
    """The traces name the torch they were blessed with once, in `TORCH.txt`: a different torch is one problem."""
    blessed = blessed_torch(state.settings.traces_dir)
    if blessed != state.torch_version and state.checks:
        was = f"with torch {blessed}" if blessed else "without recording their torch"
        state.report.add(Problem(
            f"traces/{TORCH_FILE}", "*", "torch version",
            f"the traces were blessed {was}; this build runs torch {state.torch_version}. The blocks listed as "
            f"changed are those whose output differs under it; if every change is right, run `{BLESS_COMMAND}`",
        ))


def _check_orphans(state: BuildState) -> None:
    """A trace that no block of any page holds is stale: bless removes it, a check build reports it."""
    for orphan in orphan_traces(state.settings.traces_dir, state.held):
        state.report.add(Problem(state.rel(orphan), "*", "orphan trace",
                                 f"no block writes it; run `{BLESS_COMMAND}` to remove it"))


def _bless(state: BuildState) -> None:
    """Write drifted and missing traces and the torch build, remove orphans: all or nothing.

    A bless refuses to touch any trace while a block raises, lacks an id, repeats an id or differs between
    languages, because then the set of blocks is not known and a committed trace could be lost.
    """
    blocking = [p for p in state.report.problems.values() if p.kind.blocks_bless]
    if blocking:
        body = "\n\n".join(p.render() for p in blocking)
        raise BuildError(f"{BLESS_COMMAND} refused: no trace was written or removed, because of {len(blocking)} "
                    f"problem(s):\n\n{body}")
    settings = state.settings
    for problem in state.report.of_kind(*TRACE_KINDS):
        if settings.blesses(problem.where):
            check = state.checks[trace_path(settings.traces_dir, problem.page, problem.block)]
            bless(check)
            log.info("blessed %s", state.rel(check.path))
    if settings.bless_only:  # one page or block: the torch build and orphans are the whole site's business
        left = [p.where for p in state.report.of_kind(*TRACE_KINDS) if not settings.blesses(p.where)]
        if left:
            log.warning("not blessed (outside %s): %s", settings.bless_only, ", ".join(left))
        return
    if blessed_torch(settings.traces_dir) != state.torch_version and state.checks:
        bless_torch(settings.traces_dir, state.torch_version)
        log.info("blessed traces/%s: %s", TORCH_FILE, state.torch_version)
    for orphan in state.report.of_kind("orphan trace"):
        (settings.root / orphan.page).unlink()
        log.info("removed orphan trace %s", orphan.page)



def begin_page(state: BuildState, page: str, page_dir: Path) -> None:
    """Note the page about to be rendered in the current language (`page`: its path inside the language folder)."""
    state.engine.end_page(state.page)
    state.page, state.page_dir = page, page_dir
    state.blocks.setdefault(state.language, {})[state.page] = []
    state.engine.begin_page(state.page)


def prepare_markdown(state: BuildState, markdown: str, *, bases: list[Path], snippets: dict, docs_dir: Path,
                     translated_from: str | None) -> str:
    """A page's Markdown before it renders: includes checked, downloads offered, glossary marked, release records
    filled in, and (a translation) its freshness checked. `translated_from`: the English version it names."""
    missing = missing_includes(markdown, bases)
    if missing:
        where = " or ".join(f"{base.name}/" for base in bases)
        lines = [f"  block {bid!r}: {inc!r} not found under {where}" for bid, inc in missing]
        raise BuildError(
            f"page {state.page} ({state.language}) includes snippets that do not exist:\n" + "\n".join(lines)
            + "\nCreate the file (or section), or fix the path in the `--8<--` line."
        )
    markdown = _offer_downloads(state, markdown, snippets)
    markdown = glossary.with_glossary(markdown, state.terms.get(state.language, []), state.language)
    markdown = lens.RELEASE_MARKER.sub(partial(_release_page, state), markdown)
    if state.language != state.languages[0]:
        return _check_freshness(state, translated_from, docs_dir) + markdown
    return markdown


def check_nav(state: BuildState, unlisted: list[str], titles: list[str], translated: dict) -> None:
    """Every page must be reachable: `unlisted` (pages on no menu, as `docs/<lang>/<page>`) are problems, and so is
    every nav title without a translation in `translated` (the current language's `nav_translations`)."""
    for src_uri in unlisted:
        page = src_uri.split("/", 1)[1] if src_uri.startswith(f"{state.language}/") else src_uri
        state.report.add(Problem(page, "*", Kind.NOT_IN_NAV,
                                 f"docs/{src_uri} is on no menu: add it to `nav` in mkdocs.yml"))
    if state.language == state.languages[0]:
        return
    for title in titles:
        if title not in translated:
            state.report.add(Problem("mkdocs.yml", "*", Kind.NAV_UNTRANSLATED,
                                     f"the nav title {title!r} has no {state.language} translation: add it "
                                     f"to `nav_translations` of {state.language} in mkdocs.yml"))


def finish(state: BuildState) -> str:
    """After the last language: the whole-site checks, the report written, then record the lens, bless, or return
    the report a check build fails with ("" when clean or not a check build)."""
    state.engine.close()
    if state.settings.execute and not state.dirty_rebuild:
        _check_translations(state)
        _check_torch(state)
        _check_orphans(state)
    state.report.traced_blocks = len(state.checks)
    log.info("hood: %d blocks executed, %d traces checked, torch imported: %s",
             sum(state.engine.executions.values()), len(state.checks), "torch" in sys.modules)
    message = state.report.render()
    state.report.write(state.settings.root)
    state.reported = True
    if state.settings.lens:
        folder = lens.write(state.settings.traces_dir / lens.LENS_DIR, state.torch_version, state.recorded)
        log.info("hood: recorded %d blocks under torch %s in %s", len(state.recorded), state.torch_version,
                 state.rel(folder))
    elif state.settings.bless:
        _bless(state)
    elif message and state.settings.check:
        return message
    return ""


def stopped(state: BuildState, error: Exception) -> None:
    """A build stopped before its end: still write the report of what ran, so that a red run can be read."""
    if not state.reported:
        state.report.traced_blocks = len(state.checks)
        state.report.write(state.settings.root,
                           f"The build stopped before checking every page: {type(error).__name__}: {error}")
        state.reported = True


PYTHON_FENCES = ("python", "py")
"""The fence languages whose `exec` blocks the engine runs."""


def route_python_fences(mdx_configs: dict, fence_format) -> None:
    """Make `fence_format` the SuperFences custom fence of `PYTHON_FENCES`, with markdown-exec's validator.

    This is how markdown-exec documents wiring a fence (`custom_fences` with its `validator`); its own plugin
    registers the same fences with its generic formatter, and those entries are replaced here.
    """
    superfences = mdx_configs.setdefault("pymdownx.superfences", {})
    fences = [f for f in superfences.get("custom_fences", []) if f.get("name") not in PYTHON_FENCES]
    fences += [{"name": name, "class": name, "validator": markdown_exec.validator, "format": fence_format}
               for name in PYTHON_FENCES]
    superfences["custom_fences"] = fences


def nav_titles(items) -> list[str]:
    """Every title of a `nav` as written in mkdocs.yml (sections and pages)."""
    titles = []
    for item in items:
        if isinstance(item, dict):
            for title, value in item.items():
                titles.append(title)
                if isinstance(value, list):
                    titles += nav_titles(value)
    return titles


class CompiledTemplates(jinja2.BytecodeCache):
    """Jinja's compiled templates kept in memory; Jinja checks each against its template's source before use."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.compiled:
            bucket.bytecode_from_string(self.compiled[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


def remove_stale_outputs(pages: list[tuple[Path, Path]], shared: list[Path], bases: list[Path]) -> None:
    """Under `mkdocs serve --dirty`, make a page render again when a file it includes, or a `shared` file every page
    carries (the glossary), is newer than its output: that output is removed. `pages`: (source, output) pairs.

    A dirty build renders only the pages whose source is newer than their output.
    """
    for source, output in pages:
        if not output.is_file():
            continue
        text = source.read_text(encoding="utf-8")
        inputs = [*shared, *included_files(text, bases)]
        if any(path.is_file() and path.stat().st_mtime > output.stat().st_mtime for path in inputs):
            output.unlink()
