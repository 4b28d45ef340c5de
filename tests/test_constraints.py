"""`constraints.txt`: what the pins need, at the versions the virtualenv holds (`make constraints` writes it)."""

from __future__ import annotations

from tools import constraints


def test_the_constraints_are_what_the_virtualenv_holds_less_the_project_and_its_pins():
    """Fails when a pin changed and `make constraints` was not run (the file names other pins), or the virtualenv
    drifted from the file."""
    lines = constraints.CONSTRAINTS.read_text(encoding="utf-8").splitlines()
    assert constraints.written_for() in lines, "a pin changed: run `make constraints` and commit constraints.txt"
    written = [line for line in lines if line and not line.startswith("#")]
    assert written == constraints.unpinned(constraints.freeze()), "run `make constraints` and commit constraints.txt"


def test_unpinned_leaves_out_the_pins_pip_and_comments_and_normalises_names():
    """`setuptools`, which torch needs, stays in; pip, which no pin needs, does not."""
    freeze = ["# Editable install", "pip==23.2.1", "setuptools==84.2.1", "torch==2.13.0+cpu", "Jinja2==3.1.6",
              "markdown_exec==1.12.6", "sympy==1.14.0", "typing_extensions==4.16.0"]
    assert constraints.unpinned(freeze) == ["Jinja2==3.1.6", "setuptools==84.2.1", "sympy==1.14.0",
                                            "typing_extensions==4.16.0"]
    assert constraints.name("pyyaml_env_tag==1.1") == "pyyaml-env-tag"


def test_make_constraints_installs_every_extra_without_upgrading_what_the_virtualenv_holds(monkeypatch):
    """What the README says `make constraints` does: the pins and both extras, no `--upgrade`, no old constraints;
    then the file is written from what the virtualenv holds."""
    calls, written = [], []
    monkeypatch.setattr(constraints.subprocess, "run", lambda args, **kw: calls.append(args))
    monkeypatch.setattr(constraints, "freeze", lambda: ["sympy==1.14.0"])
    monkeypatch.setattr(constraints, "write", written.append)
    constraints.main()
    [install] = calls
    assert install[-1].endswith("[test,reader]") and "--upgrade" not in install and "-c" not in install
    assert written == [["sympy==1.14.0"]]
