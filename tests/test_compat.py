"""`hood.compat`: every reliance on another package's internals, checked against what it was written for."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from mkdocs.commands import serve
from mkdocs.plugins import event_priority
from mkdocs_static_i18n.plugin import I18n

from hood import compat
from hood.mkdocs_plugin import LATE


def _config(i18n) -> SimpleNamespace:
    return SimpleNamespace(plugins={"i18n": i18n} if i18n is not None else {})


def test_the_installed_i18n_plugin_runs_before_hood_in_every_event_hood_relies_on():
    compat.check_i18n_order(_config(I18n()), LATE)
    compat.check_i18n_order(_config(None), LATE)  # one language, nothing to order


def test_an_i18n_plugin_that_runs_after_hood_is_refused_by_name():
    class LateI18n(I18n):
        @event_priority(LATE - 1)
        def on_post_build(self, config):
            return super().on_post_build(config)

    with pytest.raises(compat.CompatError, match=r"\['on_post_build'\]"):
        compat.check_i18n_order(_config(LateI18n()), LATE)


def test_the_serve_patch_makes_the_live_reload_server_poll_at_the_given_interval(monkeypatch):
    monkeypatch.setattr(serve, "LiveReloadServer", serve.LiveReloadServer)
    compat.poll_saved_files(0.1)
    server = serve.LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root="/tmp")
    assert server.observer.timeout == 0.1
    server.server_close()


def test_a_page_path_drops_the_language_folder_only_when_it_is_the_page_language():
    assert compat.page_path("es/theory/03-compile.md", "es") == "theory/03-compile.md"
    assert compat.page_path("theory/03-compile.md", "en") == "theory/03-compile.md"
    assert compat.page_path("es/index.md", "en") == "es/index.md"


def test_each_language_keeps_its_404_page_and_the_root_keeps_the_default_one(tmp_path):
    pages = compat.NotFoundPages()
    assert pages.page("<html lang=en>", "en", ["en", "es"], tmp_path) == "<html lang=en>"
    assert pages.page("<html lang=es>", "es", ["en", "es"], tmp_path) == "<html lang=en>"
    assert (tmp_path / "es" / "404.html").read_text() == "<html lang=es>"


def test_another_languages_404_page_gets_the_default_ones_language_links(tmp_path):
    """The i18n plugin points the switcher at the last page built; a 404 page links to each language's home."""
    pages = compat.NotFoundPages()
    pages.page('<a href="/" hreflang="en" class="x"><a href="/es/" hreflang="es" class="x">', "en", ["en", "es"],
               tmp_path)
    pages.page('<a href="/theory/04/" hreflang="en" class="x"><a href="/es/theory/04/" hreflang="es" class="x">',
               "es", ["en", "es"], tmp_path)
    assert (tmp_path / "es" / "404.html").read_text() == (
        '<a href="/" hreflang="en" class="x"><a href="/es/" hreflang="es" class="x">')
