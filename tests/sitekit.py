"""Build the real site, or a small copy of it, in a temporary folder, the way `make build` would."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Build:
    """A finished `mkdocs build` of a project."""

    project: Path
    returncode: int
    output: str

    @property
    def site(self) -> Path:
        return self.project / "site"

    def executions(self) -> list[tuple[str, str]]:
        """(page, block id) for each block the engine executed, in order."""
        log = self.project / "exec.log"
        if not log.exists():
            return []
        return [tuple(line.split("\t")[1:3]) for line in log.read_text().splitlines()]

    def page(self, path: str) -> str:
        return (self.site / path).read_text(encoding="utf-8")


def copy_project(dest: Path) -> Path:
    """A copy of the real project: config, pages, snippets and traces; `src` is linked, not copied."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("docs", "snippets", "traces"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    (dest / "src").symlink_to(ROOT / "src")
    return dest


def mini_project(dest: Path, en: str, es: str | None = None, snippets: dict[str, str] | None = None) -> Path:
    """A one-page bilingual site with the real plugins and the given English and Spanish page bodies."""
    dest.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config["nav"] = [{"Home": "index.md"}]
    config["extra_css"] = []
    (dest / "mkdocs.yml").write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))
    for language, body in (("en", en), ("es", en if es is None else es)):
        (dest / "docs" / language).mkdir(parents=True, exist_ok=True)
        (dest / "docs" / language / "index.md").write_text(body)
    (dest / "snippets").mkdir(exist_ok=True)
    for name, code in (snippets or {}).items():
        (dest / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / "snippets" / name).write_text(code)
    (dest / "src").symlink_to(ROOT / "src")
    return dest


def build(project: Path, *, mode: str = "check", cache: bool = False, extra_env: dict[str, str] | None = None) -> Build:
    """Run `mkdocs build` on `project`: mode `check` (strict, as CI), `bless`, or `lenient` (a reader's build)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOD_")}
    env.update(
        NO_MKDOCS_2_WARNING="1",
        HOOD_CACHE_DIR=str(project / ".cache"),
        HOOD_EXEC_LOG=str(project / "exec.log"),
        HOOD_CACHE="on" if cache else "off",
    )
    args = [sys.executable, "-m", "mkdocs", "build", "-f", str(project / "mkdocs.yml"), "-d", str(project / "site")]
    if mode == "check":
        env["HOOD_CHECK"] = "1"
        args.append("--strict")
    elif mode == "bless":
        env["HOOD_BLESS"] = "1"
    env.update(extra_env or {})
    (project / "exec.log").unlink(missing_ok=True)
    proc = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=1800)
    return Build(project, proc.returncode, proc.stdout + proc.stderr)
