"""`hood.capture.common.max_diff`: a comparison that prints the same on every machine, or refuses to print."""

import pytest
import torch

from hood.capture.common import MARGIN, FragileComparison, max_diff


def _pair(diff: float) -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.zeros(3, dtype=torch.float64)
    b = a.clone()
    b[1] = diff
    return a, b


@pytest.mark.parametrize(("diff", "tol", "printed", "within"), [
    (0.0, 1e-6, "< 1e-06", True),
    (1.5e-8, 1e-6, "< 1e-06", True),
    (5e-17, 1e-12, "< 1e-12", True),
    (0.02, 1e-6, "> 1e-06", False),
])
def test_prints_only_the_side_of_the_tolerance(diff, tol, printed, within):
    agreement = max_diff(*_pair(diff), tol)
    assert str(agreement) == printed and agreement.within is within


@pytest.mark.parametrize("diff", [1.01e-7, 5e-7, 1e-6, 2e-6, 9.9e-6])
def test_refuses_a_difference_within_the_margin(diff):
    assert 1e-6 / MARGIN <= diff <= 1e-6 * MARGIN
    with pytest.raises(FragileComparison, match="within 10x of the tolerance 1e-06"):
        max_diff(*_pair(diff), 1e-6)


def test_the_bucket_that_flipped_between_machines_is_now_far_from_its_tolerance():
    # lab 01's db2 differed by 9.3e-10 on one CPU and just over 1e-9 on another: both print the same now
    assert str(max_diff(*_pair(9.3e-10), 1e-6)) == str(max_diff(*_pair(1.1e-9), 1e-6)) == "< 1e-06"


def test_a_registration_outside_torch_is_named_your_code_wherever_it_ran():
    """A page's block, a notebook cell and a script register from files whose names differ: none is printed."""
    from hood.capture.tables import YOUR_CODE, source_name

    assert source_name("/__w/pytorch/pytorch/build/aten/src/ATen/RegisterCPU_0.cpp") == "RegisterCPU_0.cpp"
    assert source_name("/venv/lib/python3.11/site-packages/torch/_library/custom_ops.py") == "custom_ops.py"
    for elsewhere in ("<01-dispatcher-and-aten.md#override>", "/tmp/ipykernel_7/1218191017.py", "/home/me/lab.py"):
        assert source_name(elsewhere) == YOUR_CODE


def test_decimal_has_a_point_in_english_and_a_comma_in_spanish():
    from hood.capture.common import decimal, localize

    assert localize(decimal(16.54, ".1f") + " µs", "en") == "16.5 µs"
    assert localize(decimal(16.54, ".1f") + " µs", "es") == "16,5 µs"
    assert localize(decimal(0.2149), "es") == "0,21"


def test_grouped_has_commas_in_english_and_no_break_spaces_in_spanish_from_five_digits():
    from hood.capture.common import grouped, localize

    assert localize(grouped(4202496) + " bytes", "en") == "4,202,496 bytes"
    assert localize(grouped(4202496) + " bytes", "es") == "4\u00a0202\u00a0496 bytes"
    assert [localize(grouped(n), "en") for n in (36, 1024, 10240)] == ["36", "1,024", "10,240"]
    assert [localize(grouped(n), "es") for n in (36, 1024, 10240)] == ["36", "1024", "10\u00a0240"]
    assert localize(grouped(-156000), "es") == "-156\u00a0000"


def test_a_decimal_groups_its_integer_part_as_grouped_does_and_keeps_its_width():
    """A timing of 12 345,6 µs on a slow machine reads as Spanish, 3,880.5 as English; columns stay aligned."""
    from hood.capture.common import number

    assert [number(v, "9.1f", "es") for v in (3880.5, 12345.6, -12345.6)] == [
        "   3880,5", " 12\u00a0345,6", "-12\u00a0345,6"]
    assert [number(v, "9.1f", "en") for v in (999.5, 3880.5, -12345.6)] == ["    999.5", "  3,880.5", "-12,345.6"]
    assert number(0.123456, ".6f", "es") == "0,123456" and number(99999.96, ".1f", "es") == "100\u00a0000,0"
