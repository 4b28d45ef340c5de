"""The `TORCH_LOGS` recipes a practitioner reaches for, and the lines worth reading in what each prints."""

from hood.capture.common import words
from hood.capture.compile import artifact_messages
from snippets.compile.graph_breaks import chatty_head
from snippets.compile.heads import head
from snippets.compile.inductor_code import generated_code
from snippets.running_example import running_example

# --8<-- [start:body]
import re

import torch

RECIPES = {  # TORCH_LOGS=<artifact>: the lines to read in what it prints
    "graph_breaks": r"^(Graph break in user code|Failed to trace|Unsupported)",
    "recompiles": r"^(Recompiling|- \d)", "guards": r"TENSOR_MATCH: check_tensor\(L\['x'\]|^if not",
    "output_code": r"^(\w+ = async_compile|extern_kernels\.|cpp_fused\w+\()"}
READ = words(en="messages; the lines to read:", es="mensaje(s); las líneas que hay que leer:")


def torch_logs_recipes():
    """Run each recipe on the head (on `chatty_head` for graph breaks); print and return its key lines."""
    x, W, b = running_example()
    def recompile():  # a batch of 2, then a batch of 3 that fails a guard
        compiled = torch.compile(head, backend="eager")
        compiled(x, W, b), compiled(torch.randn(3, 64, requires_grad=True), W, b)
    runs = {"graph_breaks": lambda: torch.compile(chatty_head, backend="eager")(x, W, b),
            "recompiles": recompile, "guards": recompile, "output_code": lambda: generated_code(head, x, W, b)}
    shown = {}  # artifact: the lines printed
    for artifact, run in runs.items():
        torch._dynamo.reset()
        (messages,) = artifact_messages(run, (artifact,)).values()
        lines = [re.sub(r"\s+#\s.*$|(?<=>):\d+$", "", line.strip()) for m in messages for line in m.splitlines()]
        shown[artifact] = [line.partition(", r'''")[0]  # a kernel's definition: its name, not its source
                           for line in lines if re.search(RECIPES[artifact], line)]
        print(f"TORCH_LOGS={artifact}: {len(messages)} {READ}", *shown[artifact], sep="\n    ")
    return shown
# --8<-- [end:body]
