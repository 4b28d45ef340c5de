"""Dispatch key sets: a tensor's own keys, the thread-local include/exclude sets, and the key that fires.

Torch and the standard library only: a page includes `hood/capture/common.py:body`, then this module's body.
"""

from hood.capture.common import key_names, words

# --8<-- [start:body]
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class KeyView:
    """What the dispatcher sees for one call on one tensor, in one context.

    Attributes:
        label: What was called, in which context.
        tensor: The tensor's own keys (`torch._C._dispatch_keys`).
        include: The thread-local include set at the time of the call.
        exclude: The thread-local exclude set at the time of the call.
        effective: (tensor | include) - exclude, computed as the C++ dispatcher does.
        first: The highest-priority key of `effective`; a call starts there unless its operator falls through it.
    """

    label: str
    tensor: list[str]
    include: list[str]
    exclude: list[str]
    effective: list[str]
    first: str


def effective_keys(tensor: torch.Tensor) -> torch.DispatchKeySet:
    """(tensor keys | TLS include) - TLS exclude, with the C++ semantics of `-`.

    In C++, removing a key set keeps the backend bits and clears only functionality bits, so excluding
    the autograd functionality (as inference mode does) turns off `AutogradCPU` although the exclude set,
    printed, only names `AutogradOther` and `AutogradNestedTensor`.
    """
    backend_bits = (1 << torch._C._dispatch_num_backends()) - 1
    keys = torch._C._dispatch_keys(tensor).raw_repr()
    include = torch._C._dispatch_tls_local_include_set().raw_repr()
    exclude = torch._C._dispatch_tls_local_exclude_set().raw_repr()
    return torch.DispatchKeySet.from_raw_repr((keys | include) & (backend_bits | (~exclude & (2**64 - 1))))


def key_view(label: str, tensor: torch.Tensor) -> KeyView:
    """Read the key sets now (call it inside the context you want to observe)."""
    effective = effective_keys(tensor)
    return KeyView(
        label=label,
        tensor=list(key_names(torch._C._dispatch_keys(tensor))),
        include=list(key_names(torch._C._dispatch_tls_local_include_set())),
        exclude=list(key_names(torch._C._dispatch_tls_local_exclude_set())),
        effective=list(key_names(effective)),
        first=str(effective.highestPriorityTypeId()).split(".")[-1],
    )


KEY_LABELS = {  # the five labels of a key view, in each language
    "en": ("tensor keys", "tls include", "tls exclude", "effective", "fires first"),
    "es": ("claves del tensor", "inclusión del hilo", "exclusión del hilo", "conjunto efectivo", "actúa primero"),
}


def key_labels() -> list[str]:
    """The five labels in every language, each padded to its language's longest label so that the colons align."""
    padded = {language: [f"{label:<{max(map(len, labels))}}" for label in labels]
              for language, labels in KEY_LABELS.items()}
    return [words(**{language: padded[language][i] for language in padded}) for i in range(len(padded["en"]))]


def render_key_views(views: list[KeyView], *, show_tls: bool = True) -> str:
    """One paragraph per view: the tensor's keys, the thread-local sets, the key that fires first."""
    tensor, include, exclude, effective, first = key_labels()
    blocks = []
    for v in views:
        lines = [v.label, f"  {tensor} : {', '.join(v.tensor)}"]
        if show_tls:
            autocast = [k for k in v.exclude if k.startswith("Autocast")]
            other = [k for k in v.exclude if not k.startswith("Autocast")]
            n = len(autocast)
            excluded = other + ([words(en=f"{n} Autocast* keys", es=f"{n} claves Autocast*")] if autocast else [])
            lines += [f"  {include} : {', '.join(v.include) or '-'}", f"  {exclude} : {', '.join(excluded) or '-'}"]
        lines += [f"  {effective} : {', '.join(v.effective)}", f"  {first} : {v.first}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
# --8<-- [end:body]
