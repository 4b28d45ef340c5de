"""The CPU call path of hood::scaled_linear (define it first) next to that of aten::addmm, key by key."""

# --8<-- [start:body]
from hood.capture.custom_ops import dispatch_rows


def compare_tables():
    """For each key a CPU call meets: what runs for `hood::scaled_linear` and what runs for `aten::addmm`."""
    ours, addmm = dispatch_rows("hood::scaled_linear"), dispatch_rows("aten::addmm")
    assert [r.key for r in ours] == [r.key for r in addmm]
    print(f"{'key':<16} {'hood::scaled_linear':<58} aten::addmm")
    for mine, theirs in zip(ours, addmm):
        left = ("fallthrough " if mine.fallthrough else "") + f"{mine.kind} ({mine.source.rsplit('/', 1)[-1]})"
        right = ("fallthrough " if theirs.fallthrough else "") + f"{theirs.kind} ({theirs.source.rsplit('/', 1)[-1]})"
        print(f"{mine.key:<16} {left:<58} {right}")
    return ours, addmm
# --8<-- [end:body]
