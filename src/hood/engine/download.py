"""A page as a download: a Jupyter notebook and a script, in the page's language, that run with torch alone.

The page's Markdown is read as a reader meets it: prose becomes Markdown cells (admonitions as bold titles), every
executed block a code cell with its includes expanded, in order. A first cell sets the page's language and the
state every block started from when the site was built (ISA, threads, Inductor's vector width, seeds), so that a
download prints what the page shows.

A lab comes as two notebooks. The solutions notebook is the page. The learner's notebook leaves out what a
`??? success` box says and replaces each block there by an answer cell (stubs of the functions and classes the
block defines, or of those its `answer="f,g"` option names; `answer="none"` for a demonstration, given whole) and
a check cell, which runs the rest of the block (the calls) and compares what it prints with the block's trace
(runs of spaces inside a line count as one, so an aligned column's width does not matter): right, wrong with a
diff, or not done yet (also when it differs while an earlier answer is still a stub). Later
blocks of the lab go through the same check, since they may call the learner's answers.

A block with the option `predict="NAME"` (a self-check question) is preceded by a cell `NAME_prediction = None`
for the reader's guess and followed by one that compares the guess with the `NAME` the block computed.

Nothing here imports MkDocs; `hood.mkdocs_plugin` calls `page_downloads` once per page and language.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from hood import interface
from hood.capture.common import localize
from hood.engine.blocks import expand_includes
from hood.engine.fingerprint import PROJECT_PACKAGES
from hood.engine.markdown_source import fence_at, without_front_matter

_ADMONITION = re.compile(r'^(?P<marker>!!!|\?\?\?\+?)[ \t]+(?P<kind>[\w-]+)(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$')
_TAB = re.compile(r'^===\+?[ \t]+"(?P<title>[^"]*)"[ \t]*$')
_HEADING_ATTRS = re.compile(r"[ \t]*\{[#.:][^}]*\}[ \t]*$", re.MULTILINE)
_PAGE_LINK = re.compile(r"\[([^\]]+)\]\((?!https?:)[^)\s]*\.md(?:#[^)\s]*)?\)")
_ANCHOR_LINK = re.compile(r"\[([^\]]+)\]\(#[^)\s]*\)")
NORMALISER_INCLUDE = '--8<-- "hood/engine/normalize.py:body"'
"""The normalisation the traces go through, included in a learner's notebook for its checks."""
SOLUTION_KIND = "success"
"""The admonition kind of a lab's solution boxes (`??? success "Solution"`)."""

KIND_MARKS = {"warning": "⚠️ ", "question": "❓ ", "success": "✅ ", "tip": "💡 ", "note": "ℹ️ ", "info": "ℹ️ ",
              "abstract": "📋 ", "example": "🧩 ", "danger": "⛔ "}
"""What a notebook shows before an admonition's title, by kind."""

TEXT = {language: table["download"] for language, table in interface.TABLES.items()}
"""The download's phrases by language (`hood.interface`)."""
"""The words a download adds, per language."""


@dataclass(frozen=True)
class Pins:
    """The state the site's blocks run from (`hood.engine.settings.Settings`), restated in a download's first cell."""

    threads: int = 2
    inductor_threads: int = 2
    simdlen: int = 256
    cpu_capability: str = "avx2"


@dataclass
class Prose:
    """Markdown of the page, as a notebook shows it."""

    text: str
    boxes: tuple[str, ...] = ()
    """The kinds of the admonitions it sits in, outermost first."""


@dataclass
class Code:
    """An executed block: its options and its code with includes expanded."""

    options: dict[str, str]
    code: str
    boxes: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.options.get("id", "")

    @property
    def traced(self) -> bool:
        return self.options.get("trace", "on") != "off"


@dataclass
class Cell:
    """A notebook cell: `markdown` or `code`; `role` says what the build made it for (tests read it)."""

    kind: str
    source: str
    role: str = ""
    block: str = ""
    metadata: dict = field(default_factory=dict)


class DownloadError(ValueError):
    """A page that cannot be turned into a download (the message names the page, the block and the fix)."""


def read_page(text: str, snippets_config: dict) -> list[Prose | Code]:
    """The page's prose and executed blocks in order, admonitions unwrapped, includes expanded."""
    return _read(without_front_matter(text).split("\n"), (), snippets_config)


