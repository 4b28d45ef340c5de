"""The code passes the linter configured in pyproject.toml (ruff), with no `noqa` it does not need."""

import subprocess
import sys

from tools.sandbox import ROOT


def test_ruff_finds_nothing():
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
