"""Operator tables (`torch._C._dispatch_dump_table`) reduced to the rows that matter.

The full table has a row for each key the operator has an entry for (dozens, not every key); a row names the
kernel kind and the file that registered it. Torch and the standard library only: a page includes
`hood/capture/common.py:body` first.
"""

from hood.capture.common import dispatch_table, words

# --8<-- [start:body]
from dataclasses import dataclass

KEYS = ("FuncTorchBatched", "AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Python", "BackendSelect", "CPU", "Meta")
"""The keys a CPU call of the running example can meet, highest priority first, then `Meta`, which a call on meta
tensors meets instead of `CPU`."""



@dataclass(frozen=True)
class Row:
    """One computed entry of an operator's table.

    Attributes:
        key: The dispatch key.
        kind: `kernel`, `math kernel` (CompositeImplicitAutograd), `autograd kernel`, `backend fallback`...
        fallthrough: Whether the entry just passes the call to the next key.
        source: The file that registered it (its name only: paths and line numbers change per build), or
            `YOUR_CODE` for Python code outside torch.
    """

    key: str
    kind: str
    fallthrough: bool
    source: str


YOUR_CODE = words(en="your code", es="tu código")
"""What a row names as its source when Python code outside torch registered it: that file's name depends on where
the code ran (a page's block, a notebook cell, a script), so the table does not print it."""
KEY_HEADER = words(en="key", es="clave")


def source_name(path: str) -> str:
    """A registration's file as a table shows it: the name of a C++ file (torch's own or an extension's, such as
    `load_inline`'s `main.cpp`) or of torch's own Python file, or `YOUR_CODE` for Python code outside torch."""
    own = path.endswith((".cpp", ".h")) or any(part in path for part in ("/torch/", "/aten/", "/c10/"))
    return path.rsplit("/", 1)[-1] if own else YOUR_CODE


def table_rows(op: str, keys: tuple[str, ...] = KEYS) -> list[Row]:
    """The rows of `op`'s computed dispatch table for `keys`, in the order of `keys`."""
    table = dispatch_table(op)
    return [Row(e.key, e.kind, e.fallthrough, source_name(e.path)) for e in (table[k] for k in keys if k in table)]


def slot(op: str, key: str) -> str:
    """One cell of `op`'s computed table: `kind · file` of the entry at `key`."""
    row = table_rows(op, (key,))[0]
    return f"{row.kind} · {row.source}"


def render_columns(columns: dict[str, list[Row]], keys: tuple[str, ...] = KEYS) -> str:
    """A Markdown table: one row per key, one column per heading (its rows), each cell `kind · file`."""
    cells = {heading: {row.key: row for row in rows} for heading, rows in columns.items()}

    def cell(row: Row | None) -> str:
        if row is None:
            return "-"
        kind = f"fallthrough {row.kind}" if row.fallthrough else row.kind
        return f"{kind} · `{row.source}`"

    lines = [f"| {KEY_HEADER} | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    lines += [f"| `{key}` | " + " | ".join(cell(cells[h].get(key)) for h in columns) + " |" for key in keys]
    return "\n".join(lines)


def render_tables(ops: list[str], keys: tuple[str, ...] = KEYS) -> str:
    """A Markdown table: one row per key, one column per operator, each cell `kind · file`."""
    return render_columns({f"`{op}`": table_rows(op, keys) for op in ops}, keys)
# --8<-- [end:body]
