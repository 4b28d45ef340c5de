"""Maths rendered at build time: the TeX that `pymdownx.arithmatex` marks becomes MathML in the page.

Browsers draw MathML themselves, so a formula needs no script, no font download and no request to another host.
Write `$d\\mathbf{W} = G^\\top x$` inline and `$$ … $$` on lines of their own for a displayed formula.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

_MARKED = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])\s*</(?P=tag)>',
    re.DOTALL,
)

_UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)<")
"""The converter keeps a command it does not know as text: `<mi>\\foo</mi>`."""


class MathsError(ValueError):
    """A formula that cannot be converted, with its TeX."""


def to_mathml(tex: str, *, display: bool = False) -> str:
    """The MathML of one TeX formula (`display` for a formula on its own line)."""
    try:
        mathml = convert(tex.strip(), display="block" if display else "inline")
    except Exception as exc:  # the converter raises many kinds; the page must name the formula
        raise MathsError(f"cannot render the formula {tex.strip()!r}: {type(exc).__name__} {exc}") from exc
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        raise MathsError(f"cannot render the formula {tex.strip()!r}: unknown command {unknown[1]}")
    return mathml


def render_maths(page_html: str) -> str:
    """Replace every formula that arithmatex marked in `page_html` with its MathML, keeping the TeX as its label."""

    def replace(match: re.Match[str]) -> str:
        display = match["block"] is not None
        tex = html.unescape(match["block"] if display else match["inline"])
        mathml = to_mathml(tex, display=display)
        label = html.escape(tex.strip(), quote=True)
        mathml = mathml.replace("<math ", f'<math alttext="{label}" ', 1)
        return f'<div class="maths">{mathml}</div>' if display else mathml

    return _MARKED.sub(replace, page_html)
