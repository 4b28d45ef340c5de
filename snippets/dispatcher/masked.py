"""Theory 01: the key a call starts at is the top of its key set once the operator's fallthrough keys are removed."""

from hood.capture.common import words
from hood.capture.dispatch import recording_dispatch
from hood.capture.keys import key_view
from hood.capture.tables import table_rows
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def start_keys_under_inference_mode():
    """Under inference_mode: the call's key set, the keys each operator falls through, the key it starts at,
    and, to check it, the key where the recorded walk shows the operator's first step."""
    x, W, b = running_example()
    calls = {"aten::linear": lambda: F.linear(x, W, b), "aten::addmm": lambda: torch.addmm(b, x, W.t()),
             "aten::t": lambda: W.t()}
    starts, said = {}, {"top": words(en="top:", es="la más alta:"), "start": words(en="starts at:", es="empieza en:"),
                        "walk": words(en="walk:", es="recorrido:")}
    with torch.inference_mode():
        effective = key_view("x", x).effective  # lowest priority first
        print(words(en="key set (tensor | include) - exclude:",
                    es="conjunto de claves (tensor | inclusión) - exclusión:"),
              ", ".join(effective), f"  {said['top']} {effective[-1]}")
        for op, call in calls.items():
            rows = {row.key: row for row in table_rows(op, tuple(effective))}
            skipped = [key for key in effective if rows[key].fallthrough]
            start = [key for key in effective if key not in skipped][-1]
            with recording_dispatch() as steps:
                call()
            walked = next(s.key for s in steps if s.op == op.replace("::", ".") + ".default")
            starts[op] = (skipped, start, walked)
            print(f"{op:<13} fallthrough: {', '.join(skipped) or '-':<31} {said['start']} {start:<16} "
                  f"{said['walk']} {walked}")
    return starts
# --8<-- [end:body]
