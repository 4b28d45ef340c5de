"""Every phrase the site's machinery writes on a page, in a report box or into a download: one table per language.

`words(language, concern)` returns the phrases of one concern (`"download"`, `"drift"`, …) in `language`, and
English's where the language has none. Phrases that blocks print are not here: they are in the blocks' own code
(`hood.capture.common.words`).
"""

from __future__ import annotations

# What a download line tells a Linux learner to add so that pip takes the CPU build the pages ran.
CPU_INDEX = "<code>--extra-index-url https://download.pytorch.org/whl/cpu</code>"

EN = {
    "theme": {},
    "setup_link": "Download {file} ({lines} lines): the code the blocks of this page run first, to read, or to run "
                  "with <code>python -i {name}</code> in a Python with torch {torch}.",
    "stale": {"title": "This translation is older than its English page", "lead": "Changes:"},
    "drift": {
        "drift": "This output differs from its committed trace",
        "missing trace": "This output has no committed trace yet",
        "fix": "Trace {trace}. If the new output is right, run <code>make bless</code>.",
    },
    "lens_box": {
        "prints": "In torch {release} this prints…", "raises": "In torch {release} this block raises",
        "build": "The difference comes from the build ({torch}, a CUDA build; the pin is a CPU build).",
        "release": "The difference comes from the release ({torch}).",
        "both": "The difference comes from the release and from the build ({torch}, a CUDA build; the pin is a CPU "
                "build).",
        "error": "Under {torch}:",
        "normalised": "Both sides as traces store them: <code>&lt;cell&gt;</code> stands for the file name of the "
                      "block that defined the code, which may be the page's setup block rather than this one, and "
                      "the other <code>&lt;…&gt;</code> for addresses, times or paths.",
    },
    "lens_page": {
        "count": "{same} of {total} traced blocks print the same under torch {torch} as under the pinned torch; "
                 "{differ} differ and {raising}.",
        "raising": ("none raises", "{n} raise"),
        "raises": "Raises under torch {release}:", "origin_build": "A difference of the build (CUDA).",
        "origin_release": "A difference of the release.",
        "origin_both": "A difference of the release and of the build (CUDA).",
        "pinned": "pinned torch",
        "figure": "[figure: the data it is drawn from]",
    },
    "glossary": {"term": "Term", "meaning": "Meaning"},
    "download": {
            "state": "Run this cell first: the page's language and the state every block started from when the "
                     "site was built (vector ISA, threads, Inductor's vector width, seeds), so that the outputs "
                     "match the page's. Remove it to see what your machine prints by itself.",
            "checks": "The checks of this notebook: they run the code that calls your answer and compare what it "
                      "prints with what torch {torch} printed when the site was built.",
            "answer": "Your answer",
            "answer_note": "write the code below. The check after it runs the page's calls and compares what they "
                           "print with its `expected` text, line by line: what your functions print is part of the "
                           "answer.",
            "answer_stub": "your answer here",
            "right": "right",
            "wrong": "wrong: what it printed differs from the real output (- real, + yours):",
            "raised": "wrong: it raised",
            "not_done": "not done yet",
            "needs": "not done yet: it needs {name}, which an earlier answer defines",
            "timing": "ran (a timing: compare it with the page by eye, it is not checked)",
            "predict": "your prediction of `{name}` (replace None), then run the next two cells",
            "predicted_right": "right: you predicted {real!r}",
            "predicted_wrong": "wrong: you predicted {guess!r}; torch says {real!r}",
            "kind": {"notebook": "notebook", "script": "script", "learner": "your notebook, with tasks and checks",
                     "solutions": "solutions notebook", "solutions_script": "solutions script"},
            "downloads": "Take this page away: {links}. Each runs with torch {torch} "
                         "(<code>pip install torch=={torch} jupyter</code>; on Linux, add " + CPU_INDEX + " "
                         "for the CPU build this page ran: the package index's Linux build is a CUDA one, whose "
                         "version line and CUDA rows differ in a few blocks).",
            "downloads_with": "Take this page away: {links}. Each runs with torch {torch} and {needs}, which a "
                              "torch feature of this page uses (<code>pip install torch=={torch} {needs} "
                              "jupyter</code>; on Linux, add " + CPU_INDEX + " for the CPU build this page "
                              "ran: the package index's Linux build is a CUDA one, whose version line and CUDA rows "
                              "differ in a few blocks).",
            "compiles": "Its blocks also compile C++, so they need a C++ compiler and Python's headers (on "
                        "Debian, <code>apt install g++ python3.11-dev</code>).",
        },
}

