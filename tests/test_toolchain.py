"""The toolchain rehearsal compares what a build writes, not what changes from run to run."""

from tools.toolchain import article, compare


def test_an_article_sets_aside_outputs_timings_and_addresses_but_not_prose():
    page = ('<html><meta name="generator" content="x"><article><p>Prose.</p><pre>t  3.1 us</pre>'
            '<svg><text>1</text></svg>\n<div class="hood-timing"><p>ratio 0.42</p></div>\n'
            '<p>at 0x7fd96d1123b0</p></article></html>')
    other = page.replace("3.1 us", "9.9 us").replace("0.42", "0.95").replace("0x7fd96d1123b0", "0x7f27de352e00")
    assert article(page) == article(other)
    assert article(page) != article(page.replace("Prose.", "Other prose."))


def test_compare_names_files_only_one_site_has_and_pages_that_differ(tmp_path):
    ours, theirs = tmp_path / "a", tmp_path / "b"
    for site, text in ((ours, "<article><p>One.</p></article>"), (theirs, "<article><p>Two.</p></article>")):
        (site / "p").mkdir(parents=True)
        (site / "p" / "index.html").write_text(text)
    (ours / "extra.js").write_text("")
    assert compare(ours, theirs) == (["extra.js"], ["p/index.html"])
