"""A tensor's layout: sizes, strides, storage offset, and which storage it shares.

Torch and the standard library only: a page includes `hood/capture/common.py:body`, then this module's body.
"""

from hood.capture.common import words

# --8<-- [start:body]
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Layout:
    """What the TensorImpl holds besides the data.

    Attributes:
        name: How the tensor was made, e.g. `W.t()`.
        shape: Sizes.
        stride: Elements to skip per step along each dimension.
        offset: Storage offset, in elements.
        contiguous: Whether the strides are those of a fresh row-major tensor of this shape.
        storage: The address of the first byte of the storage (shared by views).
    """

    name: str
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    contiguous: bool
    storage: int


def layout(name: str, t: torch.Tensor) -> Layout:
    """Read `t`'s layout."""
    return Layout(name, tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(),
                  t.untyped_storage().data_ptr())


def render_layouts(layouts: list[Layout]) -> str:
    """One line per tensor; the storage column says which tensor's storage it shares (the first of the list)."""
    first = layouts[0] if layouts else None
    width = max((len(lay.name) for lay in layouts), default=0)
    lines = []
    for lay in layouts:
        shared = lay is not first and lay.storage == first.storage
        lines.append(
            f"{lay.name:<{width}}  shape={list(lay.shape)!s:<10} stride={list(lay.stride)!s:<9} "
            f"offset={lay.offset:<3} contiguous={lay.contiguous!s:<5}  storage_ptr={lay.storage}  "
            + (words(en=f"same storage as {first.name}", es=f"mismo almacenamiento que {first.name}") if shared
               else words(en="own storage", es="almacenamiento propio"))
        )
    return "\n".join(lines)
# --8<-- [end:body]
