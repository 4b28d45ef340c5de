"""What a trace keeps of an output: everything but what changes from run to run or machine to machine.

Readers see the real output; only the committed trace is normalised. Each rule is named and documented
here, and unit-tested on real samples in `tests/test_normalize.py`.
"""

from __future__ import annotations

from hood.capture.figure import figure_data

# --8<-- [start:body]
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """A named regular-expression rewrite."""

    name: str
    pattern: re.Pattern[str]
    replacement: str

    def apply(self, text: str) -> str:
        """Rewrite every match in `text`."""
        return self.pattern.sub(self.replacement, text)


def _rule(name: str, pattern: str, replacement: str, flags: int = 0) -> Rule:
    return Rule(name, re.compile(pattern, flags), replacement)


RULES: tuple[Rule, ...] = (
    _rule("ansi", r"\x1b\[[0-9;]*[A-Za-z]", ""),
    _rule(
        "log-prefix",
        r"^(\[rank\d+\]:)?[IWEVD]\d{4} \d{2}:\d{2}:\d{2}\.\d+ \d+ \S+:\d+\] ",
        "",
        re.MULTILINE,
    ),
    _rule("uuid", r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", "<uuid>"),
    _rule("compiled-fn", r"__compiled_fn_\d+(_[0-9a-f]{8}(_[0-9a-f]{4}){3}_[0-9a-f]{12})?", "__compiled_fn_<n>"),
    _rule("aot-id", r"# AOT ID: \['\d+_(\w+)'\]", r"# AOT ID: ['<n>_\1']"),
    _rule("resume-fn", r"(__resume_at|torch_dynamo_resume_in_\w+?_at)_\d+(_\d+)?", r"\1_<n>"),
    _rule(
        "torch-build-path",
        r"(?:/__w/pytorch/pytorch|/pytorch|/var/lib/jenkins/workspace)/((?:build/)?(?:aten|torch|c10)/[\w/.+-]+?)(?::\d+|(?=\s))",
        r"<torch-src>/\1:<line>",
    ),
    _rule("site-packages", r"/[^\s\"']*?/site-packages/([\w/.+-]+?\.py)(?::\d+)?", r"<site-packages>/\1:<line>"),
    _rule("block-file", r"(?:<[\w./-]+\.md#[\w.-]+>|/tmp/ipykernel_\d+/\d+\.py)(?::\d+)?", "<cell>"),
    _rule("tmp-path", r"/tmp/[\w/.+-]+?(\.py)?(?::\d+)?(?=[\s\"',)]|$)", r"<tmp>\1", re.MULTILINE),
    _rule("python-line", r'(File "[^"]+", line )\d+', r"\1<line>"),
    _rule("address", r"\b0x[0-9a-fA-F]{6,}\b", "0x<addr>"),
    _rule("pointer", r"\b(data_ptr|storage_ptr|ptr|id)([=:]\s*)\d{6,}\b", r"\1\2<ptr>"),
    _rule("hash", r"\b[0-9a-z]{52}\b|\b[0-9a-f]{40,64}\b", "<hash>"),
    _rule("duration", r"\b\d+(\.\d+)?\s?(ns|us|µs|ms|s)\b", "<time>"),
    _rule("percentage", r"-?\b\d+(\.\d+)?%", "<pct>"),
    _rule("trailing-space", r"[ \t]+$", "", re.MULTILINE),
)
"""The rules, applied in this order (ANSI first, so that colour codes never split a match)."""


_PROFILER_RULE = re.compile(r"^-{3,}(?:\s+-{3,})+\s*$")


def _profiler_columns(rule_line: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule_line)]


def normalise_profiler_table(text: str) -> str:
    """Keep a profiler table's names, shapes and call counts, rows sorted by name.

    `prof.key_averages().table()` sorts rows by time and fills columns with times and percentages that
    differ on every run. What a trace can compare is which ops ran, with which shapes, how many times.
    """
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not (_PROFILER_RULE.match(lines[i]) and i + 2 < len(lines) and _PROFILER_RULE.match(lines[i + 2])):
            out.append(lines[i])
            i += 1
            continue
        spans = _profiler_columns(lines[i])
        header = [lines[i + 1][a:b].strip() for a, b in spans]
        keep = [k for k, h in enumerate(header) if h in {"Name", "# of Calls", "Input Shapes"}]
        rows, j = [], i + 3
        while j < len(lines) and not _PROFILER_RULE.match(lines[j]):
            cells = [lines[j][a:b].strip() for a, b in spans]
            rows.append(" | ".join(cells[k] for k in keep))
            j += 1
        out.append("profiler table: " + " | ".join(header[k] for k in keep))
        out.extend(sorted(rows))
        i = j + 1
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def normalise_text(text: str) -> str:
    """Apply the profiler-table rewrite, then every rule of `RULES` (what a page's download compares with)."""
    text = RULES[0].apply(text)
    text = normalise_profiler_table(text)
    for rule in RULES[1:]:
        text = rule.apply(text)
    return text
# --8<-- [end:body]


def normalise(text: str, root: str | None = None) -> str:
    """Keep each figure's data only, `root` (the project path) as `<repo>`, then `normalise_text`."""
    text = figure_data(text)
    if root:
        text = text.replace(root.rstrip("/"), "<repo>")
    return normalise_text(text)
