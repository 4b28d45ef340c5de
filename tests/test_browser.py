"""A reader's view: headless Chromium (Debian's) on the built site served on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def base_url(site_build) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site_build.site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, base_url) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    page.foreign_requests = []
    page.on("request", lambda r: None if urlparse(r.url).hostname == "127.0.0.1" or r.url.startswith("data:")
            else page.foreign_requests.append(r.url))
    yield page
    context.close()


def test_the_executed_output_is_on_the_page(page, base_url):
    page.goto(f"{base_url}/theory/00-why-open-the-hood/")
    text = page.locator("article").inner_text()
    assert "torch: 2.13.0" in text
    assert "y.grad_fn: <AddmmBackward0 object at 0x" in text
    assert page.foreign_requests == []


def test_the_switcher_leads_to_the_same_page_in_spanish(page, base_url):
    page.goto(f"{base_url}/theory/00-why-open-the-hood/")
    page.locator(".md-header__option .md-select").hover()
    page.locator('a.md-select__link[hreflang="es"]').click()
    page.wait_for_url("**/es/theory/00-why-open-the-hood/")
    assert page.locator("html").get_attribute("lang") == "es"
    assert "Por qué abrir el capó del framework" in page.locator("h1").inner_text()
    assert "torch: 2.13.0" in page.locator("article").inner_text()
    assert page.foreign_requests == []


def test_a_spanish_word_in_search_finds_the_spanish_page(page, base_url):
    page.goto(f"{base_url}/es/")
    page.locator("label.md-search__icon, .md-search__input").first.click()
    page.locator("input.md-search__input").press_sequentially("entrañas", delay=50)
    result = page.locator(".md-search-result__item a").first
    result.wait_for(timeout=15000)
    hrefs = page.locator(".md-search-result__item a").evaluate_all("els => els.map(e => e.href)")
    assert any("/es/" in h for h in hrefs), hrefs
    assert page.foreign_requests == []
