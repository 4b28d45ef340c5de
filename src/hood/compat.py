"""Every reliance on another package's internals, in one place, checked against the versions it was written for.

Public APIs are used wherever they exist: the page's language is the theme's `language` (which
mkdocs-static-i18n sets for each language it builds), and the languages built come from the i18n plugin's
own configuration. What has no public API is here, and `check_versions` refuses to build with releases this
module was not written for, instead of failing somewhere deep in a build.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path, PurePosixPath

from hood.engine.cache import write_atomically

WRITTEN_FOR = {
    "mkdocs": "1.6.1",
    "mkdocs-static-i18n": "1.3.1",
    "mkdocstrings": "1.0.8",
    "markdown-exec": "1.12.6",
    "mkdocs-material": "9.8.1",
}
"""The releases whose internals this module relies on (the exact pins of `pyproject.toml`)."""


class CompatError(RuntimeError):
    """An installed release that this module was not written for."""


def check_versions() -> None:
    """Fail with a clear message when an installed release differs from `WRITTEN_FOR`."""
    wrong = {name: importlib.metadata.version(name) for name in WRITTEN_FOR}
    wrong = {name: version for name, version in wrong.items() if version != WRITTEN_FOR[name]}
    if wrong:
        found = ", ".join(f"{name} {version} (written for {WRITTEN_FOR[name]})" for name, version in wrong.items())
        raise CompatError(
            f"hood relies on internals of exact releases: {found}. Install the pins with `make setup`, or update "
            "src/hood/compat.py for the new release and its pin in pyproject.toml together."
        )


I18N_FIRST = ("on_config", "on_files", "on_nav", "on_post_page", "on_post_build")
"""The events in which mkdocs-static-i18n must run before `hood`: it switches the language in them, and it builds the
other languages inside the default language's `on_post_build` (mkdocs-static-i18n 1.3.1)."""


def check_i18n_order(config, priority: int) -> None:
    """Fail unless the i18n plugin runs before a plugin of `priority` in every event of `I18N_FIRST`."""
    i18n = config.plugins.get("i18n")
    late = [name for name in I18N_FIRST if i18n is not None
            and getattr(getattr(i18n, name), "mkdocs_priority", 0) <= priority]
    if late:
        raise CompatError(f"mkdocs-static-i18n no longer runs before hood (priority {priority}) in {late}: "
                          "update hood.mkdocs_plugin.LATE and src/hood/compat.py for its release.")


def poll_saved_files(seconds: float) -> None:
    """Make `mkdocs serve` look for saved files every `seconds` (mkdocs 1.6.1 internals).

    Its live-reload server polls every half second and no option changes it; the server class is replaced by one
    whose `polling_interval` defaults to `seconds`.
    """
    from mkdocs.commands import serve

    class Server(serve.LiveReloadServer):
        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("polling_interval", seconds)
            super().__init__(*args, **kwargs)

    serve.LiveReloadServer = Server


def page_path(src_uri: str, language: str) -> str:
    """A page's path inside its language folder: the i18n plugin's `src_uri` starts with the folder (`es/…`)."""
    parts = PurePosixPath(src_uri).parts
    return str(PurePosixPath(*parts[1:])) if parts and parts[0] == language else src_uri


def page_language(config) -> str:
    """The language of the pages being built: the theme's `language`, which the i18n plugin sets per language."""
    return config.theme["language"] or "en"


def built_languages(config) -> list[str]:
    """The locales the i18n plugin builds, from its own configuration (one language when it is absent)."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return [page_language(config)]
    return [language.locale for language in i18n.config.languages if language.build]


def nav_translations(config, locale: str) -> dict[str, str]:
    """The i18n plugin's `nav_translations` for `locale`, from its own configuration (empty when none)."""
    i18n = config.plugins.get("i18n")
    for language in (i18n.config.languages if i18n is not None else []):
        if language.locale == locale:
            return dict(language.nav_translations or {})
    return {}


def set_api_locale(config, language: str) -> None:
    """Make mkdocstrings render this language's labels (mkdocstrings 1.0.8 internals).

    mkdocstrings reads the locale once, before mkdocs-static-i18n sets it, and every language's build appends
    one more of its Markdown extensions to the same config: each of them must learn the language. There is no
    public API for it: the handlers object keeps it in `_locale`.
    """
    for extension in config.markdown_extensions:
        handlers = getattr(extension, "_handlers", None)
        if type(extension).__name__ == "MkdocstringsExtension" and handlers is not None:
            handlers._locale = language


def index_rendered_pages_only(config) -> None:
    """Make the theme's search plugin write, in a partial rebuild, the entries of the pages it rendered and no others
    (mkdocs-material 9.8.1 internals).

    Under `mkdocs serve --dirty` the plugin merges the last build's index into the new one, assuming one page per
    rebuild and one language per build; with the i18n plugin stacking languages on it, the merged index doubles at
    each rebuild and keeps stale sections. `hood.search.merged` merges instead. There is no public switch: the
    plugin keeps its previous index in `search_index_prev` whenever `is_dirty`.
    """
    for name in ("material/search", "search"):
        plugin = config.plugins.get(name)
        if plugin is not None and hasattr(plugin, "search_index_prev"):
            plugin.is_dirty = False
            plugin.search_index_prev = None


_SWITCHER_LINK = re.compile(r'<a href="([^"]*)" hreflang="([\w-]+)"')


class NotFoundPages:
    """One 404 page per language: the default language's at the site's root, each other's under its folder.

    mkdocs-static-i18n 1.3.1 renders the theme's `404.html` once per language into the same root file, so the last
    language built would answer every reader. `page` keeps the default language's for the root and writes the others',
    with the language switcher's links of the default one (the i18n plugin points them at the last page it built).
    """

    def __init__(self) -> None:
        self.default = ""

    def page(self, html: str, language: str, languages: list[str], site_dir: Path) -> str:
        """What to write at the root for the 404 page rendered in `language`; another language's goes to its folder."""
        if language == languages[0]:
            self.default = html
            return html
        roots = {lang: href for href, lang in _SWITCHER_LINK.findall(self.default)}
        html = _SWITCHER_LINK.sub(lambda m: f'<a href="{roots.get(m[2], m[1])}" hreflang="{m[2]}"', html)
        write_atomically(site_dir / language / "404.html", html)
        return self.default or html
