"""Theory 01: a live registration with torch.library, and the row it adds to the dispatch table."""

from hood.capture.common import words
from hood.capture.tables import render_columns, table_rows

# --8<-- [start:body]
import torch


def register_and_show():
    """Define hood_demo::scale, register a CPU kernel, show its table before and after side by side, call it."""
    lib = torch.library.Library("hood_demo", "DEF")
    try:
        lib.define("scale(Tensor x, float factor) -> Tensor")
        before = table_rows("hood_demo::scale")

        def scale_cpu(x, factor):
            return x * factor

        lib.impl("scale", scale_cpu, "CPU")
        after = table_rows("hood_demo::scale")
        print(render_columns({  # the output is Markdown: one table, a column for each moment
            words(en="after `define()`, before `impl()`", es="tras `define()`, antes de `impl()`"): before,
            words(en="after `impl('scale', scale_cpu, 'CPU')`", es="tras `impl('scale', scale_cpu, 'CPU')`"): after}))
        result = torch.ops.hood_demo.scale(torch.ones(3), 2.5)
        print(f"\n`torch.ops.hood_demo.scale(torch.ones(3), 2.5)` = `{result.tolist()}`")
        return {row.key: row for row in before}, {row.key: row for row in after}, result
    finally:
        lib._destroy()  # unregister, so that the namespace can be defined again in this process
# --8<-- [end:body]
