"""Lab 00, exercise 3: the sentence that reads the loop-versus-vmap timing, chosen by the numbers measured."""

from hood.capture.common import words

# --8<-- [start:body]


def read_timing(rows) -> str:
    """`rows` of (batch, loop µs, vmap µs): a table and one sentence per language, from the numbers only."""
    table = "\n".join(f"{words(en='batch', es='lote')} {n:>4}: loop {loop:9.1f} µs, vmap {vm:9.1f} µs"
                      for n, loop, vm in rows)
    ratios = [loop / vm for _, loop, vm in rows]
    faster = [n for (n, _, _), r in zip(rows, ratios) if r > 1.05]
    if len(faster) == len(rows):
        en = f"vmap was faster at every batch size, {ratios[0]:.1f}x at batch {rows[0][0]} and " \
             f"{ratios[-1]:.1f}x at batch {rows[-1][0]}."
        es = f"vmap fue más rápido en todos los tamaños de lote: {ratios[0]:.1f}x con lote {rows[0][0]} y " \
             f"{ratios[-1]:.1f}x con lote {rows[-1][0]}."
    elif faster:
        en = f"vmap was faster from batch {faster[0]} on ({ratios[-1]:.1f}x at batch {rows[-1][0]}), not below."
        es = f"vmap fue más rápido a partir del lote {faster[0]} ({ratios[-1]:.1f}x con lote {rows[-1][0]}), no antes."
    else:
        en = "vmap was not faster than the loop at any batch size measured here."
        es = "vmap no fue más rápido que el bucle en ningún tamaño de lote medido aquí."
    return f"{table}\n{words(en=en, es=es)}"
# --8<-- [end:body]
