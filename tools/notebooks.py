"""Run a page's downloads as a reader does: in a virtualenv that holds torch and a notebook runner, nothing else.

`python -m tools.notebooks [PAGE ...]` executes the notebooks of the pages (all theory and lab pages by default)
under `.cache/notebooks/out/` and prints, per block, whether what it printed matches its trace; for a lab, the
learner's notebook with the solutions filled in, where every check must say right. `tests/test_downloads.py` runs
the same functions (`reader_python`, `run`).

The reader's virtualenv (`.cache/notebooks/venv-<hash>/`) is made once from torch's pin and the `reader` extra of
`pyproject.toml`; the project is not on its path, and notebooks run in Python's isolated mode from a folder
outside the checkout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from hood.capture.common import localize
from hood.engine.blocks import expand_includes
from hood.engine.download import (
    NORMALISER_INCLUDE, TEXT, Cell, Download, Needs, Pins, notebook, page_cells, page_downloads, page_needs,
    read_page)
from hood.engine.fingerprint import torch_build
from hood.engine.normalize import normalise
from hood.engine.settings import Settings
from hood.engine.traces import trace_body, trace_path
from tools import constraints

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGUAGES = ("en", "es")


def reader_pins(requires: tuple[str, ...] = ()) -> list[str]:
    """What a reader installs: the pinned torch, the notebook runner (`[project.optional-dependencies] reader`)
    and the packages a page `requires`, at the project's pins."""
    project = constraints.project()
    pin = {p.split("==")[0]: p for p in project["dependencies"]}
    return [pin["torch"], *project["optional-dependencies"]["reader"], *(pin[name] for name in requires)]


def reader_python(requires: tuple[str, ...] = ()) -> Path:
    """The Python of the reader's virtualenv (with what a page `requires`, and torch's own needs at the versions of
    `constraints.txt`), created on first use, keyed on its pins and constraints."""
    pins = reader_pins(requires)
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    key = hashlib.sha256((" ".join(pins) + "\n" + constraints).encode()).hexdigest()[:12]
    venv = ROOT / ".cache" / "notebooks" / ("venv-" + key)
    python = venv / "bin" / "python"
    if not (venv / ".installed").is_file():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-c",
                        str(ROOT / "constraints.txt"), *pins], check=True, capture_output=True)
        (venv / ".installed").write_text("\n".join(pins) + "\n")
    return python


def trace_reader(page: str):
    """A function giving a block's trace body (its header dropped), or None when the block has none."""
    return lambda block: trace_body(trace_path(ROOT / "traces", page, block))


def _inputs(page: str, language: str) -> dict:
    """What `hood.engine.download` needs besides the page, as the build gives it."""
    settings = Settings(root=ROOT)
    config = {"base_path": [str(ROOT / "snippets"), str(ROOT / "src")], "check_paths": True,
              "dedent_subsections": True}
    return dict(language=language, snippets_config=config,
                pins=Pins(settings.threads, settings.inductor_threads, settings.simdlen, settings.cpu_capability),
                torch_version=torch_build()["version"].split("+")[0],
                normaliser=expand_includes(NORMALISER_INCLUDE, config), expected=trace_reader(page))


def _text(page: str, language: str) -> str:
    return (DOCS / language / page).read_text(encoding="utf-8")


def downloads(page: str, language: str) -> list[Download]:
    """The downloads of one page in one language, made as the build makes them."""
    return page_downloads(page, _text(page, language), **_inputs(page, language))


def cells(page: str, language: str, *, learner: bool, filled: bool = False) -> list[Cell]:
    """The cells of a page's notebook (`learner`, `filled`: see `hood.engine.download.page_cells`)."""
    inputs = _inputs(page, language)
    items = read_page(_text(page, language), inputs.pop("snippets_config"))
    return page_cells(items, learner=learner, filled=filled, where=page, **inputs)


READING_GUIDE = "reference/reading-outputs.md"
"""The one reference page whose blocks run: it offers downloads like a theory page."""


def course_pages() -> list[str]:
    """Every page that offers downloads: the theory and lab pages, then the reading guide."""
    return sorted(str(p.relative_to(DOCS / "en")) for folder in ("theory", "labs")
                  for p in (DOCS / "en" / folder).glob("*.md")) + [READING_GUIDE]


RUNNER = """
import sys, nbformat
from nbclient import NotebookClient
path, workdir = sys.argv[1], sys.argv[2]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=True,
               resources={"metadata": {"path": workdir}}).execute()
nbformat.write(nb, path.replace(".ipynb", ".executed.ipynb"))
"""


COMPILERS = re.compile(r"^(cc|c\+\+|cpp|g\+\+.*|gcc.*|clang.*|.*-linux-gnu-(g\+\+|gcc|c\+\+|cpp).*)$")
"""The system's C++ compilers, hidden from a page that does not say it compiles (`compiles="c++"`)."""


