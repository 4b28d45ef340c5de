"""Small bilingual sites for tests of the build; the real site is copied by `hood.build.sandbox`."""

from __future__ import annotations

from pathlib import Path

import yaml

from hood.build.sandbox import ROOT, Build, build, copy_project

__all__ = ["ROOT", "Build", "build", "copy_project", "mini_project"]


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
