"""Theory 01: a live registration with torch.library, and the row it adds to the dispatch table."""

from hood.capture.tables import render_tables, table_rows

# --8<-- [start:body]
import torch


def register_and_show():
    """Define hood_demo::scale, show its table, register a CPU kernel, show the table again, call it."""
    lib = torch.library.Library("hood_demo", "DEF")
    try:
        lib.define("scale(Tensor x, float factor) -> Tensor")
        before = {row.key: row for row in table_rows("hood_demo::scale")}
        print("after define(), before impl():\n")  # a blank line: the table that follows must start its own block
        print(render_tables(["hood_demo::scale"]))

        def scale_cpu(x, factor):
            return x * factor

        lib.impl("scale", scale_cpu, "CPU")
        after = {row.key: row for row in table_rows("hood_demo::scale")}
        print("\nafter impl('scale', scale_cpu, 'CPU'):\n")
        print(render_tables(["hood_demo::scale"]))
        result = torch.ops.hood_demo.scale(torch.ones(3), 2.5)
        print(f"\ntorch.ops.hood_demo.scale(torch.ones(3), 2.5) = {result.tolist()}")
        return before, after, result
    finally:
        lib._destroy()  # unregister, so that the namespace can be defined again in this process
# --8<-- [end:body]
