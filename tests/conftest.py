"""Shared fixtures: one strict check build of the real site for every test that reads it."""

from __future__ import annotations

import os
import shutil

from tests.sitekit import ROOT, Build, build_subprocess, copy_project

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", str(ROOT / ".cache" / "inductor-tests"))
"""Kernels the tests compile stay in the clone (and go with it), not in a machine-wide folder under /tmp."""

import pytest  # noqa: E402
import torch  # noqa: E402

MARKED_MODULES = {
    "build": {"test_build_engine", "test_build_errors", "test_build_runtime", "test_serve"},
    "audit": {"test_audit"},
    "browser": {"test_browser", "test_browser_figures"},
    "distributed": {"test_distributed", "test_distributed_buckets", "test_distributed_generality",
                    "test_lab03_survey_generality", "test_autograd_distributed_generality"},
}
"""Marks given by module (see `pyproject.toml`): `make check` leaves these out; `site` is given to every test that
reads the real site's build."""


def pytest_collection_modifyitems(items) -> None:
    """Mark each test with what it needs, so that `-m` selects by cost: the site build, small builds, the audit,
    the browser, distributed runs."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1]
        for mark, modules in MARKED_MODULES.items():
            if module in modules:
                item.add_marker(mark)
        if "site_build" in item.fixturenames:
            item.add_marker("site")


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> Build:
    """The real site, built as CI builds it (strict, traces checked, no cache), in a temporary copy."""
    result = build_subprocess(copy_project(tmp_path_factory.mktemp("site")), mode="check")
    report = result.project / "site-report.txt"
    if report.exists():  # where CI prints it from when the suite fails
        shutil.copy(report, ROOT / "site-report.txt")
    assert result.returncode == 0, result.output
    return result


@pytest.fixture
def like_a_block():
    """Start a test as the engine starts a page block: two threads (kernels and guards depend on it), Dynamo reset."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()
    torch.set_num_threads(threads)
