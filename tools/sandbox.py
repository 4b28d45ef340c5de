"""Build a copy of the site in a temporary folder, the way `make build` would: for tests and the benchmark."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
"""The project root of this checkout."""

LINKED = ("src", "overrides")
"""Folders a copied or miniature project links to instead of copying: the package and the theme overrides."""


@dataclass
class Build:
    """A finished `mkdocs build` of a project folder."""

    project: Path
    returncode: int
    output: str

    @property
    def site(self) -> Path:
        """The built site."""
        return self.project / "site"

    def executions(self) -> list[tuple[str, str]]:
        """(page, block id) for each block the engine executed, in order."""
        log = self.project / "exec.log"
        if not log.exists():
            return []
        return [tuple(line.split("\t")[1:3]) for line in log.read_text().splitlines()]

    def page(self, path: str) -> str:
        """The HTML of a built page."""
        return (self.site / path).read_text(encoding="utf-8")


def copy_project(dest: Path) -> Path:
    """A copy of the real project: config, glossary, pages, snippets and traces; `LINKED` folders are linked."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("docs", "snippets", "traces"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("mkdocs.yml", "glossary.yml"):
        shutil.copy(ROOT / name, dest / name)
    for name in LINKED:
        (dest / name).symlink_to(ROOT / name)
    return dest


def build_env(project: Path, *, mode: str, cache: bool) -> dict[str, str]:
    """The environment of a build of `project` in `mode` (`check`, `bless`, `lenient` or `no-exec`).

    `check` sets nothing: a plain `mkdocs build` is a check build.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOD_")}
    env.update(
        NO_MKDOCS_2_WARNING="1",
        HOOD_CACHE_DIR=str(project / ".cache"),
        HOOD_EXEC_LOG=str(project / "exec.log"),
        HOOD_CACHE="on" if cache else "off",
    )
    if mode == "bless":
        env["HOOD_BLESS"] = "1"
    elif mode == "lenient":
        env["HOOD_CHECK"] = "off"
    elif mode == "no-exec":
        env["HOOD_EXECUTE"] = "off"
    return env


def build(project: Path, *, mode: str = "check", cache: bool = False, extra_env: dict[str, str] | None = None) -> Build:
    """Run `mkdocs build` on `project`: `check` (strict, as CI), `plain` (`mkdocs build` as typed), `bless`,
    `lenient` (opted out) or `no-exec`."""
    env = build_env(project, mode=mode, cache=cache) | (extra_env or {})
    args = [sys.executable, "-m", "mkdocs", "build", "-f", str(project / "mkdocs.yml"), "-d", str(project / "site")]
    if mode == "check":
        args.append("--strict")  # as `make build`; "plain" is the same build without the flag
    (project / "exec.log").unlink(missing_ok=True)
    proc = subprocess.run(args, cwd=project, env=env, capture_output=True, text=True, timeout=3600, check=False)
    return Build(project, proc.returncode, proc.stdout + proc.stderr)


def build_in_process(project: Path, *, mode: str = "check", cache: bool = False,
                     extra_env: dict[str, str] | None = None) -> Build:
    """`build`, but in this process (a build leaves its process as it found it); `output` holds what MkDocs would
    have logged and the message the build stopped with."""
    import io
    import logging

    from mkdocs.commands.build import build as mkdocs_build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(build_env(project, mode=mode, cache=cache) | (extra_env or {}))
    (project / "exec.log").unlink(missing_ok=True)
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    handler.setFormatter(logging.Formatter("%(levelname)-8s-  %(message)s"))
    mkdocs_log = logging.getLogger("mkdocs")
    mkdocs_log.addHandler(handler)
    level = mkdocs_log.level
    mkdocs_log.setLevel(logging.INFO)
    code, stopped = 0, ""
    cwd = os.getcwd()
    os.chdir(project)  # mkdocs.yml's snippet folders are relative to where the build runs
    try:
        config = load_config(str(project / "mkdocs.yml"), site_dir=str(project / "site"), strict=mode == "check")
        config.plugins.on_startup(command="build", dirty=False)
        try:
            mkdocs_build(config)
        except MkDocsException as exc:
            code, stopped = 1, f"\nAborted with a {type(exc).__name__}!\n{exc}\n"
        finally:
            config.plugins.on_shutdown()
    finally:
        os.chdir(cwd)
        mkdocs_log.removeHandler(handler)
        mkdocs_log.setLevel(level)
        os.environ.clear()
        os.environ.update(saved)
    return Build(project, code, logged.getvalue() + stopped)
