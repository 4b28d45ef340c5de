"""Every page is also a download: a notebook and a script in its language that run with torch and what it says.

The fast tests read how `hood.engine.download` turns pages into cells. The `notebooks` tests execute the
downloads of every theory and lab page with nbclient in a virtualenv that holds torch and the notebook runner only
(`tools/notebooks.py`), and compare every block's output with its trace: what a reader runs is what the page shows.
"""

from __future__ import annotations

import json
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hood.engine import download
from hood.engine.download import Code, DownloadError, Prose, TEXT, read_page, split_answer
from tools import notebooks

CONFIG = {"base_path": [str(notebooks.ROOT / "snippets"), str(notebooks.ROOT / "src")], "check_paths": True,
          "dedent_subsections": True}

LAB = '''# Lab 99 · A tiny lab {#tiny}

Intro with a [link](../theory/01-x.md#y) and an [anchor](#step-1).

??? example "Setup block"
    ```python exec="on" id="setup" session="lab99"
    BASE = 2
    ```

## Step 1 · Double it {#step-1}

Write `double(n)`.

??? success "Solution"
    The answer is simple:

    ```python exec="on" id="double" session="lab99" result="text"
    def double(n):
        """Twice `n`."""
        return BASE * n


    def shout(text):
        return text.upper()


    print(shout("twice 21 is"), double(21))
    ```

    It prints 42.

```python exec="on" id="later" session="lab99" result="text"
print(double(1))
```
'''


def cells_of(text: str, *, learner: bool, filled: bool = False, page: str = "labs/99-tiny.md",
             language: str = "en", traces: dict | None = None) -> list[download.Cell]:
    items = read_page(text, CONFIG)
    return download.page_cells(items, language=language, pins=download.Pins(), torch_version="2.13.0",
                               normaliser="def normalise_text(text):\n    return text\n",
                               expected=(traces or {}).get, learner=learner, where=page, filled=filled)


def test_a_page_reads_as_prose_and_blocks_with_its_boxes_unwrapped():
    items = read_page(LAB, CONFIG)
    blocks = [i for i in items if isinstance(i, Code)]
    assert [b.id for b in blocks] == ["setup", "double", "later"]
    assert blocks[1].boxes == ("success",) and blocks[2].boxes == ()
    assert blocks[1].code.startswith("def double(n):")  # dedented out of its box
    prose = "\n".join(i.text for i in items if isinstance(i, Prose))
    assert "**✅ Solution**" in prose and "    ```" not in prose


def test_prose_has_no_anchors_and_no_links_to_pages_a_notebook_cannot_open():
    text = download.prose_markdown("## Step 1 {#step-1}\nSee [theory](../theory/01-x.md#y) and [here](#z).")
    assert text == "## Step 1\nSee *theory* and here."


def test_the_solutions_notebook_is_the_page():
    cells = cells_of(LAB, learner=False)
    assert [c.role for c in cells if c.kind == "code"] == ["state", "setup", "block", "block"]
    assert cells[[c.role for c in cells].index("state")].source.count('PAGE_LANGUAGE = "en"') == 1
    assert any("It prints 42." in c.source for c in cells)


def test_the_learner_notebook_hides_the_solution_and_checks_the_answer():
    cells = cells_of(LAB, learner=True, traces={"double": "TWICE 21 IS 42\n", "later": "2\n"})
    text = "\n".join(c.source for c in cells)
    assert "It prints 42." not in text and "return BASE * n" not in text  # the solution's prose and code
    answer = next(c for c in cells if c.role == "answer")
    assert answer.source.startswith('def double(n):\n    """Twice `n`."""\n    raise NotImplementedError')
    check = next(c for c in cells if c.role == "check" and c.block == "double")
    assert "def shout(text):\n    raise NotImplementedError" in answer.source  # by default, every definition
    assert 'print(shout("twice 21 is"), double(21))' in check.source and "TWICE 21 IS 42" in check.source
    later = next(c for c in cells if c.block == "later")
    assert later.role == "check"  # it calls an answer: checked too, so an empty notebook runs to the end


