"""The CPU call path of hood::scaled_linear (define it first) next to aten::addmm's, key by key."""

from hood.capture.custom_ops import dispatch_rows

# --8<-- [start:body]
def compare_tables():
    """For each key a CPU call meets: what runs for `hood::scaled_linear` and for `aten::addmm`."""
    ours, addmm = dispatch_rows("hood::scaled_linear"), dispatch_rows("aten::addmm")
    assert [r.key for r in ours] == [r.key for r in addmm]

    def entry(row):
        kind = ("fallthrough " if row.fallthrough else "") + row.kind
        return f"{kind} ({row.source.rsplit('/', 1)[-1]})"

    print(f"{'key':<16} {'hood::scaled_linear':<58} aten::addmm")
    for mine, theirs in zip(ours, addmm):
        print(f"{mine.key:<16} {entry(mine):<58} {entry(theirs)}")
    return ours, addmm
# --8<-- [end:body]
