"""A build leaves its process as it found it, so the engine can be tested in process."""

import sys

import torch

from hood.engine import runtime
from tests.sitekit import mini_project
from tools.sandbox import build_in_process

PAGE = ('# Home\n\n```python exec="on" id="threads" result="text"\nimport torch\n'
        'print(torch.get_num_threads(), torch.ones(2).sum().item())\n```\n')


def test_a_build_restores_path_environment_threads_and_modules(tmp_path):
    torch.set_num_threads(1)
    before = runtime.snapshot()
    result = build_in_process(mini_project(tmp_path, PAGE), mode="bless")
    assert result.returncode == 0, result.output
    assert (tmp_path / "traces" / "index" / "threads.txt").read_text().splitlines()[-1] == "2 2.0"  # ran pinned
    after = runtime.snapshot()
    assert after.path == before.path and after.meta_path == before.meta_path
    assert after.environment == before.environment
    assert torch.get_num_threads() == 1
    pages = {name for name in after.modules if name.split(".")[0] == "snippets"}
    assert pages == {name for name in before.modules if name.split(".")[0] == "snippets"}  # the blocks' imports
    assert str(tmp_path) not in sys.path


def test_an_in_process_check_build_fails_on_drift(tmp_path):
    project = mini_project(tmp_path, PAGE)
    assert build_in_process(project, mode="bless").returncode == 0
    trace = project / "traces" / "index" / "threads.txt"
    trace.write_text(trace.read_text().replace("2 2.0", "2 3.0"))
    result = build_in_process(project, mode="check")
    assert result.returncode == 1 and "1 of 1 traced blocks changed output" in result.output
    assert runtime.snapshot().path == sys.path


def test_download_options_stay_out_of_the_rendered_source(tmp_path):
    page = ('# Home\n\n```python exec="on" id="task" source="above" result="text" answer="f" predict="n"\n'
            'def f():\n    return "```"\n\nn = 1\nprint(f())\n```\n')
    project = mini_project(tmp_path, page)
    assert build_in_process(project, mode="bless").returncode == 0
    html = (project / "site" / "index.html").read_text()
    assert "answer=" not in html and "predict=" not in html
    assert "<pre><span></span><code><span class=\"k\">def</span>" in html  # highlighted code, not a paragraph
