"""The known state: modules re-imported after edits, Inductor and ATen pinned before torch loads."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from hood.engine import runtime


def test_purge_drops_snippets_and_capture_modules_but_keeps_the_build_layer():
    import snippets.running_example  # noqa: F401

    stale = runtime.purge_project_modules()
    assert "snippets.running_example" in stale
    assert "snippets.running_example" not in sys.modules
    assert "hood.engine.runtime" in sys.modules and "hood" in sys.modules


def test_inductor_is_pinned_when_it_is_first_imported(tmp_path):
    code = textwrap.dedent(f"""
        from pathlib import Path
        from hood.engine import runtime
        from hood.engine.settings import Settings
        runtime.pin_process(Settings(root=Path('.')), {str(tmp_path / 'inductor')!r})
        import os, torch
        import torch._inductor.config as config
        print(config.cpp.simdlen, os.environ['ATEN_CPU_CAPABILITY'], os.environ['TORCHINDUCTOR_CACHE_DIR'])
        print(torch.backends.cpu.get_cpu_capability())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[:3] == ["256", "avx2", str(tmp_path / "inductor")]
    assert out[3] == "AVX2"


def test_the_cache_keeps_what_a_build_used_and_evicts_what_none_used_for_two_weeks(tmp_path):
    import os
    import time

    from hood.engine.cache import MAX_AGE, BlockCache, Outcome

    cache = BlockCache(tmp_path)
    cache.put("aa11", Outcome("used"))
    cache.put("bb22", Outcome("stale"))
    old = time.time() - MAX_AGE - 60
    for key in ("aa11", "bb22"):
        os.utime(cache._path(key), (old, old))
    assert cache.get("aa11") == Outcome("used")  # a hit: used now
    assert cache.evict() == 1
    assert cache.get("aa11") == Outcome("used") and cache.get("bb22") is None
