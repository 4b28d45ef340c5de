"""Theory 01: the autograd keys inference_mode excludes, each printed as a key set of its own."""

from hood.capture.common import words

# --8<-- [start:body]
import torch


def inference_mode_exclusions():
    """Which autograd keys inference_mode excludes, and how each one prints as a key set of its own."""
    excluded = {}
    with torch.inference_mode():
        for name in ("AutogradFunctionality", "AutogradOther", "AutogradNestedTensor"):
            key = getattr(torch._C.DispatchKey, name)
            excluded[name] = torch._C._dispatch_tls_is_dispatch_key_excluded(key)
            shown = torch._C.DispatchKeySet(key)
            print(f"{name:<22}", words(en=f"excluded: {excluded[name]}  prints as {shown}",
                                       es=f"excluida: {excluded[name]}  se imprime como {shown}"))
    return excluded
# --8<-- [end:body]
