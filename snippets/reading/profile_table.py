"""Reading a profiler table: names, calls and shapes are the same every run; times never are."""

from hood.capture.profile import op_rows
from snippets.reading.tiny import tiny, tiny_inputs

# --8<-- [start:body]
from torch.profiler import ProfilerActivity, profile


def read_profile():
    """Profile one call of `tiny(x, w)` and print the profiler's own table, every row.

    Returns the printed table and its operator rows.
    """
    x, w = tiny_inputs(requires_grad=False)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        tiny(x, w)
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=-1)
    print(table)
    return table, op_rows(prof)
# --8<-- [end:body]
