"""Theory 01: the priority order of the keys a call can meet, read from a real DispatchKeySet."""

from hood.capture.common import key_names, words

# --8<-- [start:body]
import torch

CPU_CALL_KEYS = ["CPU", "BackendSelect", "Python", "ADInplaceOrView", "AutogradCPU", "AutocastCPU",
                 "FuncTorchBatched"]
CUDA_CALL_KEYS = ["CUDA", "BackendSelect", "ADInplaceOrView", "AutogradCUDA", "AutocastCUDA"]


def key_priority(names=CPU_CALL_KEYS):
    """Put the keys in one DispatchKeySet: it keeps them in priority order, whatever order they came in."""
    key_set = torch._C.DispatchKeySet(torch._C.DispatchKey.Undefined)
    for name in names:
        key_set = key_set | torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, name))
    order = list(reversed(key_names(key_set)))
    print(key_set)
    print(words(en="first to last:", es="de la primera a la última:"), " -> ".join(order))
    return order
# --8<-- [end:body]
