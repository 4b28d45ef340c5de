"""Rehearse a change of toolchain: build the site with ProperDocs, the maintained fork of MkDocs 1.x, and compare.

`python -m tools.toolchain` makes a virtualenv of its own (`.cache/toolchain/`, never `.venv`) with the project's
pins and `properdocs`, builds a copy of the project there as CI builds it (strict, traces checked, no cache),
builds another copy with this project's MkDocs, and reports whether the traces hold and which pages differ
(their article's prose and structure; the outputs are compared by the traces).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from hood.engine.normalize import normalise_text
from tools.sandbox import ROOT, build, build_env, copy_project

PROPERDOCS = "properdocs==1.6.7"


def properdocs_python() -> Path:
    """The Python of a virtualenv holding the project's pins and ProperDocs (made once)."""
    venv = ROOT / ".cache" / "toolchain" / "venv-properdocs"
    python = venv / "bin" / "python"
    if not (venv / ".installed").is_file():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-e",
                        str(ROOT), PROPERDOCS], check=True)
        (venv / ".installed").write_text(PROPERDOCS + "\n")
    return python


def build_with_properdocs(project: Path) -> subprocess.CompletedProcess:
    """`properdocs build --strict` of `project`, in the environment of a check build."""
    env = build_env(project, mode="check", cache=False)
    return subprocess.run([str(properdocs_python().parent / "properdocs"), "build", "--strict", "-f", "mkdocs.yml",
                           "-d", str(project / "site")], cwd=project, env=env, capture_output=True, text=True,
                          check=False)


_VOLATILE = re.compile(r'<meta name="generator"[^>]*>|rendered at [^<]*|<pre\b.*?</pre>|<svg\b.*?</svg>', re.DOTALL)
"""Set aside: the generator's name, the blocks' outputs and drawings, and (in `article`) a timing's chart and
sentences (the traces compare those; the profiler's
row order and the timings differ from run to run whatever builds the site)."""


def article(html: str) -> str:
    """A page's article, the part the site's own code writes, outputs set aside, through the traces'
    normalisation (addresses and pointers differ from run to run)."""
    start, end = html.find("<article"), html.find("</article>")
    kept = "\n".join(line for line in html[start:end].splitlines() if 'class="hood-timing"' not in line)
    return normalise_text(_VOLATILE.sub("", kept)) if start >= 0 else ""


def compare(ours: Path, theirs: Path) -> tuple[list[str], list[str]]:
    """Files only one site has, and pages whose article differs."""
    files = {str(p.relative_to(ours)) for p in ours.rglob("*") if p.is_file()}
    others = {str(p.relative_to(theirs)) for p in theirs.rglob("*") if p.is_file()}
    differ = [name for name in sorted(files & others) if name.endswith(".html")
              and article((ours / name).read_text(encoding="utf-8"))
              != article((theirs / name).read_text(encoding="utf-8"))]
    return sorted(files ^ others), differ


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    with tempfile.TemporaryDirectory(prefix="toolchain-") as tmp:
        mkdocs_copy, properdocs_copy = copy_project(Path(tmp) / "mkdocs"), copy_project(Path(tmp) / "properdocs")
        reference = build(mkdocs_copy, mode="check")
        rehearsal = build_with_properdocs(properdocs_copy)
        print(f"MkDocs build: exit {reference.returncode}; ProperDocs build: exit {rehearsal.returncode}")
        report = properdocs_copy / "site-report.txt"
        print("ProperDocs report:", report.read_text().splitlines()[0] if report.exists() else "(none)")
        if rehearsal.returncode:
            print(rehearsal.stdout[-3000:] + rehearsal.stderr[-3000:])
            return 1
        only, differ = compare(mkdocs_copy / "site", properdocs_copy / "site")
        print(f"files in one site only: {len(only)}", *only[:20], sep="\n  ")
        print(f"pages whose article differs: {len(differ)}", *differ[:20], sep="\n  ")
        return 0 if reference.returncode == 0 and not only and not differ else 1


if __name__ == "__main__":
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    sys.exit(main())