def _read(lines: list[str], boxes: tuple[str, ...], config: dict) -> list[Prose | Code]:
    items: list[Prose | Code] = []
    prose: list[str] = []

    def flush() -> None:
        if "".join(prose).strip():
            items.append(Prose("\n".join(prose).strip("\n"), boxes))
        prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        box, tab, fence = _ADMONITION.match(line), _TAB.match(line), fence_at(lines, i)
        if box or tab:
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1
            kind = box["kind"] if box else "tab"
            title = (box["title"] if box else tab["title"]) or kind.capitalize()
            flush()
            items.append(Prose(f"**{KIND_MARKS.get(kind, '')}{title}**", (*boxes, kind)))
            items += _read(textwrap.dedent("\n".join(lines[i + 1:j])).split("\n"), (*boxes, kind), config)
            i = j
        elif fence:
            if fence.executed:
                flush()
                code = expand_includes("\n".join(fence.raw), config).strip("\n") + "\n"
                items.append(Code(fence.options, code, boxes))
            else:
                prose += [fence.marker + fence.language, *fence.raw, fence.marker]
            i = fence.end + 1
        else:
            prose.append(line)
            i += 1
    flush()
    return items


def prose_markdown(text: str) -> str:
    """Markdown a notebook renders: no heading anchors or attribute lists; links to other pages as plain text."""
    text = _HEADING_ATTRS.sub("", text)
    text = _PAGE_LINK.sub(r"*\1*", text)
    return _ANCHOR_LINK.sub(r"\1", text)


def state_cell(language: str, pins: Pins) -> str:
    """The first code cell: the page's language, then the pins and seeds every block of the site started from."""
    note = textwrap.fill(TEXT[language]["state"], 116, initial_indent="# ", subsequent_indent="# ")
    return f'''{note}
PAGE_LANGUAGE = "{language}"
import os
os.environ["ATEN_CPU_CAPABILITY"] = "{pins.cpu_capability}"
os.environ["OMP_NUM_THREADS"] = "{pins.threads}"
import random
import torch
import torch._inductor.config

torch._inductor.config.cpp.simdlen = {pins.simdlen}
torch._inductor.config.cpp.threads = {pins.inductor_threads}


def known_state(*_):
    """Seeds and threads as each block of the site found them."""
    random.seed(0)
    torch.manual_seed(0)
    torch.set_num_threads({pins.threads})


import ast


class WholeCell(ast.NodeTransformer):
    """Compile a cell as one unit, as Python compiles a script or a block of the site. IPython compiles a cell
    statement by statement, and CPython 3.11 then emits other bytecode for `torch.softmax(...)` inside a function
    (LOAD_METHOD instead of LOAD_ATTR after `LOAD_GLOBAL NULL + torch`), which Dynamo's pages show."""

    def visit_Module(self, node):
        if node.body and not any(isinstance(n, ast.ImportFrom) and n.module == "__future__" for n in node.body):
            node.body = [ast.If(test=ast.Constant(True), body=node.body, orelse=[])]
        return ast.fix_missing_locations(node)


try:
    get_ipython().events.register("pre_run_cell", known_state)  # every cell, as every block on the site
    get_ipython().ast_transformers.append(WholeCell())
except NameError:  # a script: it calls known_state() before each block
    pass
known_state()
'''


