"""The MkDocs plugin: MkDocs' events adapted to the build of `hood.engine.build`, nothing more.

It runs after mkdocs-static-i18n in every event (`compat.check_i18n_order`), so it sees each language's build, and
acts on the whole build once the last language is done. A build leaves the process as it found it.
"""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin, event_priority

from hood import compat, glossary, interface, search
from hood.engine import runtime, translations
from hood.engine.blocks import snippets_config
from hood.engine.build import (
    BuildError, BuildState, CompiledTemplates, begin_page, check_nav, fence_format, finish, nav_titles,
    prepare_markdown, remove_stale_outputs, route_python_fences, stopped,
)
from hood.engine.report import REPORT_FILE
from hood.maths import MathsError, render_maths

log = logging.getLogger("mkdocs.plugins.hood")

LATE = -200
"""Event priority: after mkdocs-static-i18n (-100), which switches the language in its own events."""


class HoodConfig(Config):
    """Options of the `hood` plugin in `mkdocs.yml`; each is set there from a `HOOD_*` variable with `!ENV`.

    See `Settings.from_options` for what they mean and the build reference page for the table.
    """

    check = config_options.Type((bool, int, str), default=True)
    bless = config_options.Type((bool, int, str), default="")
    cache = config_options.Type((bool, int, str), default=True)
    cache_dir = config_options.Type(str, default="")
    execute = config_options.Type((bool, int, str), default=True)
    exec_log = config_options.Type(str, default="")
    lens = config_options.Type((bool, int, str), default="")


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def _snippet_bases(config) -> list[Path]:
    return [Path(base) for base in snippets_config(config.mdx_configs, _root(config))["base_path"]]


