"""The fragility audit: it finds a block whose output depends on a variation, and finds none on the site."""

from __future__ import annotations

import pytest

from tools.audit import ROOT, VARIATIONS, main
from tests.sitekit import build, mini_project

PAGE = '''# Home

```python exec="on" id="threads" result="text"
import torch
print(torch.get_num_threads())
```

```python exec="on" id="steady" session="s" result="text"
import torch
print(torch.ones(3).sum().item())
```
'''


def test_a_block_that_prints_its_thread_count_is_listed_and_a_steady_one_is_not(tmp_path, capsys):
    project = mini_project(tmp_path / "mini", PAGE)
    assert build(project, mode="bless").returncode == 0
    code = main(["--project", str(project), "--variation", "threads-1", "--variation", "pages-alone"])
    out = capsys.readouterr().out
    assert code == 1
    assert "threads-1      1 of 2 changed" in out and "    index.md#threads" in out
    assert "pages-alone    0 of 2 changed" in out
    assert "index.md#steady" not in out


def test_the_variations_cover_threads_blas_caps_page_order_and_the_inductor_cache():
    names = [v.name for v in VARIATIONS]
    assert names == ["pages-alone", "threads-1", "threads-4", "blas-avx2", "blas-avx", "warm-cache"]
    assert VARIATIONS[0].per_page and VARIATIONS[0].inductor_cache == "fresh"
    assert VARIATIONS[-1].inductor_cache == "shared"


@pytest.mark.site
def test_no_block_of_the_site_changes_under_any_variation(capsys):
    code = main(["--project", str(ROOT), "--report", str(ROOT / "audit-report.txt")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("fragility audit: 0 block output(s) changed under 6 variation(s)")


def test_variations_run_side_by_side_only_where_the_inductor_cache_allows():
    """Own caches first, then the shared ones together, then the last shared one alone: it must find them warm."""
    from tools.audit import _stages

    assert [[v.name for v in stage] for stage in _stages(VARIATIONS)] == [
        ["pages-alone"], ["threads-1", "threads-4", "blas-avx2", "blas-avx"], ["warm-cache"]]
