"""Small bilingual sites for tests of the build; the real site is copied by `tools.sandbox`."""

from __future__ import annotations

from pathlib import Path

import yaml

from hood.engine.translations import mark
from tools.sandbox import LINKED, ROOT, Build, build_in_process, copy_project
from tools.sandbox import build as build_subprocess

__all__ = ["ROOT", "Build", "add_page", "build", "build_subprocess", "copy_project", "mini_project"]


def build(project: Path, *, mode: str = "check", cache: bool = False, extra_env: dict[str, str] | None = None,
          ) -> Build:
    """Build a small site in this process (a build leaves the process as it found it): the tests of the engine's
    outcomes. The real site is built in a subprocess (`build_subprocess`), as CI builds it."""
    return build_in_process(project, mode=mode, cache=cache, extra_env=extra_env)


class _Env(list):
    """An `!ENV [VARIABLE, default]` of mkdocs.yml, kept as it is (the build resolves it, not the test)."""


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_constructor("!ENV", lambda loader, node: _Env(loader.construct_sequence(node)))
_Dumper.add_representer(_Env, lambda dumper, env: dumper.represent_sequence("!ENV", env, flow_style=True))


def mini_project(dest: Path, en: str, es: str | None = None, snippets: dict[str, str] | None = None) -> Path:
    """A one-page bilingual site with the real plugins and the given English and Spanish page bodies."""
    dest.mkdir(parents=True, exist_ok=True)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    config["nav"] = [{"Home": "index.md"}]
    config["extra_css"] = []
    (dest / "mkdocs.yml").write_text(yaml.dump(config, Dumper=_Dumper, allow_unicode=True, sort_keys=False))
    es = mark(en if es is None else es, en)  # the Spanish page translates this English page
    for language, body in (("en", en), ("es", es)):
        (dest / "docs" / language).mkdir(parents=True, exist_ok=True)
        (dest / "docs" / language / "index.md").write_text(body)
    (dest / "snippets").mkdir(exist_ok=True)
    for name, code in (snippets or {}).items():
        (dest / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (dest / "snippets" / name).write_text(code)
    for name in LINKED:
        (dest / name).symlink_to(ROOT / name)
    return dest


def add_page(project: Path, name: str, title: str, en: str) -> None:
    """Add a page to a `mini_project`, last in its nav, with a Spanish page that translates it."""
    config_file = project / "mkdocs.yml"
    config = yaml.load(config_file.read_text(), Loader=_Loader)
    config["nav"].append({title: name})
    config_file.write_text(yaml.dump(config, Dumper=_Dumper, allow_unicode=True, sort_keys=False))
    for language, body in (("en", en), ("es", mark(en, en))):
        (project / "docs" / language / name).write_text(body)


def in_language(results, language: str = "en"):
    """Results (JSON-like) with every `words` marker, in keys and values, replaced by its phrase in `language`."""
    import json

    from hood.capture.common import localize

    return json.loads(localize(json.dumps(results, ensure_ascii=False), language))