def checks_cell(language: str, torch_version: str, normaliser: str) -> str:
    """The cell that defines `check_answer` and `check_prediction`, with the normalisation the traces went through."""
    words = TEXT[language]
    note = textwrap.fill(words["checks"].format(torch=torch_version), 116, initial_indent="# ",
                         subsequent_indent="# ")
    return f'''{note}
import contextlib
import difflib
import inspect
import io
import re

{normaliser.strip()}


def unanswered():
    """The functions of this notebook still as their answer cells left them (a docstring and a raise)."""
    return sorted(name for name, value in globals().items() if inspect.isfunction(value)
                  and value.__code__.co_names == ("NotImplementedError",))


def spaced(text):
    """`text` with each run of spaces inside a line as one space: the width of a column is not part of an answer."""
    return re.sub(r"(?<=\\S)[ \\t]+", " ", text)


def check_answer(block, code, expected=None):
    """Run `code` (it calls your answer), show what it prints, and compare that with the real output."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(code, globals())
    except NotImplementedError:
        print(printed.getvalue(), end="")
        print(f"{{block}}: {words["not_done"]}")
        return
    except NameError as missing:
        print(f"{{block}}: " + {words["needs"]!r}.format(name=missing.name))
        return
    except Exception as error:  # a wrong answer may raise anything
        print(printed.getvalue(), end="")
        print(f"{{block}}: {words["raised"]} {{type(error).__name__}}: {{error}}")
        return
    print(printed.getvalue(), end="")
    if expected is None:
        print(f"{{block}}: {words["timing"]}")
        return
    mine, real = normalise_text(printed.getvalue()).strip(), expected.strip()
    if spaced(mine) == spaced(real):
        print(f"{{block}}: {words["right"]}")
    elif unanswered():
        print(f"{{block}}: " + {words["needs"]!r}.format(name=", ".join(unanswered())))
    else:
        print(f"{{block}}: {words["wrong"]}")
        print("\\n".join(difflib.unified_diff(real.splitlines(), mine.splitlines(), lineterm="", n=1)))


def check_prediction(name, guess, real):
    """Compare your prediction with what torch computed."""
    if guess is None:
        print(f"{{name}}: {words["not_done"]}")
    elif guess == real or (isinstance(real, (tuple, list)) and isinstance(guess, (tuple, list))
                           and tuple(guess) == tuple(real)) or (
            isinstance(real, str) and str(guess).strip() == real.strip()):
        print(f"{{name}}: " + {words["predicted_right"]!r}.format(real=real))
    else:
        print(f"{{name}}: " + {words["predicted_wrong"]!r}.format(guess=guess, real=real))
'''


def split_answer(code: str, names: set[str] | None, where: str, whole: bool = False) -> tuple[str, str]:
    """(stubs of the learner's definitions, the rest of the block): the learner's are the top-level functions and
    classes named in `names`, or all of them when `names` is None. `whole`: the definitions themselves, not stubs."""
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        raise DownloadError(f"{where}: the block does not parse ({error}); fix its code") from error
    lines = code.split("\n")
    answers = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
               and (names is None or node.name in names)]
    if names is not None and (unknown := names - {node.name for node in answers}):
        raise DownloadError(f"{where}: answer names {sorted(unknown)}, which the block does not define at top "
                            "level; fix the fence's `answer` option")
    taken: set[int] = set()
    stubs = []
    for node in answers:
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        taken.update(range(first - 1, node.end_lineno))
        stubs.append("\n".join(lines[first - 1:node.end_lineno]) if whole else _stub(node, lines))
    rest = "\n".join(line for k, line in enumerate(lines) if k not in taken)
    return "\n\n\n".join(stubs), re.sub(r"\n{3,}", "\n\n", rest).strip("\n")


def _stub(node: ast.FunctionDef | ast.ClassDef, lines: list[str], method: bool = False) -> str:
    """The header, docstring and `raise NotImplementedError` of a definition (each method's, for a class).

    A method keeps its decorators (`@staticmethod` is structure); a top-level definition loses them (a decorator
    such as `@torch.library.custom_op(...)` is part of the answer).
    """
    decorators = "".join(f"@{ast.unparse(d)}\n" for d in node.decorator_list) if method else ""
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in [*node.bases, *node.keywords])
        head = f"class {node.name}({bases}):" if bases else f"class {node.name}:"
    else:
        returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        head = f"def {node.name}({ast.unparse(node.args)}){returns}:"
    doc = ""
    if ast.get_docstring(node) is not None:
        first = node.body[0]
        doc = "\n" + textwrap.indent(textwrap.dedent("\n".join(lines[first.lineno - 1:first.end_lineno])), "    ")
    if isinstance(node, ast.ClassDef):
        methods = [textwrap.indent(_stub(m, lines, method=True), "    ") for m in node.body
                   if isinstance(m, ast.FunctionDef)]
        inner = "\n\n".join(methods) if methods else "    pass"
    else:
        inner = "    raise NotImplementedError"
    return decorators + head + doc + "\n" + inner


@dataclass(frozen=True)
class Needs:
    """What a page's downloads need besides torch and a notebook runner: packages (the setup block's `requires`
    option, `requires="numpy"`) and, when its blocks compile C++ (Inductor's CPU kernels, an extension), a C++
    compiler and Python's headers (`compiles="c++"`), which the downloads line then asks for."""

    requires: tuple[str, ...] = ()
    compiles: bool = False


@dataclass(frozen=True)
class Download:
    """One file a page offers: its name, its text, and what it needs besides torch."""

    name: str
    kind: str
    text: str
    needs: Needs = Needs()


