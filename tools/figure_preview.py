"""Look at a figure before building the site: run the function that prints it, then screenshot it in Chromium.

    python -m tools.figure_preview snippets.autograd.diagrams:draw_linear_graph

writes `shots/preview/<function>-<lang>-<width>-<scheme>.png` for English and Spanish, 390 and 1280 px wide, light
and dark, with the theme's stylesheets from the last build in `site/`, and prints the smallest rendered font size.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
from pathlib import Path

from hood.capture.common import LANGUAGES, localize
from hood.capture.figure import without_data

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
WIDTHS = (390, 1280)
SCHEMES = ("default", "slate")

SMALLEST_FONT = """() => Math.min(...[...document.querySelectorAll('svg text')].map(t => {
  const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return parseFloat(getComputedStyle(t).fontSize) * scale; }))"""


def page_html(output: str, language: str, scheme: str) -> str:
    """A page holding `output` as the site would show it, with the theme's and the site's stylesheets."""
    sheets = sorted((ROOT / "site" / "assets" / "stylesheets").glob("*.css")) + [ROOT / "docs/assets/hood.css"]
    links = "".join(f'<link rel="stylesheet" href="{sheet.as_uri()}">' for sheet in sheets)
    return (f'<!doctype html><html lang="{language}"><head><meta name="viewport" content="width=device-width">{links}'
            f'</head><body data-md-color-scheme="{scheme}" data-md-color-primary="deep-orange">'
            f'<div class="md-content"><article class="md-content__inner md-typeset">'
            f"{localize(without_data(output), language)}</article></div></body></html>")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("function", help="module:function that prints one or more figures")
    parser.add_argument("--out", type=Path, default=ROOT / "shots" / "preview")
    args = parser.parse_args(argv)
    module, name = args.function.split(":")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        getattr(importlib.import_module(module), name)()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for language in LANGUAGES:
            for scheme in SCHEMES:
                html = args.out / f"{name}-{language}-{scheme}.html"
                html.write_text(page_html(printed.getvalue(), language, scheme), encoding="utf-8")
                for width in WIDTHS:
                    page = browser.new_page(viewport={"width": width, "height": 900})
                    page.goto(html.as_uri())
                    shot = args.out / f"{name}-{language}-{width}-{scheme}.png"
                    page.screenshot(path=str(shot), full_page=True)
                    sideways = page.evaluate("document.documentElement.scrollWidth > innerWidth")
                    print(f"{shot.relative_to(ROOT)}: smallest text {page.evaluate(SMALLEST_FONT):.1f} px"
                          + ("; THE PAGE SCROLLS SIDEWAYS" if sideways else ""))
                    page.close()
        browser.close()


if __name__ == "__main__":
    main()
