"""`constraints.txt`: what the pins need, at the versions the virtualenv holds (`make constraints` writes it)."""

from __future__ import annotations

import subprocess
import sys

from tools import constraints


def test_the_constraints_are_what_the_virtualenv_holds_less_the_project_and_its_pins():
    """Fails when a pin changed and `make constraints` was not run (or the virtualenv drifted from the file)."""
    freeze = subprocess.run([sys.executable, "-m", "pip", "freeze", "--exclude-editable"], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    written = [line for line in constraints.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
               if line and not line.startswith("#")]
    assert written == constraints.unpinned(freeze), "run `make constraints` and commit constraints.txt"


def test_unpinned_leaves_out_the_pins_and_comments_and_normalises_names():
    freeze = ["# Editable install", "torch==2.13.0+cpu", "Jinja2==3.1.6", "markdown_exec==1.12.6", "sympy==1.14.0",
              "typing_extensions==4.16.0"]
    assert constraints.unpinned(freeze) == ["Jinja2==3.1.6", "sympy==1.14.0", "typing_extensions==4.16.0"]
    assert constraints.name("pyyaml_env_tag==1.1") == "pyyaml-env-tag"
