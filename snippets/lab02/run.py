"""Lab 02's deliverables: REPORT.md, opcheck.json, generated_forward.py, generated_backward.py, manifest.json.

The `body` section is the lab's last block (after `hood/labkit.py:body`): it reruns every step with the op and
the functions the earlier blocks defined. `python -m snippets.lab02.run --out DIR [--lang es]` does the same from
the project's solutions (the tests use it).
"""

import sys
from pathlib import Path

from hood.capture.common import words
from hood.labkit import manifest, objective, parse_args, printed_by, section, write_deliverables
from snippets.custom_ops.checks import check_scaled_linear
from snippets.custom_ops.compare_tables import compare_tables, entry
from snippets.custom_ops.head import TemperatureHead, compiled_head, head_trace, train_step
from snippets.custom_ops.no_fake import without_fake
from snippets.custom_ops.redefine import redefine_pitfall
from snippets.custom_ops.reference import against_reference
from snippets.custom_ops.scaled_linear import define_scaled_linear

# --8<-- [start:body]
import contextlib
import io
import json

import torch


def captured(fn, *args):
    """What `fn(*args)` returns, and what it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def reference_reading(printed):
    """Section 1's sentence, from what `against_reference` printed: every line under its bound, or not."""
    if all(line.rstrip().endswith("< 1e-06") for line in printed.splitlines()[1:]):
        return words(
            en="The op computes what `F.linear(x, W, b) * scale` computes, and its hand-written backward "
               "gives the same three gradients as autograd does through the reference.",
            es="El operador calcula lo mismo que `F.linear(x, W, b) * scale`, y su backward escrito a mano da "
               "los mismos tres gradientes que autograd a través de la referencia.")
    return words(
        en="A line marked `>` differs from the reference by more than its bound: the op, or its backward, does "
           "not compute what `F.linear(x, W, b) * scale` and autograd compute.",
        es="Una línea marcada con `>` se aleja de la referencia más que su cota: el operador, o su backward, no "
           "calcula lo mismo que `F.linear(x, W, b) * scale` y autograd.")


