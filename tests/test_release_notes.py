"""What the release notes under traces/lens/ say about the pinned torch, checked on the pinned torch."""

import re
from collections import Counter

from snippets.compile.guards import guards_of_head


def test_the_head_has_five_dynamic_marking_guards_per_tensor_not_one_per_dimension():
    marking = [g.code for g in guards_of_head().guards if g.kind == "DIMENSION_DYNAMIC_MARKING_GUARD"]
    assert len(marking) == 15
    tensors = Counter(re.match(r"hasattr\(L\['(\w+)'\]", code)[1] for code in marking)
    assert tensors == {"W": 5, "b": 5, "x": 5}  # b has one dimension, W and x two: not one guard per dimension
    assert all(re.fullmatch(r"hasattr\(L\['\w+'\], '_dynamo_\w+_indices'\) == False", code) for code in marking)