def page_needs(items: list[Prose | Code], where: str = "page") -> Needs:
    """What the page's downloads need, read from its setup block's options.

    Raises:
        DownloadError: when `compiles` has a value other than `c++`, naming `where` and the block.
    """
    setup = _setup(items)
    if setup is None:
        return Needs()
    compiles = setup.options.get("compiles")
    if compiles not in (None, "c++"):
        raise DownloadError(f"{where}, block {setup.id!r}: compiles={compiles!r} is not an option; write "
                            "compiles=\"c++\" when the page's blocks compile C++, or drop it")
    return Needs(tuple(setup.options.get("requires", "").split()), compiles == "c++")


def _setup(items: list[Prose | Code]) -> Code | None:
    return next((item for item in items if isinstance(item, Code) and _is_setup(item)), None)


def _is_setup(item: Code) -> bool:
    return item.id == "setup"


def page_cells(items: list[Prose | Code], *, language: str, pins: Pins, torch_version: str, normaliser: str,
               expected: Callable[[str], str | None], learner: bool, where: str, filled: bool = False) -> list[Cell]:
    """The cells of a page's notebook; `learner`: the lab's notebook with tasks and checks instead of solutions;
    `filled`: a learner's notebook whose answer cells hold the solutions (what a learner who got everything right
    would have written: the tests run it)."""
    words = TEXT[language]
    cells: list[Cell] = []
    checks_added = False
    tasks_seen = False

    def add_checks() -> None:
        nonlocal checks_added
        if not checks_added:
            cells.append(Cell("code", checks_cell(language, torch_version, normaliser), "checks"))
            checks_added = True

    for item in items:
        if isinstance(item, Prose):
            if learner and SOLUTION_KIND in item.boxes:
                continue
            cells.append(Cell("markdown", prose_markdown(item.text), "prose"))
            continue
        if not any(c.role == "state" for c in cells):
            cells.append(Cell("code", state_cell(language, pins), "state"))
        block = f"{where}, block {item.id!r}"
        code = item.code.rstrip("\n")
        predicted = item.options.get("predict", "")
        if predicted:
            add_checks()
            cells.append(Cell("code", f"{predicted}_prediction = None  # {words['predict'].format(name=predicted)}",
                              "prediction", item.id))
        if _is_setup(item):
            cells.append(Cell("code", code, "setup", item.id))
        elif learner and (SOLUTION_KIND in item.boxes or tasks_seen):
            add_checks()
            names = item.options.get("answer")
            given = SOLUTION_KIND not in item.boxes or names == NO_ANSWER  # a demonstration, not a task
            stubs, rest = ("", code) if given else split_answer(
                code, {n.strip() for n in names.split(",") if n.strip()} if names else None, block, filled)
            if SOLUTION_KIND in item.boxes:
                tasks_seen = True
            if stubs:
                cells.append(Cell("markdown", f"**{words['answer']}** (`{item.id}`): {words['answer_note']}", "prose"))
                cells.append(Cell("code", stubs.replace("raise NotImplementedError",
                                                        f"raise NotImplementedError  # {words['answer_stub']}"),
                                  "answer", item.id))
            output = expected(item.id) if item.traced else None
            if _runs_something(rest) or output:
                literal = "None" if output is None else _literal(localize(output, language))
                cells.append(Cell("code", f"check_answer({item.id!r}, {_literal(rest + chr(10))},\n"
                                          f"             expected={literal})",
                                  "check", item.id))
        else:
            cells.append(Cell("code", code, "block", item.id))
        if predicted:
            cells.append(Cell("code", f"check_prediction({predicted!r}, {predicted}_prediction, {predicted})",
                              "check-prediction", item.id))
    return cells


NO_ANSWER = "none"
"""The `answer` option of a block in a solution box that is a demonstration: the learner gets it as it is."""


def _runs_something(code: str) -> bool:
    """Whether `code` does more than import."""
    return any(line.strip() and not re.match(r"(import|from)\s", line.strip()) for line in code.split("\n"))


def _literal(text: str) -> str:
    """`text` as a Python string literal a reader can read: raw and triple-quoted when it spans lines."""
    if "\n" in text.strip("\n") and not text.endswith("\\"):
        for quotes in ("'''", '"""'):
            if quotes not in text:
                return f"r{quotes}\n{text.strip(chr(10))}\n{quotes}"
    return repr(text)


