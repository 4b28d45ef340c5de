"""What a rank can observe: the calls gloo ran and their sizes (profiler), the collectives asked for
(CommDebugMode), what it holds (shards, bytes) and the order it computed pipeline micro-batches in; and the
labels the rank functions report them under, in every language (`said`, `labelled`)."""

from hood.capture.common import words

# --8<-- [start:body]
import math
import re
from contextlib import contextmanager

import torch
from torch.distributed.tensor import DTensor
from torch.distributed.tensor.debug import CommDebugMode
from torch.profiler import ProfilerActivity, profile
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode

ELEMENT_BYTES = {"float": 4, "double": 8, "int": 4, "long int": 8, "unsigned char": 1}
"""Bytes per element of the C++ types the profiler names a call's inputs with."""

SAID_ES = {
    "weights differ across ranks before wrapping": "los pesos difieren entre ranks antes de envolver",
    "gloo calls while wrapping (bytes each)": "llamadas de gloo al envolver (bytes de cada una)",
    "weights equal rank 0's initial weights after wrapping": "tras envolver, los pesos son los iniciales del rank 0",
    "gloo calls in forward + backward (bytes each)": "llamadas de gloo en forward + backward (bytes de cada una)",
    "gradients equal the mean of the ranks' local gradients":
        "los gradientes son la media de los gradientes locales de los ranks",
    "bytes held after an Adam step": "bytes que guarda tras un paso de Adam",
    "parameters": "parámetros", "gradients": "gradientes", "optimizer state": "estado del optimizador",
    "{} asks for": "{} pide", "{}, gloo runs (bytes each)": "{}, gloo ejecuta (bytes de cada llamada)",
    "step {}, gloo runs (bytes each)": "paso {}, gloo ejecuta (bytes de cada llamada)",
    "step {}, in order": "paso {}, en orden",
    "local gradient shard equals this rank's rows of the mean gradient":
        "el fragmento local del gradiente coincide con las filas de este rank del gradiente medio",
    "row-wise layer's local calls (views left out)": "llamadas locales de la capa por filas (sin las vistas)",
    "bias its addmm adds equals b / 2": "el sesgo que suma su addmm es b / 2",
    "output equals the unsplit block's within 1e-4":
        "la salida coincide con la del bloque sin partir, con una diferencia menor que 1e-4",
    "input gradient equals the unsplit block's within 1e-4":
        "el gradiente de la entrada coincide con el del bloque sin partir, con una diferencia menor que 1e-4",
    "stage": "etapa", "step {}, computations in order": "paso {}, cálculos en orden",
    "gradients equal the unsplit model's for the mean micro-batch loss, within 1e-4":
        "los gradientes coinciden con los del modelo sin partir para la pérdida media de los micro-lotes, con una "
        "diferencia menor que 1e-4",
    "losses (one per micro-batch)": "pérdidas (una por micro-lote)",
    "each loss equals the unsplit model's on the same micro-batch, within 1e-4":
        "cada pérdida coincide con la del modelo sin partir en el mismo micro-lote, con una diferencia menor que 1e-4",
}
"""The Spanish of each label a rank function reports, by its English; `{}` stands for a value filled in."""


def said(label, *values):
    """`label`, one of `SAID_ES`, in every language (`words`), its `{}` filled with `values`: a result's key."""
    return words(en=label.format(*values), es=SAID_ES[label].format(*values))


def labelled(seen):
    """`seen` with each key `SAID_ES` has in every language (`said`); other keys (a parameter's name) as they are."""
    return {said(key) if key in SAID_ES else key: value for key, value in seen.items()}


def profiled():
    """A CPU profiler: its rows name what the gloo backend really ran (`gloo:all_reduce`, ...), with input shapes."""
    return profile(activities=[ProfilerActivity.CPU], record_shapes=True)


