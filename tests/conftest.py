"""Shared fixtures: one strict check build of the real site for every test that reads it."""

from __future__ import annotations

import pytest

from tests.sitekit import Build, build, copy_project


@pytest.fixture(scope="session")
def site_build(tmp_path_factory) -> Build:
    """The real site, built as CI builds it (strict, traces checked, no cache), in a temporary copy."""
    result = build(copy_project(tmp_path_factory.mktemp("site")), mode="check")
    assert result.returncode == 0, result.output
    return result
