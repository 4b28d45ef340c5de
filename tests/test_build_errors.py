"""Broken input makes the check build fail, naming the page, the block and the fix."""

from __future__ import annotations

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
    assert "# torch: 2.13.0" in trace
    assert build(project, mode="check").returncode == 0


def test_a_changed_trace_fails_with_its_diff_and_blessing_restores_it(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    blessed = trace.read_text()
    trace.write_text(blessed.replace("hello from a block", "hello from an older torch"))
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block 'hello': drift: trace traces/index/hello.txt differs" in result.output
    assert "-hello from an older torch" in result.output
    assert "+hello from a block" in result.output
    assert "run `make bless`" in result.output
    assert build(project, mode="bless").returncode == 0
    assert trace.read_text() == blessed
    assert build(project, mode="check").returncode == 0


def test_a_lenient_build_shows_drift_in_the_page_instead_of_failing(tmp_path):
    project = mini_project(tmp_path, GOOD, snippets=HELLO)
    assert build(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "hello.txt"
    trace.write_text(trace.read_text().replace("hello from a block", "stale"))
    result = build(project, mode="lenient")
    assert result.returncode == 0, result.output
    html = result.page("index.html")
    assert "This output differs from its committed trace" in html
    assert "hello from a block" in html


def test_a_block_missing_from_the_translation_fails(tmp_path):
    es = "# Inicio\n\nSin bloque.\n"
    project = mini_project(tmp_path, GOOD, es=es, snippets=HELLO)
    build(project, mode="bless")
    result = build(project, mode="check")
    assert result.returncode != 0
    assert "page index.md, block '*': translation" in result.output


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
    page = '# Home\n\n```python exec="on" id="timing" trace="off" source="above" result="text"\nimport time\nprint(time.time_ns())\n```\n'
    project = mini_project(tmp_path, page)
    result = build(project, mode="check")
    assert result.returncode == 0, result.output
    assert not (project / "traces").exists() or not list((project / "traces").rglob("*.txt"))
    assert result.executions() == [("index.md", "timing")]
    html = result.page("index.html")
    assert 'trace=' not in html and "time_ns" in html