def test_an_answer_option_names_what_the_learner_writes_and_gives_the_rest():
    stubs, rest = split_answer('def a():\n    return 1\n\n\ndef b():\n    return a()\n\nprint(b())\n', {"a"}, "w")
    assert stubs == "def a():\n    raise NotImplementedError"
    assert rest == "def b():\n    return a()\n\nprint(b())"
    with pytest.raises(DownloadError, match="does not define"):
        split_answer("def a():\n    pass\n", {"c"}, "page x, block 'y'")


def test_a_stub_keeps_a_methods_decorators_and_drops_a_functions():
    code = ('@torch.library.custom_op("lab::f", mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n'
            '    return x\n\n\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n'
            '        return x\n')
    stubs, rest = split_answer(code, None, "w")
    assert stubs.startswith("def f(x: torch.Tensor) -> torch.Tensor:\n    raise NotImplementedError")
    assert "    @staticmethod\n    def forward(ctx, x):\n        raise NotImplementedError" in stubs
    assert "custom_op" not in stubs and rest == ""


def test_a_filled_learner_notebook_holds_the_solutions_definitions():
    cells = cells_of(LAB, learner=True, filled=True)
    answer = next(c for c in cells if c.role == "answer")
    assert "return BASE * n" in answer.source and "NotImplementedError" not in answer.source


def test_a_prediction_block_gets_a_guess_cell_before_and_a_check_after():
    page = ('# T\n\n??? question "How many?"\n    ```python exec="on" id="count" predict="ops" result="text"\n'
            '    ops = 3\n    print(ops)\n    ```\n\n    Three.\n')
    roles = [(c.role, c.source.split("\n")[0]) for c in cells_of(page, learner=False, page="theory/99.md")
             if c.kind == "code"]
    assert roles[1][0] == "checks" and roles[2] == ("prediction", "ops_prediction = None  # " + TEXT["en"][
        "predict"].format(name="ops"))
    assert roles[3][0] == "block" and roles[4] == ("check-prediction", "check_prediction('ops', ops_prediction, ops)")


@pytest.mark.parametrize("line", ["from hood.capture.common import words", "import torch, hood",
                                  "import torch; import snippets.running_example", "def f():\n    import hood"])
def test_a_block_that_imports_the_project_cannot_be_a_download(line):
    """README, downloads: an import of `hood` or `snippets` anywhere in a block fails, not only one opening a line."""
    page = f'# T\n\n```python exec="on" id="x"\n{line}\n```\n'
    with pytest.raises(DownloadError, match="block 'x': it imports the project"):
        download.page_downloads("theory/99.md", page, language="en", snippets_config=CONFIG, pins=download.Pins(),
                                torch_version="2.13.0", normaliser="", expected=lambda _: None)
    assert not download.imports_project("import torch, hoodie\nprint('import hood')")


def test_generated_words_are_in_each_language():
    assert TEXT["en"].keys() == TEXT["es"].keys()
    assert all(TEXT["en"][k] != TEXT["es"][k] for k in TEXT["en"] if k not in {"kind"})


