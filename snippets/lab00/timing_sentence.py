"""Lab 00, exercise 3: the sentence that reads the loop-versus-vmap timing, chosen by the numbers measured."""

from hood.capture.common import number, words

# --8<-- [start:body]


def read_timing(rows) -> str:
    """`rows` of (batch, loop µs, vmap µs): a table and one sentence per language, from the numbers only.

    "Faster" means faster by more than 5 %; rows are read in order of batch size.
    """
    rows = sorted(rows)
    def row(n, loop, vm, language):
        shown = [number(t, "9.1f", language) for t in (loop, vm)]
        batch, loop_name = ("batch", "loop") if language == "en" else ("lote", "bucle")
        return f"{batch} {n:>4}: {loop_name} {shown[0]} µs, vmap {shown[1]} µs"

    table = "\n".join(words(en=row(*r, "en"), es=row(*r, "es")) for r in rows)
    ratios = [loop / vm for _, loop, vm in rows]
    faster = [n for (n, _, _), r in zip(rows, ratios) if r > 1.05]
    if len(faster) == len(rows):
        en = f"vmap was faster at every batch size, {ratios[0]:.1f}x at batch {rows[0][0]} and " \
             f"{ratios[-1]:.1f}x at batch {rows[-1][0]}."
        es = f"vmap fue más rápido en todos los tamaños de lote: {number(ratios[0], '.1f', 'es')} veces con lote " \
             f"{rows[0][0]} y {number(ratios[-1], '.1f', 'es')} veces con lote {rows[-1][0]}."
    elif faster and faster == [n for n, _, _ in rows[len(rows) - len(faster):]]:  # the largest sizes, only they
        en = f"vmap was faster from batch {faster[0]} on ({ratios[-1]:.1f}x at batch {rows[-1][0]}), not below."
        es = (f"vmap fue más rápido a partir del lote {faster[0]} ({number(ratios[-1], '.1f', 'es')} veces más "
              f"rápido con lote {rows[-1][0]}), no antes.")
    elif faster:
        listed = ", ".join(map(str, faster))
        en = f"vmap was faster by more than 5 % only at batch {listed}, not at the other sizes measured."
        es = f"vmap fue más de un 5 % más rápido solo con lote {listed}, no con los demás tamaños medidos."
    else:
        en = "vmap was not faster than the loop by more than 5 % at any batch size measured here."
        es = "vmap no fue más de un 5 % más rápido que el bucle en ningún tamaño de lote medido aquí."
    return f"{table}\n{words(en=en, es=es)}"
# --8<-- [end:body]
