"""Lab 00, vmap or a loop: the dispatch key vmap adds to the tensor a per-sample function receives."""

from hood.capture.common import words

# --8<-- [start:body]
import torch


def keys_inside_vmap():
    """The key set of the tensor a per-sample function receives: called directly, then inside vmap."""
    seen = []

    def per_sample(t):
        seen.append(torch._C._dispatch_keys(t))
        return (t * t + torch.sin(t)).sum()

    batch = torch.randn(5, 4)
    per_sample(batch[0])
    torch.vmap(per_sample)(batch)
    print(words(en="called directly: ", es="llamada directa: ") + str(seen[0]))
    print(words(en="inside vmap:     ", es="dentro de vmap:  ") + str(seen[1]))
    return seen
# --8<-- [end:body]
