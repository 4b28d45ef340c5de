"""`hood.labkit` (lab deliverables) and `hood.capture.diagram` (build-time SVG)."""

import json
import xml.etree.ElementTree as ET

from hood.capture.diagram import Node, layered_svg
from hood.labkit import code_hash, manifest, parse_out, write_deliverables


def test_deliverables_and_manifest(tmp_path):
    src = tmp_path / "lab.py"
    src.write_text("print('lab')\n")
    meta = manifest(lab="lab00", seed=42, code=[src])
    paths = write_deliverables(tmp_path / "out", {"REPORT.md": "# Report\n"}, meta)
    assert [p.name for p in paths] == ["REPORT.md", "manifest.json"]
    data = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert data["torch"].startswith("2.13.0") and data["seed"] == 42
    assert data["code_sha256"] == code_hash([src]) and len(data["code_sha256"]) == 64
    assert parse_out("x", ["--out", str(tmp_path)]) == tmp_path


def test_code_hash_changes_with_the_code(tmp_path):
    src = tmp_path / "a.py"
    src.write_text("1\n")
    before = code_hash([src])
    src.write_text("2\n")
    assert code_hash([src]) != before


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
