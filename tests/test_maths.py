"""Formulas become MathML at build time: no script, no font, no other host."""

import markdown
import pytest

from hood.maths import MathsError, render_maths


def _page(text: str) -> str:
    md = markdown.Markdown(extensions=["pymdownx.arithmatex"],
                           extension_configs={"pymdownx.arithmatex": {"generic": True}})
    return render_maths(md.convert(text))


def test_inline_and_displayed_formulas_become_mathml_labelled_with_their_tex():
    out = _page("Here $G^\\top x$ and $a < b$.\n\n$$\n\\sum_j G_{ij} W_{jk}\n$$\n")
    assert out.count("<math ") == 3
    assert 'alttext="G^\\top x"' in out and 'alttext="a &lt; b"' in out
    assert '<div class="maths"><math alttext="\\sum_j G_{ij} W_{jk}"' in out and 'display="block"' in out
    assert "arithmatex" not in out and "\\(" not in out


def test_code_and_plain_text_are_left_alone():
    out = _page("Costs `$5` in code, and 5 dollars in text.")
    assert "<math" not in out and "<code>$5</code>" in out


@pytest.mark.parametrize("tex", ["x^", "\\left( x", "\\fracc{1}{2}"])
def test_a_formula_that_cannot_be_drawn_names_its_tex(tex):
    with pytest.raises(MathsError, match="cannot render the formula"):
        render_maths(f'<span class="arithmatex">\\({tex}\\)</span>')
