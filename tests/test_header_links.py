"""Every link a page makes to a line of a C++ header at the v2.13.0 tag lands on the line it quotes. The wheel's
headers carry one packaging line above the tag's first (`tests.pinned_source`), so they are read the tag's way."""

import re
from pathlib import Path

import pytest

from tests.pinned_source import tag_lines

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"blob/v2\.13\.0/([^)#\s]*\.(?:h|hpp|cuh))#L(\d+)(?:-L(\d+))?")
# Each linked span, and the start of a line the span must hold (what the page says is there).
QUOTED = {
    ("aten/src/ATen/core/dispatch/DispatchKeyExtractor.h", 24, 46): "return (((ks | local.included_)",
    ("aten/src/ATen/core/dispatch/DispatchKeyExtractor.h", 46, 46): "return (((ks | local.included_)",
    ("aten/src/ATen/core/dispatch/Dispatcher.h", 780, 780): "#if defined(HAS_TORCH_SHOW_DISPATCH_TRACE)",
    ("aten/src/ATen/native/cuda/ForeachFunctors.cuh", 15, 19): "inline void increment_version(TensorList tensors) {",
    ("c10/core/DispatchKey.h", 318, 345): "AutogradFunctionality,",
    ("c10/core/DispatchKey.h", 460, 460): "CompositeExplicitAutogradNonFunctional, // registered at",
    ("c10/core/impl/PyInterpreter.h", 139, 142): "// Perform a detach by deferring to the __torch_dispatch__",
    ("torch/csrc/autograd/engine.h", 224, 236): "// start device threads (CUDA, XLA, etc.) in Engine,",
    ("torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp", 1400, 1400): "// The CUDA streams used by NCCL kernels",
    ("torch/csrc/distributed/c10d/reducer.hpp", 303, 303): "void sync_bucket_indices(",
}


def _linked() -> set[tuple[str, int, int]]:
    spans = set()
    for page in (ROOT / "docs").rglob("*.md"):
        for match in LINK.finditer(page.read_text(encoding="utf-8")):
            first = int(match[2])
            spans.add((match[1], first, int(match[3] or first)))
    return spans


def test_every_linked_header_span_is_one_this_file_checks():
    assert _linked() == set(QUOTED)


@pytest.mark.parametrize("span", sorted(QUOTED))
def test_a_linked_header_span_holds_the_line_it_quotes(span):
    path, first, last = span
    lines = [line.strip() for line in tag_lines("include/" + path.removeprefix("aten/src/"))[first - 1:last]]
    assert any(line.startswith(QUOTED[span]) for line in lines)
