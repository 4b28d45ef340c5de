"""`make lens TORCH=2.14.1`: rehearse a torch upgrade and record what every block prints under that release.

Creates (once) a virtualenv of its own under `.cache/lens/` with that torch and the project's other pins (never
touching `.venv`), builds the site there with `HOOD_LENS=on`, and so writes `traces/lens/<release>/`: a manifest
of every traced block (code hash, matched or not, error) and the output of each block that differs. Review it
with `git diff traces/lens`, commit it, and the pages show each difference under its output.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools import constraints

ROOT = Path(__file__).resolve().parents[1]


def pins_with(torch_version: str) -> list[str]:
    """The project's pinned dependencies, with torch at `torch_version` instead of its pin."""
    pins = constraints.project()["dependencies"]
    return [f"torch=={torch_version}" if re.match(r"torch\b", pin) else pin for pin in pins]


def lens_python(torch_version: str, python: Path | None = None) -> Path:
    """A Python with `torch_version` and the other pins: `python` brought up to the pins, or the lens virtualenv
    for that release under `.cache/lens/`, created on first use."""
    if python is None:
        venv = ROOT / ".cache" / "lens" / f"venv-{torch_version}"
        python = venv / "bin" / "python"
        if not python.is_file():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *pins_with(torch_version)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(ROOT)], check=True)
    return python


def record(python: Path, torch_version: str) -> int:
    """Build the site with `python` in lens mode; the plugin writes the records. Returns the build's exit code.

    C++ extensions a block compiles go to a folder of that release: torch names its default folder after the
    Python and CUDA versions only, so two CUDA releases would load each other's libraries.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOD_")}
    env.update(NO_MKDOCS_2_WARNING="1", HOOD_LENS="on", HOOD_CACHE="off",
               TORCH_EXTENSIONS_DIR=str(ROOT / ".cache" / "lens" / f"extensions-{torch_version}"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    with tempfile.TemporaryDirectory(prefix="hood-lens-") as site:
        return subprocess.run([str(python), "-m", "mkdocs", "build", "-f", str(ROOT / "mkdocs.yml"), "-d", site],
                              cwd=ROOT, env=env, check=False).returncode


def main() -> int:
    """Record the lens of the release named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("torch", help="a torch release the package index offers, e.g. 2.14.1")
    parser.add_argument("--python", type=Path, help="an existing virtualenv's Python with that torch and the pins")
    args = parser.parse_args()
    return record(lens_python(args.torch, args.python), args.torch)


if __name__ == "__main__":
    sys.exit(main())
