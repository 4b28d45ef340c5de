"""Problems a build found, each naming its page, its block and the fix."""

from __future__ import annotations

import logging
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("mkdocs.plugins.hood")


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one block.

    Attributes:
        page: The page's path inside its language folder (or the trace's path for an orphan trace).
        block: The block id (`*` for the whole page).
        kind: `raised`, `drift`, `missing trace`, `no id`, `translation`, `orphan trace`, `not deterministic`.
        fix: What to do, in one sentence (and the traceback for a raising block).
        diff: The unified diff, for drift.
    """

    page: str
    block: str
    kind: str
    fix: str
    diff: str = ""

    def render(self) -> str:
        """A readable paragraph: place, kind, fix, diff."""
        text = f"page {self.page}, block {self.block!r}: {self.kind}: {self.fix}"
        return text + ("\n" + textwrap.indent(self.diff, "    ") if self.diff else "")


@dataclass
class Report:
    """The problems of one build, each reported once whatever the number of languages."""

    check: bool
    problems: dict[tuple[str, str, str], Problem] = field(default_factory=dict)

    def add(self, problem: Problem) -> None:
        """Record a problem (once) and log it as soon as it is found."""
        key = (problem.page, problem.block, problem.kind)
        if key not in self.problems:
            self.problems[key] = problem
            (log.error if self.check else log.warning)(problem.render().splitlines()[0])

    def render(self) -> str:
        """All problems, or an empty string when the build is clean."""
        if not self.problems:
            return ""
        body = "\n\n".join(p.render() for p in self.problems.values())
        return f"{len(self.problems)} problem(s) with executed blocks:\n\n{body}"


_BOX_TITLE = {
    "drift": "This output differs from its committed trace",
    "missing trace": "This output has no committed trace yet",
}


def drift_box(kind: str, trace: Path, diff: str) -> str:
    """Markdown for the warning shown in the page under `mkdocs serve` (check builds fail instead)."""
    body = textwrap.indent(f"Trace `{trace}`. Run `make bless` if the new output is right.\n\n```diff\n{diff}```", "    ")
    return f'\n\n!!! danger "{_BOX_TITLE[kind]}"\n{body}\n'
