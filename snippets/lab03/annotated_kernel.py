"""Lab 03, part D as a figure: the wrapper and the kernel with line numbers, and each note of the annotation
pointing at the lines its checks matched."""

from hood.capture.common import words
from hood.capture.compile import InductorOutput
from hood.capture.figure import figure
from snippets.lab03.kernel_annotation import ANNOTATION, KERNEL, evaluate

# --8<-- [start:body]
import re
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Note:
    """One claim of the annotation, placed: the lines of the wrapper and of the kernel its checks matched.

    Attributes:
        number: Its number in the annotation (the page refers to "claim 3").
        title: The claim's title, in every language (`words`).
        text: The claim, in every language.
        lines: Line numbers (from 1) by listing, `wrapper` and `kernel`, that its checks matched.
        holding: How many of its checks hold, out of `checks`.
        checks: How many checks it has.
    """

    number: int
    title: str
    text: str
    lines: dict[str, list[int]]
    holding: int
    checks: int


def listing(head_code: InductorOutput, where: str) -> list[str]:
    """The lines of the wrapper's `call` or of the kernel, as the page prints them (line 1 first)."""
    return (head_code.kernels[KERNEL] if where == "kernel" else head_code.call).rstrip("\n").splitlines()


def matched_lines(check, head_code: InductorOutput) -> list[int]:
    """The numbers of the lines of `check.where` that its pattern matches (the lines `evaluate` counts)."""
    return [i for i, line in enumerate(listing(head_code, check.where), 1) if re.search(check.pattern, line.strip())]


def place_notes(head_code: InductorOutput) -> list[Note]:
    """Every claim of the annotation with the lines its checks matched and how many of them hold."""
    notes = []
    for number, claim in enumerate(ANNOTATION, 1):
        lines = {"wrapper": set(), "kernel": set()}
        for check in claim.checks:
            lines[check.where].update(matched_lines(check, head_code))
        holding = sum(evaluate(check, head_code)[0] for check in claim.checks)
        notes.append(Note(number, claim.title, claim.text, {k: sorted(v) for k, v in lines.items()},
                          holding, len(claim.checks)))
    return notes


def spans(numbers: list[int]) -> str:
    """Line numbers with runs joined: `[12, 13, 14, 20]` gives `12–14, 20`."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}\u2013{r[-1]}" for r in runs)


def _code(lines: list[str], marked: set[int]) -> str:
    width = len(str(len(lines)))
    rows = []
    for i, line in enumerate(lines, 1):
        row = f'<span class="linenos" data-linenos="{i:>{width}} "></span>{escape(line)}\n'
        rows.append(f'<span class="hll">{row}</span>' if i in marked else row)
    return f'<div class="highlight"><pre><span></span><code>{"".join(rows)}</code></pre></div>'


def _where(note: Note) -> str:
    said = []
    for where in ("wrapper", "kernel"):
        numbers = note.lines[where]
        if numbers:
            lines = words(en="line" if len(numbers) == 1 else "lines", es="línea" if len(numbers) == 1 else "líneas")
            said.append(f"{where}, {lines} {spans(numbers)}")
    return "; ".join(said)


def _verdict(note: Note) -> str:
    held, checks = note.holding, note.checks
    if held == checks == 1:
        return words(en="Its one check holds.", es="Se cumple su única comprobación.")
    if held == checks == 2:
        return words(en="Both its checks hold.", es="Se cumplen sus 2 comprobaciones.")
    if held == checks:
        return words(en=f"All {checks} of its checks hold.", es=f"Se cumplen sus {checks} comprobaciones.")
    es = ("No se cumple su única comprobación." if checks == 1 else
          f"No se cumple ninguna de sus {checks} comprobaciones." if held == 0 else
          f"Solo se cumple 1 de sus {checks} comprobaciones." if held == 1 else
          f"Solo se cumplen {held} de sus {checks} comprobaciones.")
    return words(en=f"Only {held} of its {checks} checks hold.", es=es)


def _inline_code(text: str) -> str:
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text))


def annotated_kernel_html(head_code: InductorOutput, notes: list[Note]) -> str:
    """The wrapper and the kernel, numbered, every line a note points at highlighted; then the notes."""
    parts = []
    headings = {"wrapper": words(en="The wrapper's <code>call(args)</code>",
                                 es="El <code>call(args)</code> del wrapper"),
                "kernel": words(en=f"The kernel <code>{KERNEL}</code>", es=f"El kernel <code>{KERNEL}</code>")}
    for where, heading in headings.items():
        marked = {n for note in notes for n in note.lines[where]}
        parts.append(f"<p><strong>{heading}</strong></p>" + _code(listing(head_code, where), marked))
    items = []
    for note in notes:
        items.append(f"<p><strong>{note.number}. {escape(note.title)}</strong> ({_where(note)}). "
                     f"{_inline_code(note.text)} <em>{_verdict(note)}</em></p>")
    parts.append("".join(items))
    label = words(en=f"The wrapper and the kernel {KERNEL}, numbered, with the notes of the annotation",
                  es=f"El wrapper y el kernel {KERNEL}, numerados, con las notas de la anotación")
    return (f'<div class="hood-annotated" role="group" aria-label="{escape(label)}" style="text-align:left">'
            f'{"".join(parts)}</div>')


def notes_data(notes: list[Note]) -> str:
    """The notes as text: number, title (in every language), lines by listing, checks holding (what a trace keeps)."""
    def held(n: Note) -> str:
        return words(en=f"{n.holding}/{n.checks} checks hold", es=f"{n.holding}/{n.checks} comprobaciones cumplidas")
    return "\n".join(f"{n.number}. {n.title}: wrapper {n.lines['wrapper'] or '-'}, "
                     f"kernel {n.lines['kernel'] or '-'}; {held(n)}" for n in notes)


def show_annotated_kernel(head_code: InductorOutput) -> list[Note]:
    """Print the annotated listing as a figure; return its notes."""
    notes = place_notes(head_code)
    print(figure(annotated_kernel_html(head_code, notes), notes_data(notes),
                 words(en="Line numbers count from the first line of each listing; a highlighted line is one that a "
                          "check of a note matched.",
                       es="Los números de línea cuentan desde la primera línea de cada listado; una línea resaltada "
                          "es una que cumplió alguna comprobación de una afirmación.")))
    return notes
# --8<-- [end:body]
