"""The pinned torch's own files, numbered as the v2.13.0 tag numbers them, for tests of the lines the pages link.

The wheel wraps each C++ header in a guard (`TORCH_STABLE_ONLY`) when it is packaged: one line above the tag's
first, and three below its last. The pages link the tag, so a header's line n is the wheel's line n + 1.
"""

from pathlib import Path

import torch

TORCH = Path(torch.__file__).parent
PACKAGING_GUARD = "#if !defined(TORCH_STABLE_ONLY) && !defined(TORCH_TARGET_VERSION)"


def tag_lines(relative: str) -> list[str]:
    """The lines of `relative` (a path inside the torch package) as the v2.13.0 tag has them: index n - 1 is line n."""
    assert torch.__version__.startswith("2.13.0")
    lines = (TORCH / relative).read_text(encoding="utf-8").splitlines()
    if lines[:1] == [PACKAGING_GUARD]:
        assert lines[-3:] == ["#else", '#error "This file should not be included when either TORCH_STABLE_ONLY or '
                              'TORCH_TARGET_VERSION is defined."', "#endif  // !defined(TORCH_STABLE_ONLY) && "
                              "!defined(TORCH_TARGET_VERSION)"], relative
        return lines[1:-3]
    return lines