@pytest.mark.parametrize("page", notebooks.course_pages())
def test_every_course_page_offers_downloads_in_both_languages_with_the_same_code(page):
    """One language's execution stands for both: the code cells differ only in the language they print."""
    def code(language):
        made = notebooks.downloads(page, language)
        first = json.loads(made[0].text)
        assert first["metadata"]["hood"]["language"] == language
        cells = [c for c in first["cells"] if c["cell_type"] == "code"]
        for cell in cells:
            source = "".join(cell["source"])
            assert not re.search(r"^\s*(from|import)\s+(hood|snippets)\b", source, re.MULTILINE)
        in_any_language = [(r"expected=(None|r?\'\'\'.*?\'\'\'|r?\"\"\".*?\"\"\"|'.*'|\".*\")\)$", "expected=…)"),
                           (r"(raise NotImplementedError|_prediction = None)  # [^\n]*", r"\1")]
        sources = ["".join(c["source"]) for c in cells if c["metadata"]["hood"]["role"] not in {"state", "checks"}]
        for pattern, replacement in in_any_language:
            sources = [re.sub(pattern, replacement, source, flags=re.DOTALL | re.MULTILINE) for source in sources]
        return sources

    assert code("en") == code("es")


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """A folder outside the checkout to run notebooks in (each in the reader's virtualenv: torch, the notebook
    runner, and only what its page requires)."""
    return tmp_path_factory.mktemp("notebooks")


THEORY = [p for p in notebooks.course_pages() if not p.startswith("labs/")]
LABS = [p for p in notebooks.course_pages() if p.startswith("labs/")]
RUNS = [(p, False, False) for p in THEORY] + [(p, True, filled) for p in LABS for filled in (True, False)]
"""Every notebook the tests execute: (page, learner, filled)."""


@pytest.fixture(scope="module")
def ran(reader) -> dict:
    """Every notebook of `RUNS` executed once, one per CPU at a time (each in a kernel of its own; no output depends
    on how busy the machine is): a future of its outcomes per run."""
    for page in notebooks.course_pages():  # the reader virtualenvs, made one at a time
        notebooks.reader_python(notebooks.needs(page, "en").requires)
    pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1)
    futures = {run: pool.submit(notebooks.run, run[0], reader, learner=run[1], filled=run[2]) for run in RUNS}
    pool.shutdown(wait=False)
    return futures


@pytest.mark.notebooks
@pytest.mark.parametrize("page", THEORY)
def test_a_theory_notebook_prints_what_the_page_shows(page, ran):
    outcomes = ran[(page, False, False)].result()
    blocks = [o for o in outcomes if o.role in {"setup", "block"}]
    assert blocks and not [f"{o.block}: {o.error}" for o in outcomes if o.error]
    assert [o.block for o in blocks if o.expected is not None and not o.same] == []
    predictions = [o for o in outcomes if o.role == "check-prediction"]
    assert all(o.verdict == TEXT["en"]["not_done"] for o in predictions)  # nobody predicted anything yet


@pytest.mark.notebooks
@pytest.mark.parametrize("page", LABS)
def test_a_lab_with_the_solutions_filled_in_gets_right_from_every_check(page, ran):
    outcomes = ran[(page, True, True)].result()
    assert not [f"{o.block}: {o.error}" for o in outcomes if o.error]
    checks = [o for o in outcomes if o.role == "check"]
    assert checks
    wrong = [(o.block, o.printed[-2000:]) for o in checks
             if o.verdict != TEXT["en"]["right"] and not (o.expected is None and o.verdict == TEXT["en"]["timing"])]
    assert wrong == []


@pytest.mark.notebooks
@pytest.mark.parametrize("page", LABS)
def test_an_empty_learner_notebook_runs_to_the_end_saying_not_done_yet(page, ran):
    outcomes = ran[(page, True, False)].result()
    assert not [f"{o.block}: {o.error}" for o in outcomes if o.error]
    tasks = {o.block for o in outcomes if o.role == "answer"}
    verdicts = {o.block: o.verdict for o in outcomes if o.role == "check" and o.block in tasks}
    assert tasks and all(v.startswith(TEXT["en"]["not_done"]) for v in verdicts.values()), verdicts


def test_only_the_pipelines_pages_ask_for_numpy_and_only_theory_01_for_ninja():
    asking = {page: notebooks.needs(page).requires for page in notebooks.course_pages()}
    assert {page: needs for page, needs in asking.items() if needs} == {
        "theory/01-dispatcher-and-aten.md": ("ninja",), "theory/04-distributed.md": ("numpy",),
        "labs/03-compile-and-survey.md": ("numpy",)}
    assert not any(pin.startswith(("numpy", "ninja")) for pin in notebooks.reader_pins())  # the others: torch alone


