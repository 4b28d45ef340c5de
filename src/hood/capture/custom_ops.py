"""A custom operator seen from the dispatcher and from the compiler: registrations, table rows, generated calls.

`torch._C._dispatch_dump` (what was registered) and `torch._C._dispatch_dump_table` (what each key runs,
about a hundred rows) name files with absolute paths and line numbers; these functions keep the key, the
kind of kernel and the file, relative to the torch tree, so that the text is the same on every machine.
Torch and the standard library only: a page includes `hood/capture/common.py:body` and
`hood/capture/figure.py:body` first (`rows_svg` draws rows with the figure helpers).
"""

from hood.capture.common import dispatch_table, widest, words
from hood.capture.figure import box, drawing, text

# --8<-- [start:body]
import re
from dataclasses import dataclass

import torch

CALL_PATH_KEYS = ("AutocastCPU", "AutogradCPU", "ADInplaceOrView", "Functionalize", "Python", "Meta", "CPU")
"""The rows that matter for a CPU call, and the Meta row meta tensors use instead of CPU; highest priority first."""

_REGISTRATION = re.compile(r"^(?P<key>[\w\[\]]+): registered at (?P<path>\S+?):\d+ :: ")


def torch_relative(path: str) -> str:
    """`torch/_library/custom_ops.py` for a site-packages path, `aten/src/…` for a path of torch's build tree."""
    if "site-packages/" in path:
        return path.split("site-packages/", 1)[1]
    for root in ("aten/", "torch/", "c10/"):
        where = path.find("/" + root)
        if where != -1:
            return path[where + 1 :]
    return path


@dataclass(frozen=True)
class DispatchRow:
    """One row of an operator's dispatch table.

    Attributes:
        key: The dispatch key, e.g. `AutogradCPU`.
        kind: What the table says the entry is: `kernel`, `default backend kernel`, `autograd kernel`,
            `backend fallback`…
        fallthrough: Whether the entry just passes the call on to the next key.
        source: The file that registered it, relative to the torch tree (no line number).
    """

    key: str
    kind: str
    fallthrough: bool
    source: str


def dispatch_rows(qualname: str, keys: tuple[str, ...] = CALL_PATH_KEYS) -> list[DispatchRow]:
    """The rows of `qualname`'s computed dispatch table for `keys`, in the order of `keys`."""
    table = dispatch_table(qualname)
    return [DispatchRow(e.key, e.kind, e.fallthrough, torch_relative(e.path))
            for e in (table[k] for k in keys if k in table)]


def render_rows(rows: list[DispatchRow]) -> str:
    """One aligned line per row: key, kind (with `fallthrough`), source file."""
    kinds = [("fallthrough " if r.fallthrough else "") + r.kind for r in rows]
    width_key = max((len(r.key) for r in rows), default=0)
    width_kind = max((len(k) for k in kinds), default=0)
    return "\n".join(f"{r.key:<{width_key}}  {k:<{width_kind}}  {r.source}" for r, k in zip(rows, kinds))


def differing_keys(ours: list[DispatchRow], theirs: list[DispatchRow]) -> list[str]:
    """The keys, in `ours`' order, at which two operators' rows differ (kind, fallthrough or file)."""
    other = {r.key: (r.kind, r.fallthrough, r.source) for r in theirs}
    return [r.key for r in ours if r.key in other and other[r.key] != (r.kind, r.fallthrough, r.source)]


