"""saved_tensors_hooks: every tensor the forward saves for backward, every time backward reads one."""

from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.running_example import running_example

# --8<-- [start:body]
from collections import Counter
import torch


def count_saved_tensors():
    """Count packs (forward saves a tensor) and unpacks (backward reads it) for the MLP's loss."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    counts, packed, reads = Counter(), [], Counter()

    def pack(tensor):
        counts["pack"] += 1
        packed.append(tuple(tensor.shape))
        return len(packed) - 1, tensor  # whatever pack returns is stored, and handed to unpack

    def unpack(stored):
        counts["unpack"] += 1
        reads[stored[0]] += 1  # stored is (index, tensor), as pack returned it
        return stored[1]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    print("after forward:  packed", counts["pack"], "unpacked", counts["unpack"])
    print("packed shapes:", packed)
    loss.backward()
    print("after backward: packed", counts["pack"], "unpacked", counts["unpack"])
    print("each packed tensor unpacked once:", reads == Counter(range(len(packed))))
    return dict(counts), packed
# --8<-- [end:body]
