"""`make constraints`: record, in `constraints.txt`, the versions of what the pins of `pyproject.toml` need.

`pyproject.toml` pins what the project names; the packages those need (torch's `sympy`, whose printer writes the
indexing of Inductor's kernels, among them) would otherwise come at the newest release pip finds on the day of
install, and could change a trace. The Makefile installs with `-c constraints.txt`, so a fresh clone gets the
versions the traces were made with. Run this after changing a pin: it installs the pins without the old
constraints (without `--upgrade`: what the virtualenv holds stays unless a pin needs another version), then writes
what the virtualenv holds, less the pins themselves, and the pins it was written for.
"""

from __future__ import annotations

import hashlib
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


def project() -> dict:
    """The `[project]` table of `pyproject.toml`."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def pins() -> list[str]:
    """The pins of `pyproject.toml`, its extras included."""
    return [*project()["dependencies"], *(p for e in project()["optional-dependencies"].values() for p in e)]


def pinned() -> set[str]:
    """The names `pyproject.toml` pins, its extras included."""
    return {name(p) for p in pins()}


def written_for() -> str:
    """The line of `constraints.txt` that names the pins it was written for (a hash of them, versions included)."""
    digest = hashlib.sha256("\n".join(sorted(pins())).encode()).hexdigest()
    return f"# For the pins whose sha256 begins {digest[:16]}"


def freeze() -> list[str]:
    """`pip freeze` of this Python, `setuptools` included (torch needs it; `pip freeze` omits it unless `--all`)."""
    return subprocess.run([sys.executable, "-m", "pip", "freeze", "--all", "--exclude-editable"], check=True,
                          capture_output=True, text=True).stdout.splitlines()


def unpinned(frozen: list[str]) -> list[str]:
    """The lines of `pip freeze` that are not the project (listed when `src/` is on the path of a checkout that is not
    the editable install's), one of its pins or pip itself."""
    return sorted((line for line in frozen if "==" in line and not line.startswith("#")
                   and name(line) not in {*pinned(), name(project()["name"]), "pip"}), key=name)


def main() -> int:
    """Install the pins with no constraints, then write `constraints.txt` from the virtualenv."""
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e",
                    f"{ROOT}[test,reader]"], check=True)
    write(unpinned(freeze()))
    return 0


def write(lines: list[str]) -> None:
    """Write `constraints.txt`: its header, the pins it is written for, and `lines`."""
    partial = CONSTRAINTS.with_suffix(".txt.partial")
    partial.write_text(HEADER + written_for() + "\n" + "".join(line + "\n" for line in lines), encoding="utf-8")
    partial.replace(CONSTRAINTS)
    print(f"wrote {CONSTRAINTS.name}: {len(lines)} packages")


if __name__ == "__main__":
    sys.exit(main())
