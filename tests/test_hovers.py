"""The glossary's hovers find a term wherever the Markdown source breaks its line."""

import markdown


def render(text: str) -> str:
    return markdown.markdown(text, extensions=["hood.hovers"])


def test_a_term_broken_over_two_lines_gets_its_hover():
    html = render("Each rank is a process\ngroup member.\n\n*[process group]: The ranks a collective runs on.")
    assert '<abbr title="The ranks a collective runs on.">process\ngroup</abbr>' in html


def test_a_term_on_one_line_still_gets_its_hover_and_a_longer_term_wins():
    html = render("A key set, a dispatch key set.\n\n*[key set]: Keys.\n*[dispatch key set]: The set.")
    assert '<abbr title="Keys.">key set</abbr>' in html and '<abbr title="The set.">dispatch key set</abbr>' in html


def test_a_word_inside_another_gets_no_hover():
    assert "<abbr" not in render("The guardian.\n\n*[guard]: A check.")
