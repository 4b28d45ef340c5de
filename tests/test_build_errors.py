"""Broken input makes the check build fail, naming the page, the block and the fix."""

from __future__ import annotations

from hood.engine.fingerprint import torch_build
from tests.sitekit import build, mini_project

GOOD = '''# Home

```python exec="on" id="hello" result="text"
--8<-- "hello.py"
```
'''
HELLO = {"hello.py": 'print("hello from a block")\n'}


def test_a_raising_block_fails_the_build_and_names_the_page(tmp_path):
    page = '# Home\n\n```python exec="on" id="boom"\nprint("before")\n1 / 0\n```\n'
    result = build(mini_project(tmp_path, page), mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'boom': raised" in result.output
    assert "ZeroDivisionError" in result.output
    report = (result.project / "site-report.txt").read_text()  # written although strict mode stopped the build
    assert "raised        index.md#boom" in report
    assert "ZeroDivisionError" in report


def test_a_missing_snippet_names_page_block_and_path(tmp_path):
    page = '# Home\n\n```python exec="on" id="lost"\n--8<-- "nowhere/missing.py"\n```\n'
    result = build(mini_project(tmp_path, page), mode="check")
    assert result.returncode != 0
    assert "page index.md (en) includes snippets that do not exist" in result.output
    assert "block 'lost': 'nowhere/missing.py' not found under snippets/ or src/" in result.output


def test_a_block_without_trace_fails_until_blessed(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'hello': missing trace" in result.output
    assert "make bless" in result.output
    assert build(project, mode="bless").returncode == 0
    trace = (project / "traces" / "index" / "hello.txt").read_text()
    assert trace.endswith("hello from a block\n")
    assert "torch" not in trace
    assert (project / "traces" / "TORCH.txt").read_text().splitlines()[-1] == torch_build()["version"]
    assert build(project, mode="check").returncode == 0


def test_a_changed_trace_fails_with_its_diff_and_blessing_restores_it(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    blessed = trace.read_text()
    trace.write_text(blessed.replace("hello from a block", "hello from an older torch"))
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'hello': drift: the output differs from trace traces/index/hello.txt" in result.output
    assert "-hello from an older torch" in result.output
    assert "+hello from a block" in result.output
    assert "run `make bless`" in result.output
    assert build(project, mode="bless").returncode == 0
    assert trace.read_text() == blessed
    assert build(project, mode="check").returncode == 0


def drifted_project(tmp_path):
    """A blessed mini-project whose one trace was then edited: its block drifts."""
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    trace.write_text(trace.read_text().replace("hello from a block", "stale"))
    return project


def test_a_lenient_build_shows_drift_in_the_page_instead_of_failing(tmp_path):
    project = drifted_project(tmp_path)
    result = build(project, mode="lenient")
    assert result.returncode == 0, result.output
    html = result.page("index.html")
    assert "This output differs from its committed trace" in html
    assert "Esta salida difiere de su traza confirmada" in result.page("es/index.html")
    assert "hello from a block" in html


def test_a_block_missing_from_the_translation_fails(tmp_path):
    es = "# Inicio\n\nSin bloque.\n"
    project = mini_project(tmp_path, GOOD, es=es, snippets=HELLO)
    build(project, mode="bless")
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block '*': translation differs" in result.output
    assert "edit docs/es/index.md" in result.output


def test_a_block_without_id_fails(tmp_path):
    page = '# Home\n\n```python exec="on"\nprint(1)\n```\n'
    result = build(mini_project(tmp_path, page), mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'block-1': no id" in result.output


def test_an_orphan_trace_fails_and_blessing_removes_it(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    build(project, mode="bless")
    orphan = project / "traces" / "index" / "gone.txt"
    orphan.write_text("old\n")
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "traces/index/gone.txt" in result.output and "orphan trace" in result.output
    assert build(project, mode="bless").returncode == 0
    assert not orphan.exists()


def test_a_measurement_block_is_shown_but_never_traced(tmp_path):
    page = ('# Home\n\n```python exec="on" id="timing" trace="off" source="above" result="text"\n'
            'import time\nprint(time.time_ns())\n```\n')
    project = mini_project(tmp_path, page)
    result = build(project, mode="check")
    assert result.returncode == 0, result.output
    assert not (project / "traces").exists() or not list((project / "traces").rglob("*.txt"))
    assert result.executions() == [("index.md", "timing")]
    html = result.page("index.html")
    assert 'trace=' not in html and "time_ns" in html


def test_a_trace_left_by_a_block_now_untraced_is_an_orphan(tmp_path):
    page = ('# Home\n\n```python exec="on" id="timing" trace="off" result="text"\nprint(1)\n```\n')
    project = mini_project(tmp_path, page)
    stale = project / "traces" / "index" / "timing.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("# page: index.md\n# block: timing\n1\n")  # from when the block was traced
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "traces/index/timing.txt" in result.output and "orphan trace" in result.output


def test_a_plain_mkdocs_build_is_a_check_build(tmp_path):
    result = build(drifted_project(tmp_path), mode="plain")
    assert result.returncode != 0
    assert "1 of 1 traced blocks changed output" in result.output


def test_blessing_refuses_while_a_block_raises_and_loses_no_trace(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    committed = trace.read_bytes()
    (project / "snippets" / "hello.py").write_text('raise RuntimeError("not in this torch")\n')
    result = build(project, mode="bless")
    assert result.returncode != 0
    assert "make bless refused: no trace was written or removed" in result.output
    assert "page index.md, block 'hello': raised" in result.output
    assert trace.read_bytes() == committed


def test_blessing_refuses_a_block_without_id_or_a_repeated_id(tmp_path):
    page = GOOD + '\n```python exec="on" id="hello"\nprint(2)\n```\n\n```python exec="on"\nprint(3)\n```\n'
    project = mini_project(tmp_path, page, snippets=HELLO)
    result = build(project, mode="bless")
    assert result.returncode != 0
    assert "page index.md, block 'hello': duplicate id" in result.output
    assert "page index.md, block 'block-3': no id" in result.output
    assert not (project / "traces").exists() or not list((project / "traces").rglob("*.txt"))


def test_another_torch_is_one_problem_and_only_changed_blocks_are_named(tmp_path):
    page = GOOD + '\n```python exec="on" id="other" result="text"\nprint("unchanged")\n```\n'
    project = mini_project(tmp_path, page, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    (project / "traces" / "TORCH.txt").write_text("2.12.1+cpu\n")
    trace = project / "traces" / "index" / "hello.txt"
    trace.write_text(trace.read_text().replace("hello from a block", "hello from 2.12.1"))
    result = build(project, mode="check")
    assert result.returncode != 0
    report = (project / "site-report.txt").read_text()
    assert report.startswith("1 of 2 traced blocks changed output\n  drift         index.md#hello\n")
    assert report.count("torch version:") == 1 and "blessed with torch 2.12.1+cpu" in report
    assert "index.md#other" not in report
    assert "+hello from a block" in report
    assert build(project, mode="bless").returncode == 0
    assert (project / "traces" / "TORCH.txt").read_text().splitlines()[-1] == torch_build()["version"]
    assert build(project, mode="check").returncode == 0


def test_blessing_one_block_writes_its_trace_alone(tmp_path):
    page = GOOD + '\n```python exec="on" id="other" result="text"\nprint("other")\n```\n'
    project = mini_project(tmp_path, page, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    hello, other = (project / "traces" / "index" / f"{name}.txt" for name in ("hello", "other"))
    stale = {path: path.read_text().replace("\n", "\nstale\n", 1) for path in (hello, other)}
    for path, text in stale.items():
        path.write_text(text)
    result = build(project, mode="bless", extra_env={"HOOD_BLESS": "index.md#hello"})
    assert result.returncode == 0, result.output
    assert "stale" not in hello.read_text()
    assert other.read_text() == stale[other]
    assert "not blessed (outside index.md#hello): index.md#other" in result.output


def test_a_page_missing_from_the_nav_or_its_translation_fails(tmp_path):
    project = mini_project(tmp_path, "# Home\n")
    for language in ("en", "es"):
        (project / "docs" / language / "hidden.md").write_text("# Hidden\n")
        (project / "docs" / language / "extra.md").write_text("# Extra\n")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("- Home: index.md", "- Home: index.md\n- Extra: extra.md"))
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page hidden.md, block '*': not in nav: docs/en/hidden.md is on no menu" in result.output
    assert "nav untranslated: the nav title 'Extra' has no es translation" in result.output
    assert "extra.md, block '*': not in nav" not in result.output


def test_an_english_edit_after_translation_fails_until_the_translation_is_marked(tmp_path):
    import subprocess

    from hood.engine.translations import mark

    project = mini_project(tmp_path, "# Home\n\nThe first version.\n", es="# Inicio\n\nLa primera versión.\n")
    assert build(project, mode="check").returncode == 0
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "docs"], check=True)
    subprocess.run([*git, "commit", "-qm", "v1"], check=True)
    english = project / "docs" / "en" / "index.md"
    english.write_text("# Home\n\nThe second version.\n")
    result = build(project, mode="check")
    assert result.returncode != 0
    assert ("page index.md, block '*': translation stale: docs/es/index.md translates an older version of "
            "docs/en/index.md") in result.output
    assert "-The first version." in result.output and "+The second version." in result.output
    lenient = build(project, mode="lenient")
    assert "Esta traducción es anterior a la página inglesa" in lenient.page("es/index.html")
    spanish = project / "docs" / "es" / "index.md"
    spanish.write_text(mark(spanish.read_text().replace("primera", "segunda"), english.read_text()))
    assert build(project, mode="check").returncode == 0
