"""Lab 03, part D: the annotation of the fused softmax kernel, as claims the real kernel must bear out.

Each claim carries checks: a regular expression that lines of the kernel (or of the wrapper that calls it)
must match, a number of times or at least once. The page renders every claim with the lines that prove
it; the tests evaluate the same checks, so an upgrade that changes the kernel fails them. Claims and verdicts
are printed in every language (`words`); the page shows its own.
"""

from hood.capture.common import localize, words  # pages include common.py and compile.py before this module's body
from hood.capture.compile import InductorOutput

# --8<-- [start:body]
import re
from dataclasses import dataclass

KERNEL = "cpp_fused__softmax_0"
"""The kernel the annotation reads."""


@dataclass(frozen=True)
class Check:
    """Lines of `where` (`kernel` or `wrapper`) matching `pattern`: `count` of them, or at least one if `None`."""

    where: str
    pattern: str
    count: int | None = None


@dataclass(frozen=True)
class Claim:
    """One sentence of the annotation and the checks that make it true; title and text in every language (`words`)."""

    title: str
    text: str
    checks: tuple[Check, ...]


def kernel_claims():
    """The annotation of the kernel, claim by claim (a tuple of `Claim`): each sentence and the checks that make it
    true."""
    return (
        Claim(words(en="What was fused", es="Qué se fusionó"),
              words(en="The four steps of softmax (row max, subtract and exp, row sum, divide) are one generated "
                       f"kernel, `{KERNEL}`, which the wrapper launches once.",
                    es="Los cuatro pasos del softmax (máximo de la fila, resta y exponencial, suma de la fila, "
                       f"división) son un solo kernel generado, `{KERNEL}`, que el wrapper lanza una vez."),
              (Check("wrapper", rf"^{KERNEL}\(buf\d+, ", 1), Check("kernel", r"at::vec::maximum\("),
               Check("kernel", r"= tmp\d+\.exp\(\);"), Check("kernel", r"tmp_acc0_vec = tmp_acc0_vec \+ tmp\d+;"),
               Check("kernel", r"= tmp\d+ / tmp\d+;"))),
        Claim(words(en="What was not fused", es="Qué no se fusionó"),
              words(en="The matrix product stays a library call: the wrapper calls `extern_kernels.addmm` into `buf0`, "
                       "and the kernel starts from those logits.",
                    es="El producto de matrices sigue siendo un kernel externo: el wrapper llama a "
                       "`extern_kernels.addmm` con salida en `buf0`, y el kernel parte de esos logits."),
              (Check("wrapper", r"^extern_kernels\.addmm\(.*out=buf0\)\Z", 1),
               Check("wrapper", rf"^{KERNEL}\(buf0, ", 1))),
        Claim(words(en="Three passes, not one", es="Tres pasadas, no una"),
              words(en="Each row is walked three times inside the kernel: once for the max, once for exp and sum, once "
                       "to divide.",
                    es="El kernel recorre cada fila tres veces: una para el máximo, otra para la exponencial "
                       "y la suma, y otra para dividir."),
              (Check("kernel", r"for\(int64_t x1=static_cast<int64_t>\(0L\); x1<static_cast<int64_t>\(600L\)", 3),)),
        Claim(words(en="Work split", es="Reparto del trabajo"),
              words(en="OpenMP shares the 2 rows (`x0`) between the threads; within a row, `x1` advances 8 floats at a "
                       "time (one AVX2 vector).",
                    es="OpenMP reparte las 2 filas (`x0`) entre los hilos; dentro de una fila, `x1` avanza 8 floats "
                       "cada vez (un vector AVX2)."),
              (Check("kernel", r"#pragma omp for", 1),
               Check("kernel", r"for\(int64_t x0=static_cast<int64_t>\(0L\); x0<static_cast<int64_t>\(2L\)", 1),
               Check("kernel", r"x1\+=static_cast<int64_t>\(8L\)", 3))),
        Claim(words(en="Where the input is read", es="Dónde se lee la entrada"),
              words(en="Logit (x0, x1) is loaded from `in_ptr0 + x1 + 600*x0`, row-major with 600 floats per row, 8 at "
                       "a time.",
                    es="El logit (x0, x1) se carga desde `in_ptr0 + x1 + 600*x0`, fila a fila, con 600 floats "
                       "por fila, de 8 en 8."),
              (Check("kernel", r"Vectorized<float>::loadu\(in_ptr0 \+ static_cast<int64_t>\(x1 \+ 600L\*x0\), "
                               r"static_cast<int64_t>\(8\)\)", 2),)),
        Claim(words(en="How the reductions are expressed", es="Cómo se expresan las reducciones"),
              words(en="Max and sum each keep an 8-wide vector accumulator (`tmp_acc0_vec`, started at -inf and at 0), "
                       "folded into one float by `vec_reduce_all` at the end of the row and stored per row in "
                       "`out_ptr0` and `out_ptr1`.",
                    es="El máximo y la suma llevan cada uno un acumulador vectorial de 8 floats (`tmp_acc0_vec`, que "
                       "empieza en -inf y en 0), que `vec_reduce_all` reduce a un solo float al final de la fila y que "
                       "se guarda, uno por fila, en `out_ptr0` y `out_ptr1`."),
              (Check("kernel",
                     r"tmp_acc0_vec = at::vec::Vectorized<float>\(-std::numeric_limits<float>::infinity\(\)\);", 1),
               Check("kernel", r"tmp_acc0_vec = at::vec::Vectorized<float>\(0\);", 1),
               Check("kernel", r"at::vec::vec_reduce_all<float, 1>", 2),
               Check("kernel", r"^out_ptr0\[static_cast<int64_t>\(x0\)\] = ", 1),
               Check("kernel", r"^out_ptr1\[static_cast<int64_t>\(x0\)\] = ", 1))),
        Claim(words(en="Where the output is written", es="Dónde se escribe la salida"),
              words(en="Probabilities are stored 8 at a time at `out_ptr2 + x1 + 600*x0`: the wrapper's `buf4`, the "
                       "(2, 600) result it returns.",
                    es="Las probabilidades se guardan de 8 en 8 en `out_ptr2 + x1 + 600*x0`: el `buf4` del wrapper, el "
                       "resultado (2, 600) que devuelve."),
              (Check("kernel", r"\.store\(out_ptr2 \+ static_cast<int64_t>\(x1 \+ 600L\*x0\)\);", 1),
               Check("wrapper", r"^buf4 = empty_strided_cpu\(\(2, 600\)", 1),
               Check("wrapper", r"^return \(buf4, \)\Z", 1))),
        Claim(words(en="What is not materialised", es="Qué no se materializa"),
              words(en="`exp(x - max)` never becomes a tensor: it goes to a per-thread scratch array of 600 floats "
                       "(`local_buffer_data_0`), written in the second pass and read in the third. The wrapper "
                       "allocates `buf0`, `buf1`, `buf3`, `buf4` and no `buf2`.",
                    es="`exp(x - max)` nunca llega a ser un tensor: va a un array auxiliar de 600 floats por hilo "
                       "(`local_buffer_data_0`), que la segunda pasada escribe y la tercera lee. El wrapper reserva "
                       "`buf0`, `buf1`, `buf3` y `buf4`, y ningún `buf2`."),
              (Check("kernel", r"std::make_unique<float \[\]>\(600L\)", 1),
               Check("kernel", r"\.store\(local_buffer_data_0 \+ static_cast<int64_t>\(x1\)\);", 1),
               Check("kernel", r"loadu\(local_buffer_data_0 \+ static_cast<int64_t>\(x1\)", 1),
               Check("wrapper", r"^buf2 = ", 0))),
    )


