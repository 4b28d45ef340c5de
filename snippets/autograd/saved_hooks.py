"""saved_tensors_hooks: every tensor the forward saves for backward, every time backward reads one."""

from hood.capture.common import words
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.running_example import running_example

# --8<-- [start:body]
from collections import Counter
import torch


def count_saved_tensors():
    """Count packs (forward saves a tensor) and unpacks (backward reads it) for the MLP's loss."""
    x, _, _ = running_example()
    packed, reads = [], Counter()  # the shape of each packed tensor; how often backward read each one

    def pack(tensor):
        packed.append(tuple(tensor.shape))
        return len(packed) - 1, tensor  # whatever pack returns is stored, and handed to unpack

    def unpack(stored):
        reads[stored[0]] += 1  # stored is (index, tensor), as pack returned it
        return stored[1]

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        h, logp, loss = mlp_forward(x, *mlp_params())
    tally = words(en="packed {0} unpacked {1}", es="empaquetados {0} desempaquetados {1}")
    print(words(en="after forward: ", es="tras el forward: "), tally.format(len(packed), reads.total()))
    print(words(en="packed shapes:", es="formas empaquetadas:"), packed)
    loss.backward()
    print(words(en="after backward:", es="tras el backward:"), tally.format(len(packed), reads.total()))
    once = reads == Counter(range(len(packed)))
    print(words(en="each packed tensor unpacked once:", es="cada tensor empaquetado se desempaquetó una vez:"), once)
    return {"pack": len(packed), "unpack": reads.total()}, packed
# --8<-- [end:body]