COMPILING = {"theory/01-dispatcher-and-aten.md", "theory/03-compile.md", "labs/02-custom-op.md",
             "labs/03-compile-and-survey.md", "reference/reading-outputs.md"}
"""The pages whose blocks compile C++; the notebook runs prove it both ways (the others run without a compiler)."""


def test_the_pages_that_compile_cpp_say_so_in_both_languages_and_in_their_downloads_line():
    for language in ("en", "es"):
        assert {page for page in notebooks.course_pages() if notebooks.needs(page, language).compiles} == COMPILING
        for page in notebooks.course_pages():
            line = download.links_paragraph(notebooks.downloads(page, language), language, "2.13.0")
            assert (TEXT[language]["compiles"] in line) == (page in COMPILING), (page, language)


def test_a_notebook_runs_without_the_systems_ninja_and_without_its_compilers_unless_the_page_compiles(tmp_path):
    import shutil

    assert all(shutil.which(name) for name in ("g++", "c++", "ninja", "ls"))
    hidden = str(notebooks.system_tools(False, tmp_path / "bin"))
    assert not [name for name in ("g++", "c++", "gcc", "cc", "ninja") if shutil.which(name, path=hidden)]
    assert shutil.which("ls", path=hidden)
    compiling = str(notebooks.system_tools(True, tmp_path / "bin"))  # theory 01's ninja comes from its virtualenv
    assert all(shutil.which(name, path=compiling) for name in ("g++", "c++", "ls"))
    assert not shutil.which("ninja", path=compiling)


def test_a_compiles_option_other_than_cpp_is_refused_naming_the_page_and_the_block():
    page = '# T\n\n```python exec="on" id="setup" compiles="yes"\nprint(1)\n```\n'
    with pytest.raises(DownloadError, match=r"page theory/99.md \(en\), block 'setup': compiles='yes' is not an"):
        download.page_downloads("theory/99.md", page, language="en", snippets_config=CONFIG, pins=download.Pins(),
                                torch_version="2.13.0", normaliser="", expected=lambda _: None)


def test_a_page_that_requires_a_package_says_so_in_its_downloads_line():
    files = notebooks.downloads("theory/04-distributed.md", "en")
    assert all(f.needs.requires == ("numpy",) for f in files)
    line = download.links_paragraph(files, "en", "2.13.0")
    assert "pip install torch==2.13.0 numpy jupyter" in line and "which a torch feature of this page uses (" in line
    assert "torch==2.13.0 ninja jupyter" in download.links_paragraph(
        notebooks.downloads("theory/01-dispatcher-and-aten.md", "en"), "en", "2.13.0")
    assert "torch==2.13.0 jupyter" in download.links_paragraph(notebooks.downloads("theory/00-why-open-the-hood.md",
                                                                                 "en"), "en", "2.13.0")


def test_the_pipeline_needs_numpy_where_the_page_says():
    import torch.distributed as dist

    root = Path(dist.__file__).parent
    assert "dist.recv_object_list(" in (root / "pipelining" / "stage.py").read_text().splitlines()[1723 - 1]
    assert "tensor.numpy()" in (root / "distributed_c10d.py").read_text().splitlines()[3434 - 1]


@pytest.mark.notebooks
def test_without_numpy_a_tensor_cannot_become_the_bytes_recv_object_list_unpickles(tmp_path):
    import subprocess

    python = notebooks.reader_python()
    probe = ("import torch\ntry:\n    torch.zeros(2, dtype=torch.uint8).numpy()\n"
             "except RuntimeError as e:\n    print(e)\n")
    out = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "Numpy is not available"


