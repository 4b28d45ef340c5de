"""The build's report as data: problem kinds, what blocks a bless, the text and JSON files."""

import json

import pytest

from hood.engine.report import KINDS, REPORT_FILE, REPORT_JSON, Kind, Problem, Report


def test_a_kind_is_its_text_and_an_unknown_kind_is_refused():
    assert Problem("p.md", "b", "drift", "fix").kind is Kind.DRIFT
    assert Kind.DRIFT == "drift" and f"{Kind.MISSING_TRACE:<14}|" == "missing trace |"
    with pytest.raises(ValueError, match="unknown problem kind 'drfit'"):
        Problem("p.md", "b", "drfit", "fix")


def test_only_problems_that_leave_the_blocks_unknown_block_a_bless():
    assert {k for k in KINDS if k.blocks_bless} == {Kind.RAISED, Kind.NO_ID, Kind.DUPLICATE_ID,
                                                     Kind.TRANSLATION_DIFFERS}


def test_the_report_is_written_as_text_and_as_json(tmp_path):
    report = Report(check=True, traced_blocks=3)
    report.add(Problem("a.md", "*", Kind.ORPHAN_TRACE, "remove it"))
    report.add(Problem("a.md", "x", Kind.DRIFT, "bless it", diff="-old\n+new"))
    text = report.write(tmp_path, "stopped early")
    assert text.startswith("1 of 3 traced blocks changed output")
    assert (tmp_path / REPORT_FILE).read_text().endswith("stopped early\n")
    data = json.loads((tmp_path / REPORT_JSON).read_text())
    assert data["traced_blocks"] == 3 and data["changed"] == 1
    assert [(p["kind"], p["block"]) for p in data["problems"]] == [("drift", "x"), ("orphan trace", "*")]
    assert data["problems"][0]["diff"] == "-old\n+new"
