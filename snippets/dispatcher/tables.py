"""Theory 01: the computed dispatch tables of aten::linear, aten::addmm and aten::add, side by side."""

from hood.capture.tables import render_tables, table_rows

# --8<-- [start:body]



OPS = ["aten::linear", "aten::addmm", "aten::add.Tensor"]


def operator_tables():
    """Print the rows that matter of each operator's table; return them by operator."""
    print(render_tables(OPS))
    return {op: {row.key: row for row in table_rows(op)} for op in OPS}
# --8<-- [end:body]
