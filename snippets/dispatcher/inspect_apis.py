"""Theory 01: two inspection calls that older tutorials use, as torch 2.13.0 really answers them."""

from hood.capture.common import words

# --8<-- [start:body]
import torch


def inspection_calls():
    """Which registration printers exist, and what _dispatch_dump_table returns with and without an overload."""
    exists = {name: hasattr(torch._C, name) for name in
              ("_dispatch_print_registrations", "_dispatch_print_registrations_for_dispatch_key")}
    for name, present in exists.items():
        print(f"hasattr(torch._C, {name!r}): {present}")
    tables = {op: torch._C._dispatch_dump_table(op) for op in ("aten::add", "aten::add.Tensor")}
    lines = len(tables["aten::add.Tensor"].splitlines())
    print("_dispatch_dump_table('aten::add')", words(en="returns", es="devuelve"), repr(tables["aten::add"]))
    print("_dispatch_dump_table('aten::add.Tensor')", words(en=f"returns {lines} lines", es=f"devuelve {lines} líneas"))
    return exists, tables
# --8<-- [end:body]