ANNOTATION = kernel_claims()


def _lines(head_code: InductorOutput, where: str) -> list[str]:
    text = head_code.kernels[KERNEL] if where == "kernel" else head_code.call
    return [line.strip() for line in text.splitlines() if line.strip()]


def evaluate(check, head_code):
    """Whether `check` (a `Check`) holds on `head_code` (an `InductorOutput`): a bool, and the lines that match it."""
    hits = [line for line in _lines(head_code, check.where) if re.search(check.pattern, line)]
    ok = len(hits) == check.count if check.count is not None else bool(hits)
    return ok, hits


def annotate(head_code: InductorOutput) -> list[tuple[Claim, list[tuple[Check, bool, list[str]]]]]:
    """Every claim with each of its checks evaluated on the generated code."""
    return [(claim, [(check, *evaluate(check, head_code)) for check in claim.checks]) for claim in ANNOTATION]


def describe(check: Check, ok: bool, hits: list[str]) -> str:
    """One check in a sentence: where, the pattern, how many lines it wants, and what the code gave."""
    times = (words(en="at least once", es="al menos una vez") if check.count is None
             else words(en=f"{check.count} times", es=f"{check.count} veces"))
    return words(en=f"{check.where} must match {check.pattern!r} {localize(times, 'en')}: {ok}, {len(hits)} lines",
                 es=f"{check.where} debe cumplir {check.pattern!r} {localize(times, 'es')}: {ok}, {len(hits)} líneas")


def render_annotation(results) -> str:
    """The annotation as text: each claim, then each check's verdict and the first line that proves it."""
    out = []
    for n, (claim, checks) in enumerate(results, 1):
        out.append(f"{n}. {claim.title}. {claim.text}")
        for check, ok, hits in checks:
            mark = "ok " if ok else words(en="FAILED", es="FALLO")
            times = (words(en="no line", es="ninguna línea") if check.count == 0
                     else words(en=f"{len(hits)} line(s)", es=f"{len(hits)} línea(s)"))
            evidence = "  " + words(en="e.g.", es="p. ej.") + f" {hits[0]}" if hits else ""
            out.append(f"   [{mark}] {check.where}, {times}{evidence}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
# --8<-- [end:body]
