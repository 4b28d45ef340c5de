"""Every figure as a reader sees it: in Chromium, at phone and desktop width, light and dark, both languages.

Screenshots of every figure are kept in pytest's temporary folder (the run prints where) for anyone to look at.
"""

from __future__ import annotations

import pytest

from tests.test_browser import _page_paths, base_url, browser  # noqa: F401  (fixtures)

SMALLEST_TEXT_PX = 9.0
"""The smallest a figure's text may render at, once the drawing has shrunk to its column."""

MEASURE = """() => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  const column = document.querySelector('article').clientWidth;
  const luminance = c => { const [r, g, b] = c.match(/[\\d.]+/g).map(Number);
                           return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
  const background = luminance(getComputedStyle(document.body).backgroundColor);
  return [...document.querySelectorAll('article figure.hood-figure')].map(figure => {
    const texts = [...figure.querySelectorAll('svg text')].map(t => {
      const svg = t.ownerSVGElement, scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const under = t.classList.contains('badge-text')  // a number on its badge, not on the page
        ? luminance(getComputedStyle(t.previousElementSibling).fill) : background;
      return {size: parseFloat(getComputedStyle(t).fontSize) * scale,
              contrast: Math.abs(luminance(getComputedStyle(t).fill) - under)};
    });
    return {width: figure.getBoundingClientRect().width, column,
            label: figure.querySelector('svg') ? figure.querySelector('svg').getAttribute('aria-label') : '',
            smallest: Math.min(...texts.map(t => t.size)), faintest: Math.min(...texts.map(t => t.contrast))};
  });
}"""


def figure_paths(site) -> list[str]:
    """The pages, both languages, that hold at least one figure."""
    return [path for path in _page_paths(site)
            if 'class="hood-figure"' in (site / path.strip("/") / "index.html").read_text(encoding="utf-8")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_every_figure_fits_its_column_and_reads(browser, base_url, site_build, width, scheme, capsys,  # noqa: F811
                                               tmp_path_factory):
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    page = context.new_page()
    problems, shots = [], 0
    folder = tmp_path_factory.mktemp(f"shots-{scheme}-{width}")
    paths = figure_paths(site_build.site)
    assert any(p.startswith("/es/") for p in paths) and any(not p.startswith("/es/") for p in paths)
    for path in paths:
        page.goto(f"{base_url}{path}")
        figures = page.evaluate(MEASURE)
        if page.evaluate("document.documentElement.scrollWidth > innerWidth"):
            problems.append(f"{path}: the page scrolls sideways")
        for n, seen in enumerate(figures, 1):
            where = f"{path} figure {n} ({seen['label']})"
            if seen["width"] > seen["column"] + 1:
                problems.append(f"{where}: {seen['width']:.0f} px wide in a {seen['column']} px column")
            if seen["smallest"] < SMALLEST_TEXT_PX:
                problems.append(f"{where}: text drawn at {seen['smallest']:.1f} px")
            if seen["faintest"] < 0.3:
                problems.append(f"{where}: text barely differs from the background ({seen['faintest']:.2f})")
            name = path.strip("/").replace("/", "_") or "home"
            shot = folder / f"{name}-{n}.png"
            page.locator("article figure.hood-figure").nth(n - 1).screenshot(path=str(shot))
            shots += 1
    context.close()
    with capsys.disabled():  # shown on success too: where to look
        print(f"\n{shots} figure screenshots in {folder}")
    assert problems == []