def rows_svg(columns: dict[str, list[DispatchRow]], title: str) -> str:
    """Operators' rows side by side, one column per operator (named by the dict's keys), one band per key.

    A cell shows the entry's kind, `fallthrough` when it passes the call on, and the file that registered it.
    Where the operators' entries differ, each has its cell, drawn `accent`; where they are the same, one `muted`
    cell spans the columns. Narrow, for a phone's column.
    """
    def lines(row: DispatchRow) -> list[str]:
        return (["fallthrough"] if row.fallthrough else []) + [row.kind, row.source.rsplit("/", 1)[-1]]

    def width(cell: DispatchRow) -> float:
        return 16 + max(7.9 * widest(line) for line in lines(cell))

    rows = list(zip(*columns.values()))
    same = [len({(c.kind, c.fallthrough, c.source) for c in row}) == 1 for row in rows]
    cell_w = max([9.2 * widest(name) + 8 for name in columns]
                 + [width(cell) for row, shared in zip(rows, same) if not shared for cell in row])
    inner = max([len(columns) * (cell_w + 10) - 10] + [width(row[0]) for row, shared in zip(rows, same) if shared])
    cell_w = (inner + 10) / len(columns) - 10
    parts = [text(12 + i * (cell_w + 10) + cell_w / 2, 26, name, "heading") for i, name in enumerate(columns)]
    y = 44
    for row, shared in zip(rows, same):
        parts.append(text(12, y + 14, row[0].key, "label", anchor="start"))
        height = 12 + 16 * max(len(lines(cell)) for cell in row)
        for i, cell in enumerate(row[:1] if shared else row):
            x = 12 + i * (cell_w + 10)
            parts.append(box(x, y + 22, inner if shared else cell_w, height, "muted" if shared else "accent")
                         + "".join(text(x + 8, y + 39 + 16 * n, line, "small" if n == len(lines(cell)) - 1 else "",
                                        anchor="start") for n, line in enumerate(lines(cell))))
        y += 22 + height + 12
    return drawing(24 + inner, y, title, "".join(parts))


@dataclass(frozen=True)
class Registration:
    """A kernel registered for an operator (`torch._C._dispatch_dump`): a key, or an alias key such as
    `CompositeExplicitAutograd[alias]`, and the file that registered it."""

    key: str
    source: str


def registrations(qualname: str) -> tuple[str, list[Registration]]:
    """The operator's schema and the kernels registered for it (not the table computed from them)."""
    schema, found = "", []
    for line in torch._C._dispatch_dump(qualname).splitlines():
        if line.startswith("schema: "):
            schema = line.removeprefix("schema: ")
        match = _REGISTRATION.match(line)
        if match:
            found.append(Registration(match["key"], torch_relative(match["path"])))
    return schema, found


def render_registrations(schema: str, found: list[Registration]) -> str:
    """The schema, then one line per registered kernel."""
    width, by = max((len(r.key) for r in found), default=0), words(en="registered by", es="registrado por")
    return "\n".join([f"{words(en='schema:', es='esquema:')} {schema}",
                      *(f"  {r.key:<{width}}  {by} {r.source}" for r in found)])


def code_lines(code: str, needle: str) -> list[str]:
    """The lines of generated code that contain `needle`, stripped, in order."""
    return [line.strip() for line in code.splitlines() if needle in line]


def first_line(error: BaseException) -> str:
    """An error's type and the first line of its message (the rest is often a long, changing hint)."""
    message = str(error).strip().splitlines()
    return f"{type(error).__name__}: {message[0] if message else ''}"


_KERNEL_CALL = re.compile(r"(torch\.ops\.\w+\.\w+\.\w+|extern_kernels\.\w+|cpp_fused_\w+|triton_\w+)\(")


def wrapper_calls(code: str) -> list[str]:
    """The lines of an Inductor wrapper's `call` function that run a kernel or an operator, stripped.

    Generated kernels (`cpp_fused_*`), library calls (`extern_kernels.*`) and operators called as such
    (`torch.ops.<ns>.<op>.<overload>`); comments, asserts and allocations are left out.
    """
    lines, inside = [], False
    for line in code.splitlines():
        if line.strip().startswith("def call("):
            inside = True
            continue
        if inside and line and not line.startswith(" "):
            break
        if inside and not line.strip().startswith("#") and _KERNEL_CALL.search(line) and "assert" not in line:
            lines.append(line.strip())
    return lines


_WRAPPED = re.compile(r"got (\w+)\('(.+?)'\)")


def wrapped_error(error: BaseException) -> str | None:
    """The error a compiler error quotes as its cause (`... got RuntimeError('...')`), first sentence only."""
    match = _WRAPPED.search(str(error))
    if match is None:
        return None
    sentence = re.split(r"(?<=\.) ", match[2], maxsplit=1)[0]
    return f"{match[1]}: {sentence}"
# --8<-- [end:body]
