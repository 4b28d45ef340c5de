"""no_grad versus inference_mode, seen in the thread-local dispatch key sets and in the results."""

from hood.capture.autograd import call_key_set, render_key_changes, tls_keys
from hood.capture.common import dispatch_table, words
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def grad_modes():
    """Run `F.linear` by default, under `torch.no_grad()` and under `torch.inference_mode()`."""
    x, W, b = running_example()
    default = tls_keys()
    print(words(en="default include:", es="inclusión por defecto:"), ", ".join(default.include))
    print(words(en="default exclude:", es="exclusión por defecto:"), ", ".join(default.exclude))
    results = {}
    for name, mode in (("default", torch.enable_grad()), ("no_grad", torch.no_grad()),
                       ("inference_mode", torch.inference_mode())):
        with mode:
            keys, (call_keys, _) = tls_keys(), call_key_set(x, W, b)
            y = F.linear(x, W, b)
            grad_enabled = torch.is_grad_enabled()
        results[name] = (keys, runs_at("aten::addmm", call_keys)[1], y)
        shown = words(en="default", es="por defecto") if name == "default" else name
        print(f"\n{shown}:", words(en="grad enabled", es="gradiente activado"), f"{grad_enabled};",
              words(en="autograd key excluded", es="clave de autograd excluida"), keys.autograd_excluded)
        print(words(en="  TLS:", es="  estado del hilo:"), render_key_changes(default, keys))
        print(words(en="  a call on x, W, b:", es="  una llamada sobre x, W, b:"), ", ".join(call_keys))
        print_runs_at(call_keys, ("aten::linear", "aten::addmm"))
        grad_fn = type(y.grad_fn).__name__ if y.grad_fn is not None else None
        print(f"  y.requires_grad {y.requires_grad}, y.grad_fn {grad_fn}, y.is_inference() {y.is_inference()}")
        print(words(en="  keys of y:", es="  claves de y:"), torch._C._dispatch_keys(y))
    return results
# --8<-- [end:body]


# --8<-- [start:runs_at]
def runs_at(op, call_keys):
    """The keys of a call's set (lowest priority first) left once the dispatcher drops those where `op`'s entry is
    a fallthrough, and the highest of them: the key whose kernel runs first."""
    table = dispatch_table(op)
    kept = [key for key in call_keys if not (key in table and table[key].fallthrough)]
    return kept, kept[-1]


def print_runs_at(call_keys, ops):
    """For each of `ops`: the call's keys left without the op's fallthroughs, and the key the op runs at."""
    for op in ops:
        kept, top = runs_at(op, call_keys)
        print(words(en=f"    without {op}'s fallthroughs:", es=f"    sin los fallthroughs de {op}:"),
              ", ".join(kept), "->", op, words(en="runs at", es="se ejecuta en"), top)
# --8<-- [end:runs_at]
