"""Problems a build found, each naming its page, its block and the fix; the report a reviewer reads first."""

from __future__ import annotations

import html
import json
import logging
import re
import textwrap
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from hood import interface
from hood.engine.cache import write_atomically
from hood.engine.normalize import RULES

log = logging.getLogger("mkdocs.plugins.hood")


class Kind(StrEnum):
    """Every kind of problem, in the order the report lists them (a member equals its text: `Kind.DRIFT == "drift"`)."""

    RAISED = "raised"
    NO_ID = "no id"
    DUPLICATE_ID = "duplicate id"
    DOWNLOAD = "download"
    TRANSLATION_DIFFERS = "translation differs"
    TRANSLATION_STALE = "translation stale"
    NOT_IN_NAV = "not in nav"
    NAV_UNTRANSLATED = "nav untranslated"
    DRIFT = "drift"
    MISSING_TRACE = "missing trace"
    ORPHAN_TRACE = "orphan trace"
    LENS_STALE = "lens stale"
    LENS_UNEXPLAINED = "lens unexplained"
    TORCH_VERSION = "torch version"

    @property
    def blocks_bless(self) -> bool:
        """Whether a bless must refuse while this problem stands: the set of blocks, or their code, is not known."""
        return self in BLESS_BLOCKERS


KINDS = tuple(Kind)
"""Every kind of problem, in the order the report lists them."""

TRACE_KINDS = {Kind.DRIFT, Kind.MISSING_TRACE}
"""Problems with one block's trace: a bless writes the fresh trace."""

BLESS_BLOCKERS = {Kind.RAISED, Kind.NO_ID, Kind.DUPLICATE_ID, Kind.TRANSLATION_DIFFERS}
"""Problems that make a bless refuse, writing nothing: a block raises, lacks an id, repeats one, or runs other code
in another language."""

REPORT_FILE = "site-report.txt"
REPORT_JSON = "site-report.json"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one block.

    Attributes:
        page: The page's path inside its language folder (or the trace's path for an orphan trace).
        block: The block id (`*` for the whole page).
        kind: Its `Kind` (given as the member or its text).
        fix: What to do, in one sentence (and the traceback for a raising block).
        diff: The unified diff, for drift.
    """

    page: str
    block: str
    kind: Kind
    fix: str
    diff: str = ""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", Kind(self.kind))
        except ValueError:
            raise ValueError(f"unknown problem kind {self.kind!r}; one of {[str(k) for k in Kind]}") from None

    @property
    def where(self) -> str:
        """`page#block`, or the page alone for a problem of the whole page."""
        return self.page if self.block == "*" else f"{self.page}#{self.block}"

    def render(self) -> str:
        """A readable paragraph: place, kind, fix, diff."""
        text = f"page {self.page}, block {self.block!r}: {self.kind}: {self.fix}"
        return text + ("\n" + textwrap.indent(self.diff, "    ") if self.diff else "")


@dataclass
class Report:
    """The problems of one build, each reported once whatever the number of languages.

    Attributes:
        check: Whether problems fail the build (they are logged as errors, else as warnings).
        traced_blocks: How many blocks were compared with a trace (the denominator of the summary).
    """

    check: bool
    traced_blocks: int = 0
    problems: dict[tuple[str, str, str], Problem] = field(default_factory=dict)

    def add(self, problem: Problem) -> None:
        """Record a problem (once) and log it as soon as it is found.

        A check build logs it as information: the build fails at its end with the whole report, whereas an error
        logged in the middle would let `--strict` stop the build of the second language before any report.
        """
        key = (problem.page, problem.block, problem.kind)
        if key not in self.problems:
            self.problems[key] = problem
            (log.info if self.check else log.warning)(problem.render().splitlines()[0])

    def of_kind(self, *kinds: str) -> list[Problem]:
        """The problems of these kinds, in the order they were found."""
        return [p for p in self.problems.values() if p.kind in kinds]

    def summary(self) -> str:
        """First what a reviewer needs: how many blocks changed out of how many, and which."""
        changed = self.of_kind(*TRACE_KINDS)
        lines = [f"{len(changed)} of {self.traced_blocks} traced blocks changed output"]
        lines += [f"  {p.kind:<13} {p.where}" for p in changed]
        others = [p for p in self.problems.values() if p.kind not in TRACE_KINDS]
        if others:
            lines.append(f"{len(others)} other problem(s)")
            lines += [f"  {p.kind:<13} {p.where}" for p in sorted(others, key=lambda p: KINDS.index(p.kind))]
        return "\n".join(lines)

    def as_json(self) -> str:
        """The report as data: the summary counts and every problem (page, block, kind, fix, diff)."""
        ordered = sorted(self.problems.values(), key=lambda p: KINDS.index(p.kind))
        return json.dumps({
            "traced_blocks": self.traced_blocks,
            "changed": len(self.of_kind(*TRACE_KINDS)),
            "problems": [{"page": p.page, "block": p.block, "kind": str(p.kind), "fix": p.fix, "diff": p.diff}
                         for p in ordered],
        }, indent=1, ensure_ascii=False)

    def write(self, root: Path, note: str = "") -> str:
        """Write `site-report.txt` (text, `note` appended) and `site-report.json` (data) under `root`; the text."""
        text = self.render() or self.summary()
        write_atomically(root / REPORT_FILE, text + (f"\n\n{note}" if note else "") + "\n")
        write_atomically(root / REPORT_JSON, self.as_json() + "\n")
        return text

    def render(self) -> str:
        """The summary, then every problem with its fix and diff; an empty string when the build is clean."""
        if not self.problems:
            return ""
        ordered = sorted(self.problems.values(), key=lambda p: KINDS.index(p.kind))
        body = "\n\n".join(p.render() for p in ordered)
        return f"{self.summary()}\n\nDetails:\n\n{body}"


def drift_box(kind: str, trace: str, diff: str, language: str) -> str:
    """HTML of the admonition shown after a drifted output in lenient builds, in the page's language."""
    words = interface.words(language, "drift")
    fix = words["fix"].format(trace=f"<code>{html.escape(trace)}</code>")
    return (
        f'<div class="admonition danger hood-drift"><p class="admonition-title">{html.escape(words[kind])}</p>'
        f"<p>{fix}</p>"
        f'<pre class="hood-diff"><code>{html.escape(diff)}</code></pre></div>'
    )


NORMALISED_TOKEN = re.compile("|".join(sorted({re.escape(token) for rule in RULES
                                                for token in re.findall(r"<[\w-]+>", rule.replacement)})))
"""A placeholder the normaliser's rules write into a trace, which the page's output does not show."""


def lens_box(release: str, torch: str, *, diff: str = "", origin: str = "", error: str | None = None,
             language: str = "en") -> str:
    """HTML of the collapsed box under an output that shows what another release prints, in the page's language."""
    words = interface.words(language, "lens_box")
    title = words["raises" if error else "prints"].format(release=release)
    said = words["error" if error else origin or "release"].format(torch=html.escape(torch))
    body = error if error else diff
    if NORMALISED_TOKEN.search(body):
        said += " " + words["normalised"]
    return (f'<details class="info hood-lens"><summary>{html.escape(title)}</summary><p>{said}</p>'
            f'<pre class="hood-diff"><code>{html.escape(body)}</code></pre></details>')
