"""`hood.capture.custom_ops`: table rows, registrations, generated-code lines and error summaries."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import torch

from hood.capture.common import localize
from hood.capture.custom_ops import (
    CALL_PATH_KEYS, DispatchRow, differing_keys, dispatch_rows, first_line, registrations, render_registrations,
    render_rows, rows_svg, torch_relative, wrapped_error, wrapper_calls,
)

SAMPLES = Path(__file__).parent / "samples"


def test_torch_relative_paths():
    site_packages = "/a/b/.venv/lib/python3.11/site-packages"
    assert torch_relative(f"{site_packages}/torch/_library/custom_ops.py") == "torch/_library/custom_ops.py"
    build_tree = "/__w/pytorch/pytorch"
    assert torch_relative(f"{build_tree}/build/aten/src/ATen/RegisterCPU_2.cpp") == "aten/src/ATen/RegisterCPU_2.cpp"
    variable_type = "torch/csrc/autograd/VariableType_0.cpp"
    assert torch_relative(f"{build_tree}/{variable_type}") == variable_type
    assert torch_relative("elsewhere.cpp") == "elsewhere.cpp"


def test_rows_of_addmm_match_the_committed_sample():
    """The rows we keep of the live table agree with a real dump saved in tests/samples."""
    sample = {line.split(":")[0]: line for line in (SAMPLES / "dispatch_table_addmm.txt").read_text().splitlines()}
    rows = dispatch_rows("aten::addmm")
    assert [r.key for r in rows] == list(CALL_PATH_KEYS)
    for row in rows:
        assert row.source.rsplit("/", 1)[-1] in sample[row.key]
        assert ("fallthrough" in sample[row.key]) == row.fallthrough
        assert f"[{row.kind}]" in sample[row.key]


def test_render_rows_aligns_columns():
    rows = [DispatchRow("CPU", "kernel", False, "a.cpp"), DispatchRow("AutocastCPU", "backend fallback", True, "b.cpp")]
    assert render_rows(rows).splitlines() == [
        "CPU          kernel                        a.cpp",
        "AutocastCPU  fallthrough backend fallback  b.cpp",
    ]


def test_registrations_of_an_aten_op_and_rendering():
    schema, found = registrations("aten::addmm")
    assert schema.startswith("aten::addmm(Tensor self, Tensor mat1, Tensor mat2")
    keys = [r.key for r in found]
    assert {"CPU", "Meta", "Autograd[alias]", "CompositeExplicitAutogradNonFunctional[alias]"} <= set(keys)
    assert localize(render_registrations(schema, found), "en").splitlines()[0] == f"schema: {schema}"
    spanish = localize(render_registrations(schema, found), "es").splitlines()
    assert spanish[0] == f"esquema: {schema}" and "  registrado por " in spanish[1]


WRAPPER = '''
def helper():
    buf9 = extern_kernels.mm(a, b)

class Runner:
    def call(self, args):
        primals_1, = args
        assert_size_stride(primals_1, (2, 64), (64, 1), 'input')
        # Topologically Sorted Source Nodes: [scaled_linear], Original ATen: [hood.scaled_linear]
        buf0 = torch.ops.hood.scaled_linear.default(primals_1, 0.5)
        assert_size_stride(buf0, (2, 600), (600, 1), 'torch.ops.hood.scaled_linear.default')
        buf1 = empty_strided_cpu((2, 1), (1, 2), torch.float32)
        cpp_fused__softmax_0(buf0, buf1)
        extern_kernels.mm(buf1, primals_1, out=buf0)
        return (buf1, )

runner = Runner(partitions=[])
'''


def test_wrapper_calls_keeps_only_the_calls_of_call():
    assert wrapper_calls(WRAPPER) == [
        "buf0 = torch.ops.hood.scaled_linear.default(primals_1, 0.5)",
        "cpp_fused__softmax_0(buf0, buf1)",
        "extern_kernels.mm(buf1, primals_1, out=buf0)",
    ]


def test_error_summaries():
    err = RuntimeError("first line\nsecond line")
    assert first_line(err) == "RuntimeError: first line"
    wrapping = RuntimeError("outer\n  Explanation: ... got RuntimeError('There was no X for <A(b)>. Please do Y.')")
    assert wrapped_error(wrapping) == "RuntimeError: There was no X for <A(b)>."
    assert wrapped_error(err) is None
    with pytest.raises(ValueError) as info:
        torch.tensor([1]).sum(2**64 - 1)
    assert first_line(info.value).startswith("ValueError: ")


def test_rows_drawn_side_by_side_share_a_box_where_they_agree():
    fallback = DispatchRow("Python", "backend fallback", True, "F.cpp")
    ours = [fallback, DispatchRow("CPU", "kernel", False, "a/K.cpp")]
    theirs = [fallback, DispatchRow("CPU", "kernel", False, "a/Other.cpp")]
    assert differing_keys(ours, theirs) == ["CPU"]
    root = ET.fromstring(rows_svg({"ours": ours, "theirs": theirs}, "t"))
    rects = [r.get("class") for r in root.iter("{http://www.w3.org/2000/svg}rect")]
    assert rects == ["muted", "accent", "accent"]  # one box across both columns, then one box each
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == ["ours", "theirs", "Python", "fallthrough", "backend fallback", "F.cpp",
                     "CPU", "kernel", "K.cpp", "kernel", "Other.cpp"]
