"""The CPU call path of hood::scaled_linear (define it first) next to aten::addmm's, key by key, printed and drawn."""

from hood.capture.common import dispatch_table, words
from hood.capture.custom_ops import differing_keys, dispatch_rows, registrations, rows_svg, torch_relative
from hood.capture.figure import figure

# --8<-- [start:body]
def entry(row):
    """A table row as one phrase: its kind (after `fallthrough` if it passes the call on) and its file."""
    kind = ("fallthrough " if row.fallthrough else "") + row.kind
    return f"{kind} ({row.source.rsplit('/', 1)[-1]})"


def compare_tables():
    """For the keys that matter to a CPU call, and Meta: what runs for `hood::scaled_linear` and `aten::addmm`."""
    ours, addmm = dispatch_rows("hood::scaled_linear"), dispatch_rows("aten::addmm")
    assert [r.key for r in ours] == [r.key for r in addmm]
    print(words(en=f"{'key':<16}", es=f"{'clave':<16}"), f"{'hood::scaled_linear':<58} aten::addmm")
    for mine, theirs in zip(ours, addmm):
        print(f"{mine.key:<16} {entry(mine):<58} {entry(theirs)}")
    return ours, addmm
# --8<-- [end:body]


# --8<-- [start:figure]
def draw_tables(ours, addmm):
    """The two operators' rows side by side; highlighted, the keys where they differ."""
    differ = differing_keys(ours, addmm)
    title = words(en="The keys of a CPU call, and Meta", es="Las claves de una llamada en CPU, y Meta")
    svg = rows_svg({"hood::scaled_linear": ours, "aten::addmm": addmm}, title)
    data = "\n".join(f"{a.key}: {entry(a)} | {entry(b)}" for a, b in zip(ours, addmm))
    print(figure(svg, data + "\ndiffer: " + ", ".join(differ), words(
        en="Keys from top to bottom, highest priority first: those that matter to a CPU call (AutocastCPU only "
           "inside torch.autocast; Functionalize and Python only under functionalization or a Python mode or "
           "subclass), and the Meta row, which meta tensors use instead of CPU. Highlighted: the keys where the "
           "two operators' entries differ. Where they share an entry, one dashed box spans both columns.",
        es="Las claves, de arriba abajo, de mayor a menor prioridad: las que importan en una llamada en CPU "
           "(AutocastCPU solo dentro de torch.autocast; Functionalize y Python solo con funcionalización o con un "
           "modo o una subclase de Python), y la fila Meta, que usan los tensores meta en lugar de CPU. "
           "Resaltadas: las claves en las que difieren las entradas de los dos operadores. Donde comparten la "
           "entrada, una sola caja de borde discontinuo ocupa las dos columnas.")))
    return differ
# --8<-- [end:figure]


# --8<-- [start:cuda]
def cuda_rows(qualname="hood::scaled_linear"):
    """The CUDA row of the op's computed table (read on this CPU build), and the keys `custom_op` registered."""
    table = dispatch_table(qualname)
    row = table.get("CUDA")
    print(words(en="registered:", es="registrados:"), ", ".join(r.key for r in registrations(qualname)[1]))
    print(words(en="computed CUDA row:", es="fila CUDA calculada:"),
          f"{row.kind} ({torch_relative(row.path)})" if row else words(en="none", es="ninguna"))
    return row
# --8<-- [end:cuda]