def lab02_report(scaled_linear):
    """Rerun every step with your op and functions; the deliverables (file name -> text)."""
    _, reference = captured(against_reference, scaled_linear)
    (_, _, opcheck), checks = captured(check_scaled_linear, scaled_linear)
    _, tables = captured(compare_tables)
    _, trace = captured(head_trace)
    (codes, _, _), compiled = captured(compiled_head)
    _, no_fake = captured(without_fake)
    _, redefine = captured(redefine_pitfall)
    report = "\n".join([
        words(en="# Lab 02 · A custom op end to end: report\n",
              es="# Lab 02 · Un operador propio de punta a punta: informe\n"),
        objective(en="register `hood::scaled_linear(x, W, b, scale) = scale * (x @ W.T + b)` with "
                     "`torch.library.custom_op`, give it a fake kernel and a backward, check it, find it in the "
                     "dispatcher, and run it inside `torch.compile(fullgraph=True)`.",
                  es="registrar `hood::scaled_linear(x, W, b, scale) = scale * (x @ W.T + b)` con "
                     "`torch.library.custom_op`, darle un kernel fake y un backward, comprobarlo, encontrarlo en el "
                     "dispatcher y ejecutarlo dentro de `torch.compile(fullgraph=True)`.")
        + " " + printed_by(torch.__version__) + "\n",
        section(words(en="1. The op against its reference", es="1. El operador frente a su referencia"),
                reference, reference_reading(reference)),
        section("2. gradcheck, gradgradcheck, opcheck", checks, words(
            en="The backward matches finite differences; it is built from differentiable torch ops, so "
               "its own gradient (gradgradcheck) is right too. opcheck's four tests pass: the schema, "
               "the autograd registration, the fake kernel against the real one, and AOT dispatch. "
               "The same results are in `opcheck.json`.",
            es="El backward coincide con las diferencias finitas; está hecho de operaciones de torch "
               "derivables, así que su propio gradiente (gradgradcheck) también es correcto. Pasan las cuatro "
               "pruebas de opcheck: el esquema, el registro de autograd, el kernel fake frente al real y el "
               "dispatch de AOT. Los mismos resultados están en `opcheck.json`.")),
        section(words(en="3. The dispatch table, next to aten::addmm",
                      es="3. La tabla de dispatch, junto a la de aten::addmm"), tables, words(
            en="For this op `custom_op` registered three kernels (Meta, Autograd, CompositeExplicitAutograd) "
               "whose table rows call back into Python: Meta into the `register_fake` function, Autograd into "
               "what `register_autograd` registered, CompositeExplicitAutograd into the decorated function. "
               "`aten::addmm` has an autocast kernel; for the custom op, `AutocastCPU` falls through.",
            es="Para este operador, `custom_op` registró tres kernels (Meta, Autograd, CompositeExplicitAutograd) "
               "cuyas filas de la tabla vuelven a llamar a Python: Meta a la función de `register_fake`, Autograd "
               "a lo que registró `register_autograd` y CompositeExplicitAutograd a la función decorada. "
               "`aten::addmm` tiene un kernel de autocast; para el operador propio, la entrada `AutocastCPU` "
               "deja pasar la llamada.")),
        section(words(en="4. What a TorchDispatchMode sees", es="4. Lo que ve un TorchDispatchMode"), trace, words(
            en="Below the autograd key, the whole matmul, bias and scale are one call, "
               "`hood.scaled_linear.default`, followed by the log-softmax and a `detach`: autograd saves "
               "log-softmax's output, and "
               "with a dispatch mode on the stack that save goes through the `detach` operator.",
            es="Por debajo de la clave de autograd, el producto de matrices, el sesgo y la escala son una sola "
               "llamada, `hood.scaled_linear.default`, seguida del log-softmax y de un `detach`: autograd guarda "
               "la salida de log-softmax y, con un modo de dispatch en la pila, ese guardado pasa por el operador "
               "`detach`.")),
        section(words(en="5. Compiled with fullgraph=True", es="5. Compilado con fullgraph=True"), compiled, words(
            en="The forward wrapper calls the op as it is, opaquely, next to Inductor's fused "
               "log-softmax kernel; the backward wrapper has no call to the op: AOTAutograd traced the "
               "registered backward into plain ATen ops (two `mm`, a fused multiply and a sum). "
               "The full wrappers are in `generated_forward.py` and `generated_backward.py`.",
            es="El wrapper del forward llama al operador tal cual, como una llamada opaca, junto al kernel "
               "fusionado de log-softmax de Inductor; el wrapper del backward no llama al operador: AOTAutograd "
               "trazó el backward registrado en operaciones corrientes de ATen (dos `mm`, una multiplicación "
               "fusionada y una suma). Los wrappers completos están en `generated_forward.py` y "
               "`generated_backward.py`.")),
        section(words(en="6. Without register_fake", es="6. Sin register_fake"), no_fake, words(
            en="Real tensors never need the fake kernel. Meta tensors, torch.compile (which traces "
               "with fake tensors) and opcheck's fake-tensor test do: without one, each of them fails with the "
               "same message.",
            es="Los tensores reales nunca necesitan el kernel fake. Los tensores meta, torch.compile (que traza "
               "con tensores fake) y la prueba de tensores fake de opcheck sí lo necesitan: sin él, los tres fallan "
               "con el mismo mensaje.")),
        section(words(en="7. Pitfall: one name, two definitions", es="7. Trampa: un nombre, dos definiciones"),
                redefine, words(
            en="A second `custom_op` with the same name replaces the first without a word; eager calls then "
               "follow the second definition, while `torch.compile` can still reuse a backward compiled from the "
               "first. Define each op once, in a module imported once.",
            es="Un segundo `custom_op` con el mismo nombre sustituye al primero en silencio; a partir de ahí, las "
               "llamadas en eager siguen la segunda definición, pero `torch.compile` puede seguir reutilizando un "
               "backward compilado a partir de la primera. Define cada operador una sola vez, en un módulo que se "
               "importe una sola vez.")),
    ])
    return {
        "REPORT.md": report,
        "opcheck.json": json.dumps(opcheck, indent=2) + "\n",
        "generated_forward.py": codes[0],
        "generated_backward.py": codes[1],
    }


def lab02_code():
    """Every function and class you wrote for the lab: the manifest hashes their source."""
    return (define_scaled_linear, against_reference, check_scaled_linear, entry, compare_tables, TemperatureHead,
            head_trace, train_step, compiled_head, without_fake)
# --8<-- [end:body]


def main(argv=None) -> list[Path]:
    """Write the deliverables into `--out DIR` in `--lang` and print their paths."""
    args = parse_args("Lab 02: a custom op end to end", argv)
    files = lab02_report(define_scaled_linear())
    meta = manifest(lab="lab02-custom-op", seed=42, functions=lab02_code())
    written = write_deliverables(args.out, files, meta, args.lang)
    for path in written:
        print(path)
    return written


if __name__ == "__main__":
    sys.exit(main() and 0)