ES = {
    "theme": {
        'title="Permanent link"': 'title="Enlace permanente"',
        "Switch to dark mode": "Cambiar al modo oscuro",
        "Switch to light mode": "Cambiar al modo claro",
        "<h1>404 - Not found</h1>": "<h1>404 - Página no encontrada</h1>",
    },
    "setup_link": "Descarga {file} ({lines} líneas): el código que los bloques de esta página ejecutan primero, "
                  "para leerlo o para ejecutarlo con <code>python -i {name}</code> en un Python con torch {torch}.",
    "stale": {"title": "Esta traducción es anterior a la página inglesa",
               "lead": "La página inglesa cambió después de traducirse esta. Cambios desde la versión traducida:"},
    "drift": {
        "drift": "Esta salida difiere de su traza confirmada",
        "missing trace": "Esta salida aún no tiene traza confirmada",
        "fix": "Traza {trace}. Si la salida nueva es correcta, ejecuta <code>make bless</code>.",
    },
    "lens_box": {
        "prints": "En torch {release} esto imprime…", "raises": "En torch {release} este bloque lanza una excepción",
        "build": "La diferencia viene de que es una versión para CUDA ({torch}; la fijada es para CPU).",
        "release": "La diferencia viene de la versión de torch ({torch}).",
        "both": "La diferencia viene de la versión de torch y de que es una versión para CUDA ({torch}; la fijada "
                "es para CPU).",
        "error": "Con {torch}:",
        "normalised": "Los dos lados, como los guardan las trazas: <code>&lt;cell&gt;</code> sustituye al nombre de "
                      "archivo del bloque que definió el código, que puede ser el bloque de preparación de la página "
                      "y no este, y los demás <code>&lt;…&gt;</code>, a direcciones, tiempos o rutas.",
    },
    "lens_page": {
        "count": "{same} de {total} bloques con traza imprimen lo mismo con torch {torch} que con el torch "
                 "fijado; {differ} difieren y {raising}.",
        "raising": ("ninguno lanza una excepción", "{n} lanzan una excepción"),
        "raises": "Lanza una excepción con torch {release}:",
        "origin_build": "Una diferencia que viene de que es una versión para CUDA.",
        "origin_release": "Una diferencia que viene del cambio de versión de torch.",
        "origin_both": "Una diferencia que viene del cambio de versión de torch y de que es una versión para CUDA.",
        "pinned": "torch fijado",
        "figure": "[figura: los datos con que se dibuja]",
    },
    "glossary": {"term": "Término", "meaning": "Significado"},
    "download": {
            "state": "Ejecuta primero esta celda: el idioma de la página y el estado desde el que empezó cada bloque "
                     "cuando se construyó el sitio (ISA vectorial, hilos, ancho vectorial de Inductor, semillas), para "
                     "que las salidas coincidan con las de la página. Quítala para ver lo que imprime tu máquina "
                     "por sí sola.",
            "checks": "Las comprobaciones de este notebook: ejecutan el código que llama a tu respuesta y comparan lo "
                      "que imprime con lo que imprimió torch {torch} al construirse el sitio.",
            "answer": "Tu respuesta",
            "answer_note": "escribe el código de abajo. La comprobación que lo sigue ejecuta las llamadas de la "
                           "página y compara lo que imprimen con su texto `expected`, línea a línea: lo que imprimen "
                           "tus funciones forma parte de la respuesta.",
            "answer_stub": "tu respuesta aquí",
            "right": "correcto",
            "wrong": "incorrecto: lo que imprimió difiere de la salida real (- real, + la tuya):",
            "raised": "incorrecto: lanzó",
            "not_done": "sin hacer todavía",
            "needs": "sin hacer todavía: necesita {name}, que define una respuesta anterior",
            "timing": "ejecutado (una medición de tiempos: compárala a ojo con la página, no se comprueba)",
            "predict": "tu predicción de `{name}` (cambia None) y luego ejecuta las dos celdas siguientes",
            "predicted_right": "correcto: predijiste {real!r}",
            "predicted_wrong": "incorrecto: predijiste {guess!r}; torch dice {real!r}",
            "kind": {"notebook": "notebook", "script": "script", "learner": "tu notebook, con tareas y comprobaciones",
                     "solutions": "notebook de soluciones", "solutions_script": "script de soluciones"},
            "downloads": "Llévate esta página: {links}. Cada uno funciona con torch {torch} "
                         "(<code>pip install torch=={torch} jupyter</code>; en Linux, añade " + CPU_INDEX + " "
                         "para instalar la versión para CPU con la que se ejecutó esta página: la del índice de "
                         "paquetes para Linux es una versión para CUDA, que en algunos bloques imprime otro número "
                         "de versión y otras filas de CUDA).",
            "downloads_with": "Llévate esta página: {links}. Cada uno funciona con torch {torch} y con {needs}, "
                              "del que depende una función de torch que usa esta página "
                              "(<code>pip install torch=={torch} {needs} jupyter</code>; en Linux, añade " + CPU_INDEX
                              + " para instalar la versión "
                              "para CPU con la que se ejecutó esta página: la del índice de paquetes para Linux es una "
                              "versión para CUDA, que en algunos bloques imprime otro número de versión y otras filas "
                              "de CUDA).",
            "compiles": "Sus bloques compilan además C++, así que necesitan un compilador de C++ y las cabeceras "
                        "de Python (en Debian, <code>apt install g++ python3.11-dev</code>).",
        },
}

TABLES = {"en": EN, "es": ES}
"""The tables by language; English's is the fallback of every other."""


def words(language: str, concern: str):
    """The phrases of `concern` in `language` (English's where the language has no table).

    `"theme"` holds the interface text `mkdocs.yml` sets once for every language (the heading anchors' tooltip,
    the palette toggle's label), mended on the pages of the other languages: empty in English.
    """
    return TABLES.get(language, EN)[concern]


def translate_theme(html: str, language: str) -> str:
    """A page's HTML with the interface text `mkdocs.yml` sets once for every language in `language`."""
    for english, translated in words(language, "theme").items():
        html = html.replace(english, translated)
    return html