def notebook(cells: list[Cell], language: str) -> str:
    """A Jupyter notebook (nbformat 4.5) of `cells`, without outputs."""
    def source(text: str) -> list[str]:
        lines = text.split("\n")
        return [line + "\n" for line in lines[:-1]] + [lines[-1]]

    body = []
    for n, cell in enumerate(cells):
        entry = {"cell_type": cell.kind, "id": f"cell-{n}", "metadata": {"hood": {"role": cell.role,
                                                                                  "block": cell.block}},
                 "source": source(cell.source)}
        if cell.kind == "code":
            entry.update(execution_count=None, outputs=[])
        body.append(entry)
    document = {"cells": body, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}, "hood": {"language": language}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def script(cells: list[Cell]) -> str:
    """A plain Python script of `cells`: prose as comments, `known_state()` before each block."""
    parts = []
    for cell in cells:
        if cell.kind == "markdown":
            parts.append("\n".join(f"# {line}".rstrip() for line in cell.source.split("\n")))
        elif cell.role in {"block", "setup", "check", "prediction", "check-prediction"}:
            parts.append("known_state()\n" + cell.source)
        else:
            parts.append(cell.source)
    return "\n\n".join(parts).rstrip() + "\n"


def is_lab(page: str) -> bool:
    """Whether a page is a lab (learner and solutions notebooks) rather than a theory page (one notebook)."""
    return PurePosixPath(page).parts[0] == "labs"


def download_names(page: str, language: str) -> dict[str, str]:
    """The files a page offers, by kind: `notebook` and `script`, or `learner`, `solutions`, `solutions_script`."""
    stem = f"{PurePosixPath(page).stem}-{language}"
    if is_lab(page):
        return {"learner": f"{stem}.ipynb", "solutions": f"{stem}-solutions.ipynb",
                "solutions_script": f"{stem}-solutions.py"}
    return {"notebook": f"{stem}.ipynb", "script": f"{stem}.py"}


def imports_project(code: str) -> bool:
    """Whether `code` imports `hood` or `snippets` anywhere (`import torch, hood` and `x; import hood` included)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return bool(re.search(r"^\s*(from|import)\s+(hood|snippets)\b", code, re.MULTILINE))
    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    names += [node.module for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module and not node.level]
    return any(name.split(".")[0] in PROJECT_PACKAGES for name in names)


def page_downloads(page: str, text: str, *, language: str, snippets_config: dict, pins: Pins, torch_version: str,
                   normaliser: str, expected: Callable[[str], str | None]) -> list[Download]:
    """Every file a page offers (see `download_names`); none for a page without executed blocks.

    Raises:
        DownloadError: when a block cannot become a learner's task (its code does not parse, or its `answer`
            option names a definition it lacks), or when a block imports the project (`hood`, `snippets`).
    """
    items = read_page(text, snippets_config)
    if not any(isinstance(item, Code) for item in items):
        return []
    where = f"page {page} ({language})"
    for item in items:
        if isinstance(item, Code) and imports_project(item.code):
            raise DownloadError(f"{where}, block {item.id!r}: it imports the project's own package, which a "
                                "download does not have; include what it needs with `--8<--` instead")
    needs = page_needs(items, where)
    names = download_names(page, language)
    common = dict(language=language, pins=pins, torch_version=torch_version, normaliser=normaliser,
                  expected=expected, where=where)
    solutions = page_cells(items, learner=False, **common)
    if not is_lab(page):
        return [Download(names["notebook"], "notebook", notebook(solutions, language), needs),
                Download(names["script"], "script", script(solutions), needs)]
    learner = page_cells(items, learner=True, **common)
    return [Download(names["learner"], "learner", notebook(learner, language), needs),
            Download(names["solutions"], "solutions", notebook(solutions, language), needs),
            Download(names["solutions_script"], "solutions_script", script(solutions), needs)]


def links_paragraph(downloads: list[Download], language: str, torch_version: str) -> str:
    """The HTML paragraph near a page's top that offers its downloads."""
    words = TEXT[language]
    links = " · ".join(f'<a href="{d.name}" download="{d.name}">{words["kind"][d.kind]}</a>' for d in downloads)
    needs = downloads[0].needs if downloads else Needs()
    text = (words["downloads_with"].format(links=links, torch=torch_version, needs=" ".join(needs.requires))
            if needs.requires else words["downloads"].format(links=links, torch=torch_version))
    if needs.compiles:
        text += " " + words["compiles"]
    return f'<p class="hood-downloads" data-search-exclude>{text}</p>'
