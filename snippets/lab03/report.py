"""Lab 03, the deliverables: REPORT.md, output_code.py, kernel.cpp, KERNEL_ANNOTATION.md and DISTRIBUTED.md, made
from what the learner's functions returned; the page's last block writes them with `hood/labkit.py:body`."""

from hood.capture.common import words
from hood.capture.compile_timing import interpret, render_table
from snippets.lab03.kernel_annotation import KERNEL, annotate, render_annotation
from snippets.lab03.survey import distributed_report, no_paragraph

# --8<-- [start:body]
def lab03_report(agreement, annotation_ok, rows) -> str:
    """REPORT.md: the agreement check, pointers to the kernel and its annotation, the timings and their reading."""
    return "\n".join([
        words(en="# Lab 03 · Compile the head, survey the patterns",
              es="# Lab 03 · Compilar la cabeza, repasar los patrones"),
        "",
        words(en="## Part A · Compile match", es="## Parte A · Compilado frente a eager"),
        words(en=f"Eager and compiled TinyHead (batch 2), max abs diff {agreement}: **{agreement.within}**.",
              es=f"TinyHead eager y compilado (lote 2), diferencia absoluta máxima {agreement}: "
                 f"**{agreement.within}**."),
        "",
        words(en="## Parts B to D · Generated code", es="## Partes B a D · Código generado"),
        words(en=f"- `output_code.py`: the module Inductor generated; `kernel.cpp`: its kernel `{KERNEL}`.",
              es=f"- `output_code.py`: el módulo que generó Inductor; `kernel.cpp`: su kernel `{KERNEL}`."),
        words(en=f"- `KERNEL_ANNOTATION.md`: every claim checked against that kernel; all checks hold: "
                 f"**{annotation_ok}**.",
              es=f"- `KERNEL_ANNOTATION.md`: cada afirmación comprobada contra ese kernel; todas las comprobaciones "
                 f"se cumplen: **{annotation_ok}**."),
        "",
        words(en="## Part E · Eager versus compiled (one thread, torch.utils.benchmark medians)",
              es="## Parte E · Eager frente a compilado (un hilo, medianas de torch.utils.benchmark)"),
        render_table(rows),
        "",
        words(**interpret(rows)),
        "",
        words(en="## Part F · Distributed survey", es="## Parte F · Repaso de los patrones distribuidos"),
        words(en="See `DISTRIBUTED.md`.", es="Ver `DISTRIBUTED.md`."),
        "",
    ])


def lab03_files(head_code, agreement, rows, written, runs) -> dict:
    """Every deliverable but the manifest, by file name, from what the lab's functions returned."""
    results = annotate(head_code)
    annotation_ok = all(ok for _, checks in results for _, ok, _ in checks)
    title = words(en=f"# Annotation of `{KERNEL}`", es=f"# Anotación de `{KERNEL}`")
    return {
        "REPORT.md": lab03_report(agreement, annotation_ok, rows),
        "output_code.py": head_code.code,
        "kernel.cpp": head_code.kernels[KERNEL],
        "KERNEL_ANNOTATION.md": f"{title}\n\n```text\n{render_annotation(results)}```\n",
        "DISTRIBUTED.md": distributed_report(written, runs),
    }


def acceptance(files, paths) -> None:
    """Print the name of each file written, then the lines of `files` (the deliverables, every language) that the
    lab's acceptance asks for."""
    print(*sorted(path.name for path in paths), sep="\n")
    for line in files["REPORT.md"].splitlines():
        if "**" in line:
            print(line)
    print(words(en="FAILED in KERNEL_ANNOTATION.md:", es="FALLO en KERNEL_ANNOTATION.md:"),
          words(en="FAILED", es="FALLO") in files["KERNEL_ANNOTATION.md"])
    sections = sum(line.startswith("## ") for line in files["DISTRIBUTED.md"].splitlines())
    print(words(en="sections of DISTRIBUTED.md with your paragraph:", es="secciones de DISTRIBUTED.md con tu párrafo:"),
          sections - files["DISTRIBUTED.md"].count(no_paragraph()))
# --8<-- [end:body]
