"""Lab 03, part F: the learner's survey of the four distributed patterns, and the runs DISTRIBUTED.md reports.

The page's block includes, before this body, the bodies of `hood/capture/collectives.py` and of the distributed
snippets (ranks, workload, observe, ddp, fsdp, tensor_parallel, pipeline): `run_ranks` forks the ranks and calls
the same rank functions as theory 04.
"""

from hood.capture.collectives import render_ranks, run_ranks
from hood.capture.common import words
from snippets.distributed.ddp import ddp_rank
from snippets.distributed.fsdp import fsdp_rank
from snippets.distributed.pipeline import pp_rank
from snippets.distributed.tensor_parallel import tp_rank

# --8<-- [start:survey]
def survey():
    """Your survey: for each pattern, what it splits, what it communicates, when to use it and when to avoid it;
    then the one you would pick for the grammar MiniGPT, and why. A paragraph per key, in your language."""
    return {
        "DDP": words(
            en="Splits the data: every rank holds the whole model and averages the gradients with an all-reduce "
               "during the backward. Use it when model, gradients and optimiser state fit on one device; avoid it "
               "when they do not.",
            es="Reparte los datos: cada rank tiene el modelo entero y promedia los gradientes con un all-reduce "
               "durante el backward. Úsalo cuando el modelo, los gradientes y el estado del optimizador caben en un "
               "dispositivo; evítalo cuando no caben."),
        "FSDP2": words(
            en="Splits parameters, gradients and optimiser state into shards: all-gathers a layer's parameters "
               "before using them and reduce-scatters its gradients. Use it when the model does not fit but a layer "
               "does; avoid it when the model fits (DDP moves less data).",
            es="Reparte parámetros, gradientes y estado del optimizador en fragmentos: hace all-gather de los "
               "parámetros de una capa antes de usarlos y reduce-scatter de sus gradientes. Úsalo cuando el modelo no "
               "cabe pero una capa sí; evítalo cuando el modelo cabe (DDP mueve menos datos)."),
        "Tensor parallel": words(
            en="Splits each layer's weight by columns or rows: a row-wise layer all-reduces its partial sums in the "
               "forward, a column-wise one the gradient of its input in the backward. Use it when one layer is too "
               "big or too slow for one device and the link is fast; avoid it across slow links.",
            es="Reparte el peso de cada capa por columnas o por filas: una capa por filas hace un all-reduce de sus "
               "sumas parciales en el forward, y una por columnas, del gradiente de su entrada en el backward. Úsalo "
               "cuando una capa es demasiado grande o lenta para un dispositivo y el enlace es rápido; evítalo con "
               "enlaces lentos."),
        "Pipeline parallel": words(
            en="Splits the model in depth into stages and sends activations forward and gradients backward, point "
               "to point, micro-batch by micro-batch. Use it for deep models over slow links; avoid it for shallow "
               "models or batches too small to cut into micro-batches.",
            es="Reparte el modelo en profundidad en etapas y envía activaciones hacia delante y gradientes hacia "
               "atrás, punto a punto, micro-lote a micro-lote. Úsalo para modelos profundos con enlaces lentos; "
               "evítalo con modelos poco profundos o lotes demasiado pequeños para cortarlos en micro-lotes."),
        "MiniGPT": words(
            en="DDP: the model is tiny and fits on one device with room to spare, so only throughput is worth "
               "scaling; the other three add communication to solve a memory problem it does not have.",
            es="DDP: el modelo es diminuto y cabe de sobra en un dispositivo, así que solo merece la pena escalar "
               "el rendimiento; los otros tres añaden comunicación para resolver un problema de memoria que no "
               "tiene."),
    }


# --8<-- [end:survey]


# --8<-- [start:runs]
RANK_FUNCTIONS = {"DDP": ddp_rank, "FSDP2": fsdp_rank, "Tensor parallel": tp_rank, "Pipeline parallel": pp_rank}
"""The four patterns, each with theory 04's rank function."""

SPANISH_NAMES = {"Tensor parallel": "Paralelismo tensorial", "Pipeline parallel": "Paralelismo de pipeline"}
"""A pattern's name as a Spanish page prints it (DDP and FSDP2 keep theirs)."""


def paragraph(written, name):
    """The survey's paragraph under `name`: "" when it has none, or only blanks."""
    return str(written.get(name) or "").strip()


def no_paragraph():
    """What DISTRIBUTED.md writes in a section for which the survey has no paragraph."""
    return words(en="*No paragraph: `survey()` has none under this key.*",
                 es="*Sin párrafo: `survey()` no tiene ninguno con esta clave.*")


def survey_runs():
    """Run each pattern's rank function on two forked processes; print, per pattern, whether the survey has its
    paragraph and how many ranks returned; return the runs by pattern."""
    written = survey()
    runs = {}
    for name, rank_fn in RANK_FUNCTIONS.items():
        runs[name] = run_ranks(rank_fn)
        print(words(en=f"{name}: paragraph written: {bool(paragraph(written, name))}; ranks that returned: "
                       f"{len(runs[name])}",
                    es=f"{SPANISH_NAMES.get(name, name)}: párrafo escrito: {bool(paragraph(written, name))}; ranks que "
                       f"respondieron: {len(runs[name])}"))
    print(words(en=f"choice for the MiniGPT given: {bool(paragraph(written, 'MiniGPT'))}",
                es=f"elección para el MiniGPT escrita: {bool(paragraph(written, 'MiniGPT'))}"))
    return runs


def distributed_report(written, runs):
    """DISTRIBUTED.md: a section per pattern (the survey's paragraph, then what its two ranks returned), then the
    choice for the MiniGPT. A section without a paragraph says so."""
    parts = ["# " + words(en="The four distributed patterns", es="Los cuatro patrones distribuidos"), ""]
    for name, results in runs.items():
        parts += ["## " + words(en=name, es=SPANISH_NAMES.get(name, name)), "",
                  paragraph(written, name) or no_paragraph(), "",
                  words(en="What the two ranks returned (gloo, 127.0.0.1):",
                        es="Lo que devolvieron los dos ranks (gloo, 127.0.0.1):"), "",
                  "```text", render_ranks(results), "```", ""]
    parts += ["## " + words(en="The choice for the MiniGPT", es="La elección para el MiniGPT"), "",
              paragraph(written, "MiniGPT") or no_paragraph(), ""]
    return "\n".join(parts)
# --8<-- [end:runs]