def test_a_notebook_compiles_each_cell_as_one_unit_so_the_bytecode_is_the_pages():
    import ast
    import dis
    from types import SimpleNamespace

    shell = SimpleNamespace(events=SimpleNamespace(register=lambda *a: None), ast_transformers=[])
    exec(download.state_cell("en", download.Pins(2, 2, 8, "avx2")), {"get_ipython": lambda: shell})  # noqa: S102
    (whole_cell,) = shell.ast_transformers
    source = "import torch\n\ndef head(x):\n    return torch.softmax(x, dim=-1)\n"

    def ops(module: ast.Module) -> list[str]:
        namespace: dict = {}
        exec(compile(module, "<cell>", "exec"), namespace)  # noqa: S102
        return [f"{i.opname} {i.argrepr}" for i in dis.get_instructions(namespace["head"])]

    as_script = ops(ast.parse(source))
    statement_by_statement = ops(ast.Module([ast.parse(source).body[1]], []))  # how IPython compiles a cell
    assert "LOAD_GLOBAL NULL + torch" in as_script and "LOAD_METHOD softmax" in statement_by_statement
    assert ops(ast.Module([whole_cell.visit(ast.parse(source)).body[0]], [])) == as_script


def test_a_prediction_check_answers_not_done_right_or_wrong_whatever_the_guess_type():
    namespace: dict = {}
    exec(download.checks_cell("en", "2.13.0", "def normalise_text(t):\n    return t\n"), namespace)  # noqa: S102
    import contextlib
    import io

    def verdict(guess, real):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            namespace["check_prediction"]("n", guess, real)
        return out.getvalue().strip()

    assert verdict(None, (2, 2)) == "n: not done yet"
    assert verdict([2, 2], (2, 2)) == "n: right: you predicted (2, 2)"
    assert verdict(3, (2, 2)) == "n: wrong: you predicted 3; torch says (2, 2)"  # an int against a tuple
    assert verdict(" ADInplaceOrView", "ADInplaceOrView").startswith("n: right")


def test_a_check_that_differs_while_an_answer_is_still_a_stub_says_not_done_yet():
    namespace: dict = {}
    exec(download.checks_cell("en", "2.13.0", "def normalise_text(t):\n    return t\n"), namespace)  # noqa: S102
    exec('def define_op():\n    """Register the op."""\n    raise NotImplementedError\n', namespace)  # noqa: S102
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace["check_answer"]("cuda-row", "print('registered: none')", expected="registered: CPU")
    assert out.getvalue().splitlines()[-1] == (
        "cuda-row: not done yet: it needs define_op, which an earlier answer defines")
    exec('def define_op():\n    return 1\n', namespace)  # noqa: S102
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        namespace["check_answer"]("cuda-row", "print('registered: none')", expected="registered: CPU")
    assert "cuda-row: wrong" in out.getvalue()


def test_a_demonstration_in_a_solution_box_is_given_whole():
    page = LAB.replace('id="double" session="lab99" result="text"',
                       'id="double" session="lab99" result="text" answer="none"')
    cells = cells_of(page, learner=True, traces={"double": "TWICE 21 IS 42\n", "later": "2\n"})
    assert not [c for c in cells if c.role == "answer" and c.block == "double"]
    assert any(c.role == "check" and c.block == "double" and "return BASE * n" in c.source for c in cells)


@pytest.mark.parametrize("page", [p for p in notebooks.course_pages() if p.startswith("labs/")])
def test_nothing_a_learner_runs_before_a_task_defines_its_answer(page):
    """The setup (and every block before a task) defines none of the functions the task's answer cell asks for."""
    import ast

    cells = notebooks.cells(page, "en", learner=True)
    defined: set[str] = set()
    for cell in cells:
        if cell.role == "answer":
            asked = {n.name for n in ast.parse(cell.source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            assert not asked & defined, (cell.block, sorted(asked & defined))
        if cell.role in {"setup", "block"}:
            defined |= {n.name for n in ast.parse(cell.source).body
                        if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
