"""Reading a dispatch table: one cell per (key, operator), the kind of kernel and the file that registered it."""

from hood.capture.tables import render_tables, table_rows

# --8<-- [start:body]
TABLE_OPS = ["aten::matmul", "aten::mm"]
TABLE_KEYS = ("AutogradCPU", "ADInplaceOrView", "BackendSelect", "CPU")


def read_table():
    """Print the four rows a CPU call meets, for `matmul` (what `x @ w` calls) and `mm` (what it calls)."""
    print(render_tables(TABLE_OPS, TABLE_KEYS))
    return {op: {row.key: row for row in table_rows(op, TABLE_KEYS)} for op in TABLE_OPS}
# --8<-- [end:body]
