"""Figures on a page: a drawing in a box of its own, its caption, and the data it was drawn from.

A block that draws prints `figure(drawing, data, caption)`. The reader sees the drawing: it shrinks with the
column down to `MIN_SCALE` of its size, then scrolls inside its own box, never the page. The trace keeps the
data only (`hood.engine.normalize`), so a figure drifts when what it shows changes, not when its drawing does;
the page does not carry the data (`without_data`).

Drawings are inline SVG, no script. Colours are CSS classes (`docs/assets/hood.css`), so a figure follows the
light and dark themes: `c1`…`c5` fill a box with one of five series colours, `accent` and `muted` mark what the
caption points at and what it does not. Words in a drawing are `words(en=..., es=...)` markers; the page shows
its own language. Helpers: `drawing` (the SVG root), `box`, `text`, `arrow`.
"""

# --8<-- [start:body]
from html import escape

MIN_SCALE = 0.8
"""How far a drawing shrinks to fit its column before its box scrolls instead (text stays readable)."""

ARROW_DEFS = ('<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
              'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>')


def drawing(width: float, height: float, title: str, body: str, css_class: str = "hood-diagram") -> str:
    """The SVG root of a drawing: its natural size, its accessible name (`title`) and its content."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'width="{width:.0f}" style="--natural-width:{width * MIN_SCALE:.0f}px" role="img" '
        f'aria-label="{escape(title)}"><title>{escape(title)}</title>{ARROW_DEFS}{body}</svg>'
    )


def box(x: float, y: float, w: float, h: float, css_class: str = "", tip: str = "") -> str:
    """A rounded rectangle; `tip` is shown when the pointer rests on it."""
    cls = f' class="{css_class}"' if css_class else ""
    inner = f"<title>{escape(tip)}</title>" if tip else ""
    return f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4"{cls}>{inner}</rect>'


def text(x: float, y: float, content: str, css_class: str = "label", anchor: str = "middle") -> str:
    """One line of text; `anchor` is `start`, `middle` or `end`."""
    return f'<text x="{x:.1f}" y="{y:.1f}" class="{css_class}" text-anchor="{anchor}">{escape(content)}</text>'


def arrow(x1: float, y1: float, x2: float, y2: float, css_class: str = "") -> str:
    """A straight arrow from (x1, y1) to (x2, y2)."""
    cls = f' class="{css_class}"' if css_class else ""
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"{cls} marker-end="url(#arrow)"/>'


def badge(x: float, y: float, mark: str) -> str:
    """A numbered circle centred on (x, y): a step number on a box's corner."""
    return f'<circle cx="{x:.0f}" cy="{y:.0f}" r="11" class="badge"/>' + text(x, y + 4.5, mark, "badge-text")


DATA_OPEN, DATA_CLOSE = "<!--hood-figure-data\n", "\n-->"
FIGURE_MARK = "[figure]"
"""The line a figure's trace starts with, before the data it is drawn from."""


def figure(svg: str, data: str, caption: str = "") -> str:
    """A drawing as a page shows it, with its caption; `data` (plain text: the values drawn) is what its trace keeps.

    In a page's download (`PAGE_LANGUAGE` set) the drawing is shown instead (`shown`), and the data is returned.
    """
    if globals().get("PAGE_LANGUAGE"):
        return shown(svg, data, caption)
    safe = data.replace("--", "- -")  # an HTML comment cannot hold "--"
    return (f'<figure class="hood-figure"><div class="hood-figure-box">{svg}</div>'
            + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "")
            + f"{DATA_OPEN}{safe}{DATA_CLOSE}</figure>")


STANDALONE_STYLE = (
    "<style>text{font:13px monospace;fill:#222}.label{font-size:14px;font-weight:600}.heading{font-size:15px;"
    "font-weight:700}.detail,.small{font-size:12px;fill:#666}rect{fill:#f5f5f5;stroke:#999;stroke-width:1.2}"
    ".node rect{stroke:#ff5722;stroke-width:1.5}.c1 rect,rect.c1{fill:#d9e7fb}.c2 rect,rect.c2{fill:#fde2c8}"
    ".c3 rect,rect.c3{fill:#d6f0dc}.c4 rect,rect.c4{fill:#eadcf8}.c5 rect,rect.c5{fill:#f9d9de}"
    ".accent rect,rect.accent{fill:#ffccbc}.muted rect,rect.muted{fill:#eceff1;stroke-dasharray:4 3}"
    "rect.plain{fill:none;stroke:none}line,path.edge{stroke:#888;stroke-width:1.5;fill:none}"
    "line.strong{stroke:#ff5722;stroke-width:2}marker path{fill:#888}.badge{fill:#ff5722}"
    ".badge-text{fill:#fff;font-size:12px;font-weight:700}</style>"
)
"""The site's figure classes in its light colours (`docs/assets/hood.css`), for a drawing read outside the site."""


def light(svg: str) -> str:
    """`svg` styled for the light theme, to be read outside the site."""
    return svg.replace(">", ">" + STANDALONE_STYLE, 1)


SHOWN = []
"""The files `shown` wrote, in order."""


def shown(svg: str, data: str, caption: str = "") -> str:
    """A figure outside the site: displayed in a notebook, written to `figure-N.svg` by a script (which says so on
    stderr). Returns the data behind a `[figure]` line, as the figure's trace holds it."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
        notebook = get_ipython() is not None
    except ImportError:
        notebook = False
    if notebook:
        display(HTML(light(svg) + (f"<p><em>{escape(caption)}</em></p>" if caption else "")))
    else:
        import sys
        SHOWN.append(f"figure-{len(SHOWN) + 1}.svg")
        with open(SHOWN[-1], "w", encoding="utf-8") as file:
            file.write(light(svg))
        print(f"{SHOWN[-1]}: {caption}", file=sys.stderr)
    return FIGURE_MARK + "\n" + data
# --8<-- [end:body]

import re  # noqa: E402  (below: what the build uses, not what a page's setup block needs)

_FIGURE = re.compile(r'<figure class="hood-figure">.*?' + re.escape(DATA_OPEN) + r"(.*?)" + re.escape(DATA_CLOSE)
                     + "</figure>", re.DOTALL)


def figure_data(output: str) -> str:
    """`output` with each figure replaced by the data it was drawn from: what a trace keeps."""
    return _FIGURE.sub(lambda m: FIGURE_MARK + "\n" + m.group(1), output)


def without_data(html: str) -> str:
    """`html` with the data comments of its figures removed: what a page carries."""
    return re.sub(re.escape(DATA_OPEN) + r".*?" + re.escape(DATA_CLOSE), "", html, flags=re.DOTALL)


def standalone(output: str) -> str:
    """The first drawing in `output` as an SVG file of its own: without its figure, styled for the light theme."""
    return light(re.search(r"<svg\b.*?</svg>", output, re.DOTALL).group(0))