def system_tools(compiles: bool, folder: Path) -> Path:
    """The folder of system programs a notebook's PATH holds after its virtualenv's: links, made in `folder`, to
    `/usr/bin`'s programs but `ninja` (a page that needs it `requires` it, in its virtualenv) and, unless the page
    `compiles`, the C++ compilers; so a page that compiles or runs `ninja` without saying so fails its run."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for program in Path("/usr/bin").iterdir():
        if program.name != "ninja" and (compiles or not COMPILERS.match(program.name)):
            (folder / program.name).symlink_to(program)
    return folder


def execute(path: Path, python: Path, workdir: Path, *, compiles: bool = True) -> dict:
    """Execute the notebook at `path` with nbclient under `python` (isolated mode, from `workdir`), with the
    system's compilers on PATH only if the page `compiles`, and never the system's `ninja`; return the executed
    notebook (a cell that raised holds its error as an output)."""
    workdir.mkdir(parents=True, exist_ok=True)
    tools = system_tools(compiles, workdir.with_name(workdir.name + "-usr-bin"))
    env = {"PATH": f"{python.parent}:{tools}", "HOME": str(workdir), "LANG": "C.UTF-8"}
    subprocess.run([str(python), "-I", "-c", RUNNER, str(path), str(workdir)], cwd=workdir, env=env,
                   check=True, capture_output=True, text=True)
    return json.loads(path.with_suffix(".executed.ipynb").read_text(encoding="utf-8"))


def printed(cell: dict) -> str:
    """What a code cell printed to stdout."""
    return "".join("".join(o["text"]) for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


@dataclass(frozen=True)
class Outcome:
    """What one code cell of an executed notebook printed, and what its block's trace says it should."""

    block: str
    role: str
    printed: str
    expected: str | None
    error: str = ""

    @property
    def verdict(self) -> str:
        """A check cell's last line after the block id, or a prediction check's after the predicted name (`right`,
        `not done yet`…); empty for other cells."""
        lines = self.printed.strip().splitlines()
        last = lines[-1] if lines else ""
        if self.role == "check-prediction":  # `NAME: verdict`, NAME being the predicted variable
            return last.split(": ", 1)[1] if ": " in last else ""
        prefix = f"{self.block}: "
        return last[len(prefix):] if self.role == "check" and last.startswith(prefix) else ""

    @property
    def same(self) -> bool:
        """Whether a block's output equals its trace (through the traces' normalisation)."""
        return self.expected is not None and normalise(self.printed) == self.expected


def needs(page: str, language: str = "en") -> Needs:
    """What the page's downloads need besides torch (its setup block's `requires` and `compiles` options)."""
    return page_needs(read_page(_text(page, language), _inputs(page, language)["snippets_config"]),
                      f"page {page} ({language})")


def run(page: str, out: Path, language: str = "en", *, learner: bool = False,
        filled: bool = False) -> list[Outcome]:
    """Write one notebook of `page`, execute it in the reader's virtualenv (with what the page requires, nothing
    else) and return each code cell's outcome."""
    wanted = needs(page, language)
    python = reader_python(wanted.requires)
    kind = "-learner" if learner else ""
    path = out / f"{Path(page).stem}-{language}{kind}{'-filled' if filled else ''}.ipynb"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(notebook(cells(page, language, learner=learner, filled=filled), language), encoding="utf-8")
    executed = execute(path, python, out / (path.stem + "-run"), compiles=wanted.compiles)
    expected = trace_reader(page)
    outcomes = []
    for cell in executed["cells"]:
        if cell["cell_type"] != "code":
            continue
        role = cell["metadata"]["hood"]
        trace = expected(role["block"]) if role["block"] and role["role"] in {"block", "setup"} else None
        errors = [f"{o['ename']}: {o['evalue']}" for o in cell["outputs"] if o["output_type"] == "error"]
        outcomes.append(Outcome(role["block"], role["role"], printed(cell),
                                None if trace is None else localize(trace, language), "; ".join(errors)))
    return outcomes


def main() -> int:
    """Execute the notebooks of the pages named (all by default): each block against its trace, each check's
    verdict in a lab's learner notebook with the solutions filled in."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="pages such as theory/01-dispatcher-and-aten.md (default: all)")
    parser.add_argument("--language", default="en", choices=LANGUAGES)
    args = parser.parse_args()
    out, failures = ROOT / ".cache" / "notebooks" / "out", 0
    right = TEXT[args.language]["right"]
    for page in args.pages or course_pages():
        lab = page.startswith("labs/")
        for outcome in run(page, out, args.language, learner=lab, filled=lab):
            if outcome.role == "check":
                good = outcome.verdict == right or outcome.verdict.startswith(TEXT[args.language]["timing"][:6])
            elif outcome.expected is not None:
                good = outcome.same and not outcome.error
            else:
                good = not outcome.error
            failures += not good
            print(f"{'ok  ' if good else 'FAIL'}  {page}#{outcome.block} {outcome.role} {outcome.verdict}"
                  f"{outcome.error}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
