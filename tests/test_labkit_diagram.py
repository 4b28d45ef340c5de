"""`hood.labkit` (lab deliverables) and `hood.capture.diagram` (build-time SVG)."""

import json
import xml.etree.ElementTree as ET

from hood.capture.diagram import Node, layered_svg
from hood.capture.common import localize, words
from hood.labkit import code_hash, manifest, objective, parse_args, printed_by, write_deliverables


def test_deliverables_and_manifest(tmp_path):
    src = tmp_path / "lab.py"
    src.write_text("print('lab')\n")
    meta = manifest(lab="lab00", seed=42, code_sha256=code_hash([src]))
    paths = write_deliverables(tmp_path / "out", {"REPORT.md": "# Report\n"}, meta)
    assert [p.name for p in paths] == ["REPORT.md", "manifest.json"]
    data = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert data["torch"].startswith("2.13.0") and data["seed"] == 42
    assert data["code_sha256"] == code_hash([src]) and len(data["code_sha256"]) == 64
    args = parse_args("x", ["--out", str(tmp_path), "--lang", "es"])
    assert args.out == tmp_path and args.lang == "es" and parse_args("x", ["--out", "o"]).lang == "en"


def test_deliverables_are_written_in_the_learners_language(tmp_path):
    files = {"REPORT.md": f"# {words(en='Report', es='Informe')}\n"}
    write_deliverables(tmp_path / "es", files, {"lab": "x"}, "es")
    write_deliverables(tmp_path / "en", files, {"lab": "x"})
    assert (tmp_path / "es" / "REPORT.md").read_text() == "# Informe\n"
    assert (tmp_path / "en" / "REPORT.md").read_text() == "# Report\n"


def test_the_sentences_reports_share_are_in_every_language():
    opening = objective(en="check it.", es="comprobarlo.") + " " + printed_by("2.13.0")
    assert localize(opening, "en") == (
        "Objective: check it. Every block below was printed by torch 2.13.0 while this report was written.")
    assert localize(opening, "es") == ("Objetivo: comprobarlo. Todos los bloques de abajo los imprimió torch 2.13.0 "
                                       "mientras se escribía este informe.")


def test_code_hash_changes_with_the_code(tmp_path):
    src = tmp_path / "a.py"
    src.write_text("1\n")
    before = code_hash([src])
    src.write_text("2\n")
    assert code_hash([src]) != before


def test_a_box_is_as_wide_as_its_label_in_its_longest_language():
    narrow = layered_svg([Node("a", "x" * 40)], [], "t")
    both = layered_svg([Node("a", words(en="x" * 40, es="y" * 60))], [], "t")
    width = [float(ET.fromstring(svg).find("{http://www.w3.org/2000/svg}g/{http://www.w3.org/2000/svg}rect").get("width"))
             for svg in (narrow, both)]
    assert width[1] > width[0]


def test_layered_svg_is_valid_and_ordered():
    svg = layered_svg([Node("a", "top"), Node("b", "middle", "detail"), Node("c", "bottom")],
                      [("a", "b"), ("b", "c")], "chain")
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    labels = [t.text for t in root.iter(f"{ns}text") if t.get("class") == "label"]
    assert labels == ["top", "middle", "bottom"]
    ys = [float(r.get("y")) for r in root.iter(f"{ns}rect")]
    assert ys == sorted(ys) and len(set(ys)) == 3
    assert len(list(root.iter(f"{ns}line"))) == 2