def gloo_calls(prof):
    """Calls the gloo backend executed in a profiled region: by name, the bytes of the tensor each call was handed."""
    calls = {}
    for e in prof.events():
        if e.name.startswith("gloo:"):
            size = math.prod(e.input_shapes[0]) * ELEMENT_BYTES[e.input_dtypes[0]]
            calls.setdefault(e.name, []).append(size)
    return {name: sorted(sizes) for name, sizes in sorted(calls.items())}


def comm_counts(comm_mode):
    """Collectives a region asked for, by operator, as `torch.distributed.tensor.debug.CommDebugMode` counted them."""
    return {str(op): n for op, n in sorted(comm_mode.get_comm_counts().items(), key=lambda kv: str(kv[0])) if n}


@contextmanager
def observing(region):
    """Both observations of a region; the yielded dict is filled when the region ends."""
    seen, comm_mode = {}, CommDebugMode()
    with profiled() as prof, comm_mode:
        yield seen
    seen[said("{} asks for", region)] = comm_counts(comm_mode)
    seen[said("{}, gloo runs (bytes each)", region)] = gloo_calls(prof)


class LocalCalls(TorchDispatchMode):
    """The calls DTensor makes on this rank's local tensors, in order: (operator name, its arguments).

    A call on DTensors is handed on to DTensor (`NotImplemented`), which then makes local calls that reach this
    mode; the calls DTensor makes on fake tensors, to work out shapes, are left out.
    """

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if DTensor in types:
            return NotImplemented
        out = func(*args, **(kwargs or {}))
        tensors = [a for a in args if torch.is_tensor(a)]
        if tensors and not any(isinstance(a, FakeTensor) for a in tensors):
            self.calls.append((str(func), args))
        return out

    BOOKKEEPING = ("aten.view.default", "aten.detach.default", "aten.t.default",
                   "_c10d_functional._wrap_tensor_autograd.default")
    """Views and autograd's wrapping: calls that compute nothing."""

    def computed(self):
        """The operators called, in order, views and bookkeeping left out."""
        return " ".join(name for name, _ in self.calls if name not in self.BOOKKEEPING)

    def first(self, name):
        """The first argument of the first call of the operator `name` (`aten.addmm`: any of its overloads)."""
        return next(args[0] for called, args in self.calls if called.rsplit(".", 1)[0] == name or called == name)


def held_part(t):
    """A parameter or a gradient: its placement and the part this rank holds of the whole shape."""
    of = words(en="of", es="de")
    if isinstance(t, DTensor):
        return f"DTensor {t.placements}, local {tuple(t.to_local().shape)} {of} {tuple(t.shape)}"
    return f"Tensor, local {tuple(t.shape)} {of} {tuple(t.shape)}"


def holdings(model):
    """What this rank holds of each parameter of `model` and of its gradient, by name."""
    return {f"{name}{part}": held_part(t) for name, p in model.named_parameters()
            for part, t in (("", p), (".grad", p.grad))}


def bytes_after_adam_step(model):
    """One Adam step on `model`; then the bytes of parameters, gradients and optimizer state this rank holds.

    Of a DTensor, only the local shard counts: it is what this rank stores.
    """
    optimizer = torch.optim.Adam(model.parameters())
    optimizer.step()  # Adam's state: two running averages per parameter, and a step count

    def size(t):
        t = t.to_local() if isinstance(t, DTensor) else t
        return t.numel() * t.element_size()
    params = list(model.parameters())
    state = [t for s in optimizer.state.values() for t in s.values() if torch.is_tensor(t)]
    return labelled({"parameters": sum(map(size, params)), "gradients": sum(size(p.grad) for p in params),
                     "optimizer state": sum(map(size, state))})


def computations(prof):
    """The pipeline computations a profiled schedule step ran on this rank, in order: `F0 F1 B0 B1`."""
    names = [e.name for e in sorted(prof.events(), key=lambda e: e.time_range.start)
             if re.fullmatch(r"(Forward|Backward) \d+", e.name)]
    return " ".join(name[0] + name.split()[1] for name in names)
# --8<-- [end:body]
