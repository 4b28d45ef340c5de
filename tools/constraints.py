"""`make constraints`: record, in `constraints.txt`, the versions of what the pins of `pyproject.toml` need.

`pyproject.toml` pins what the project names; the packages those need (torch's `sympy`, whose printer writes the
indexing of Inductor's kernels, among them) would otherwise come at the newest release pip finds on the day of
install, and could change a trace. The Makefile installs with `-c constraints.txt`, so a fresh clone gets the
versions the traces were made with. Run this after changing a pin: it installs the pins without the old
constraints, then writes what the virtualenv holds, less the pins themselves.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"
HEADER = ("# What the pins of pyproject.toml need, at the versions the traces were made with (pip install -c).\n"
          "# Written by `make constraints` (tools/constraints.py): run it after a pin changes, never edit by hand.\n")


def name(requirement: str) -> str:
    """A requirement's distribution name, normalised (`Jinja2==3.1.6` -> `jinja2`)."""
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement)[0]).lower()


def pinned() -> set[str]:
    """The names `pyproject.toml` pins, its extras included."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {name(p) for p in [*project["dependencies"], *(p for e in project["optional-dependencies"].values()
                                                          for p in e)]}


def unpinned(freeze: list[str]) -> list[str]:
    """The lines of `pip freeze` that are not the project or one of its pins."""
    return sorted((line for line in freeze if "==" in line and not line.startswith("#") and name(line) not in pinned()),
                  key=name)


def main() -> int:
    """Install the pins with no constraints, then write `constraints.txt` from the virtualenv."""
    pip = [sys.executable, "-m", "pip"]
    subprocess.run([*pip, "install", "--quiet", "--disable-pip-version-check", "-e", f"{ROOT}[test]"], check=True)
    freeze = subprocess.run([*pip, "freeze", "--exclude-editable"], check=True, capture_output=True,
                            text=True).stdout.splitlines()
    partial = CONSTRAINTS.with_suffix(".txt.partial")
    partial.write_text(HEADER + "".join(line + "\n" for line in unpinned(freeze)), encoding="utf-8")
    partial.replace(CONSTRAINTS)
    print(f"wrote {CONSTRAINTS.name}: {len(unpinned(freeze))} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
