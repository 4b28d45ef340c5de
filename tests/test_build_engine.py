"""The engine: once per build, a cache that makes warm rebuilds free, sessions replayed, atomic writes."""

from __future__ import annotations

import os

import pytest

from hood.engine.cache import BlockCache, Outcome, write_atomically
from hood.engine.engine import Block, Engine, captured_stdout
from hood.engine.settings import Settings
from tests.sitekit import build, build_subprocess, mini_project

SESSION_PAGE = '''# Home

```python exec="on" id="define" session="s" result="text"
value = 41
print("defined")
```

```python exec="on" id="use" session="s" result="text"
print(value + {step})
```
'''


def test_each_block_runs_once_across_languages(tmp_path):
    project = mini_project(tmp_path, SESSION_PAGE.format(step=1))
    result = build(project, mode="bless")
    assert result.returncode == 0, result.output
    assert result.executions() == [("index.md", "define"), ("index.md", "use")]
    assert "42" in result.page("index.html") and "42" in result.page("es/index.html")


def test_an_unchanged_rebuild_executes_nothing_and_imports_no_torch(tmp_path):
    project = mini_project(tmp_path, SESSION_PAGE.format(step=1))
    assert build(project, mode="bless").returncode == 0
    first = build(project, mode="lenient", cache=True)
    assert len(first.executions()) == 2
    second = build_subprocess(project, mode="lenient", cache=True)  # a fresh process: does it import torch?
    assert second.returncode == 0
    assert second.executions() == []
    assert "hood: 0 blocks executed, 2 traces checked, torch imported: False" in second.output
    assert "42" in second.page("index.html")


def test_the_check_build_never_reads_the_cache(tmp_path):
    project = mini_project(tmp_path, SESSION_PAGE.format(step=1))
    assert build(project, mode="bless").returncode == 0
    build(project, mode="lenient", cache=True)
    result = build(project, mode="check", cache=True)
    assert result.returncode == 0, result.output
    assert len(result.executions()) == 2


def test_editing_a_later_session_block_replays_the_earlier_one(tmp_path):
    project = mini_project(tmp_path, SESSION_PAGE.format(step=1))
    assert build(project, mode="bless").returncode == 0
    build(project, mode="lenient", cache=True)
    for language in ("en", "es"):
        (project / "docs" / language / "index.md").write_text(SESSION_PAGE.format(step=2))
    result = build(project, mode="lenient", cache=True)
    assert result.returncode == 0
    assert result.executions() == [("index.md", "use")]
    assert "43" in result.page("index.html")


def test_an_edited_snippet_changes_the_key(tmp_path):
    page = '# Home\n\n```python exec="on" id="a" result="text"\n--8<-- "a.py"\n```\n'
    project = mini_project(tmp_path, page, snippets={"a.py": "print('one')\n"})
    build(project, mode="lenient", cache=True)
    (project / "snippets" / "a.py").write_text("print('two')\n")
    result = build(project, mode="lenient", cache=True)
    assert result.executions() == [("index.md", "a")]
    assert "two" in result.page("index.html")


IDENTITY_PAGE = '''# Home

```python exec="on" id="tensor" session="s" result="text"
import torch
torch.manual_seed(0)
weights = torch.randn(2, 3)
print(weights)
```

```python exec="on" id="words" session="s" result="text"
--8<-- "hood/capture/common.py:body"
print(words(en="batch", es="lote"), decimal(weights.abs().sum().item(), ".3f"))
```

```python exec="on" id="keys" result="text"
import torch
print(torch._C._dispatch_keys(torch.ones(1, requires_grad=True)))
```
'''


def test_two_cold_builds_write_byte_identical_traces(tmp_path):
    """Two cold blesses in two copies of a site write the same bytes, and a check build accepts them: a trace does
    not depend on the build that wrote it (the real site's check build compares every output with its trace)."""
    first = mini_project(tmp_path / "first", IDENTITY_PAGE)
    second = mini_project(tmp_path / "second", IDENTITY_PAGE)
    for project in (first, second):
        result = build(project, mode="bless")
        assert result.returncode == 0, result.output
    traces = sorted(p.relative_to(first / "traces") for p in (first / "traces").rglob("*.txt"))
    assert [t.name for t in traces if t.parent.name == "index"] == ["keys.txt", "tensor.txt", "words.txt"]
    assert traces == sorted(p.relative_to(second / "traces") for p in (second / "traces").rglob("*.txt"))
    for rel in traces:
        assert (first / "traces" / rel).read_bytes() == (second / "traces" / rel).read_bytes(), rel
    assert build(first, mode="check").returncode == 0


def test_atomic_write_leaves_the_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "entry.json"
    write_atomically(target, "old")

    def killed(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "new")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_a_corrupt_cache_entry_is_a_miss(tmp_path):
    cache = BlockCache(tmp_path)
    cache.put("ab" * 32, Outcome("out"))
    assert cache.get("ab" * 32) == Outcome("out")
    (tmp_path / "blocks" / "ab" / f"{'ab' * 32}.json").write_text('{"output": "tru')
    assert cache.get("ab" * 32) is None


def test_blocks_start_from_seeded_state(tmp_path):
    engine = Engine(Settings(root=tmp_path, use_cache=False), "fp-seeded")
    code = "import torch\nprint(torch.rand(2).tolist())\ntorch.rand(100)\n"
    first = engine.run(Block("p.md", "a", code))
    second = engine.run(Block("p.md", "b", code + "\n"))  # another key: it really runs
    assert first.output == second.output


def test_stdout_from_c_code_is_captured(tmp_path):
    import ctypes

    with captured_stdout() as out:
        print("python")
        ctypes.CDLL(None).printf(b"from C\n")
    assert out.getvalue() == "python\nfrom C\n"


def test_editing_a_module_changes_the_key_of_the_blocks_that_import_it_only(tmp_path):
    from hood.engine.fingerprint import block_key

    (tmp_path / "snippets" / "topic").mkdir(parents=True)
    for init in (tmp_path / "snippets" / "__init__.py", tmp_path / "snippets" / "topic" / "__init__.py"):
        init.write_text("")
    helper = tmp_path / "snippets" / "topic" / "helper.py"
    helper.write_text("VALUE = 1\n")
    (tmp_path / "snippets" / "topic" / "user.py").write_text("from snippets.topic.helper import VALUE\n")
    uses = ["from snippets.topic.user import VALUE\nprint(VALUE)\n"]
    later = [*uses, "print(VALUE + 1)\n"]  # a later block of the same session
    alone = ["print(2)\n"]
    before = [block_key("fp", codes, tmp_path) for codes in (uses, later, alone)]
    helper.write_text("VALUE = 2\n")
    after = [block_key("fp", codes, tmp_path) for codes in (uses, later, alone)]
    assert after[0] != before[0] and after[1] != before[1]  # through user.py, and down the session
    assert after[2] == before[2]