class HoodPlugin(BasePlugin[HoodConfig]):
    """Executes blocks once per build, compares them with their traces, and fails check builds on problems."""

    def __init__(self) -> None:
        self.serving = False
        self.state: BuildState | None = None
        self.found: runtime.ProcessSnapshot | None = None
        """The process as the build found it, restored when the build ends."""
        self.search_indexes: dict[str, dict] = {}
        """The search index last written per language; under serve a partial rebuild updates it (`hood.search`)."""
        self.templates = CompiledTemplates()
        """The theme's compiled templates, kept across the rebuilds of one serve process."""
        self.not_found = compat.NotFoundPages()

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """Check the releases `hood.compat` was written for; note whether this process serves (lenient)."""
        compat.check_versions()
        self.serving = command == "serve"

    @event_priority(LATE)
    def on_config(self, config):
        """Start a build (first language) or switch language; route Python blocks to the engine."""
        language, languages = compat.page_language(config), compat.built_languages(config)
        if self.state is None or language == languages[0]:  # the default language opens every build
            compat.check_i18n_order(config, LATE)
            self.found = self.found or runtime.snapshot()
            try:
                self.state = BuildState.open(_root(config), languages, serving=self.serving, **self.config)
            except BuildError as exc:
                raise PluginError(str(exc)) from exc
        self.state.language = language
        if self.serving:
            compat.index_rendered_pages_only(config)  # `search.merged` keeps the other pages' entries
        route_python_fences(config.mdx_configs, partial(fence_format, state=self.state))
        compat.set_api_locale(config, language)
        return config

    @event_priority(LATE)
    def on_files(self, files, *, config):
        """Under `mkdocs serve --dirty`, rebuild a page whose included files or glossary changed, not only its text.

        A dirty build renders the pages whose source is newer than their output; a page is also out of date when a
        snippet it includes, or the glossary every page carries, is newer than its output: that output is removed.
        """
        if not self.serving:
            return files
        if self.state is not None and any(Path(f.abs_dest_path).is_file() for f in files.documentation_pages()):
            self.state.dirty_rebuild = True  # some page may be left as it is
        remove_stale_outputs([(Path(f.abs_src_path), Path(f.abs_dest_path)) for f in files.documentation_pages()],
                             [_root(config) / glossary.GLOSSARY_FILE], _snippet_bases(config))
        return files

    def on_env(self, env, *, config, files):
        """Under serve, keep the theme's compiled templates from one rebuild to the next (a template whose source
        changed is compiled again): compiling them anew took a third of a rebuild after a one-page edit."""
        if self.serving:
            env.bytecode_cache = self.templates
        return env

    @event_priority(LATE)
    def on_nav(self, nav, *, config, files):
        """Every page must be reachable: in the nav, with a title translated into every other language."""
        assert self.state is not None
        in_nav = {page.file.src_uri for page in nav.pages}
        unlisted = [f.src_uri for f in files.documentation_pages() if f.src_uri not in in_nav]
        check_nav(self.state, unlisted, nav_titles(config.nav or []),
                  compat.nav_translations(config, self.state.language)
                  if self.state.language != self.state.languages[0] else {})
        return nav

    @event_priority(LATE)
    def on_page_markdown(self, markdown: str, *, page, config, files) -> str:
        """Run the page's checks and preparations (`prepare_markdown`) before anything renders."""
        state = self.state
        assert state is not None
        begin_page(state, compat.page_path(page.file.src_uri, state.language), Path(page.file.abs_dest_path).parent)
        try:
            return prepare_markdown(state, markdown, bases=_snippet_bases(config),
                                    snippets=snippets_config(config.mdx_configs, _root(config)),
                                    docs_dir=Path(config.docs_dir),
                                    translated_from=str(page.meta.get(translations.FIELD, "")) or None)
        except BuildError as exc:
            raise PluginError(str(exc)) from exc

    def on_page_content(self, html: str, *, page, config, files) -> str:
        """Turn the page's formulas into MathML (`hood.maths`); a formula that cannot be drawn fails the build."""
        try:
            return render_maths(html)
        except MathsError as exc:
            raise PluginError(f"page {page.file.src_uri}: {exc}. Fix the TeX between the dollar signs.") from exc

    @event_priority(LATE)
    def on_post_page(self, output: str, *, page, config) -> str:
        """Translate the interface text that `mkdocs.yml` sets once for all languages (`interface`, "theme"); point
        a page of another language at its own search index."""
        language = self.state.language if self.state else ""
        output = interface.translate_theme(output, language)
        if self.state and language != self.state.languages[0]:
            output = search.language_root_base(output, language)
        return output

    def on_post_template(self, output: str, *, template_name: str, config) -> str:
        """One 404 page per language (`compat.NotFoundPages`)."""
        if template_name != "404.html" or self.state is None:
            return output
        return self.not_found.page(interface.translate_theme(output, self.state.language), self.state.language,
                                   self.state.languages, Path(config.site_dir))

    @event_priority(LATE)
    def on_post_build(self, *, config) -> None:
        """After the last language: the whole-site checks (`finish`), then bless or report."""
        state = self.state
        if state is None:
            return
        state.done += 1
        if state.done < len(state.languages):  # a language built inside the default one's on_post_build
            return
        self.search_indexes = search.split_site_index(Path(config.site_dir), state.languages,
                                                      self.search_indexes if state.dirty_rebuild else {})
        try:
            message = finish(state)
        except BuildError as exc:
            raise Abort(str(exc)) from exc
        finally:
            self._restore()
        if message:
            raise Abort(f"{message}\n\n(this report is also in {REPORT_FILE})")

    def on_build_error(self, *, error: Exception) -> None:
        """A build stopped before its end (a strict warning such as a raising block, an abort): still write the
        report of what ran, so that a red run can be read from its file."""
        if self.state is not None:
            stopped(self.state, error)
        self._restore()

    def on_shutdown(self) -> None:
        """Leave the process as the first build found it."""
        self._restore()

    def _restore(self) -> None:
        if self.found is not None:
            runtime.restore(self.found)
            self.found = None
