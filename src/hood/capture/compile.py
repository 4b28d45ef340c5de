"""`torch.compile` artifacts as data: Dynamo's guards, Inductor's generated code, and what its caches hide.

Each function reads an artifact through PyTorch's own API (the cache entries Dynamo attaches to a code
object, the code `torch._inductor.utils.run_and_get_code` returns, the counters and artifact loggers of
`torch._dynamo.utils` and `torch._logging`) and returns plain records; `render_*` functions make text, in every
language (`words`: a page includes `hood/capture/common.py:body` before this module's body).
"""

from hood.capture.common import words

# --8<-- [start:body]
import logging
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_OBJ_ID = re.compile(r"(___check_obj_id\([^,]+, )\d+\)")
_USER_COMMENT = re.compile(r"\s{2,}#\s.*$", re.DOTALL)


@dataclass(frozen=True)
class Guard:
    """One leaf guard of a compiled frame.

    Attributes:
        kind: The guard's class, e.g. `TENSOR_MATCH`, `ID_MATCH`, `GLOBAL_STATE`.
        code: What it checks, without the user-code comment; object ids become `<id>`.
    """

    kind: str
    code: str


@dataclass(frozen=True)
class CacheEntry:
    """One compiled version of a frame: Dynamo runs it only when every guard passes.

    Attributes:
        compile_id: Dynamo's `frame/recompile` id, e.g. `0/1` for the second compile of the first frame.
        guards: Every leaf guard of the guard tree, in its order.
        shape_guards: The relations between symbolic sizes that Dynamo checks after the tree (its
            epilogue), e.g. `2 <= L['x'].size()[0]`; empty for a graph with static shapes.
    """

    compile_id: str
    guards: list[Guard]
    shape_guards: list[Guard] = field(default_factory=list)


def _clean(code: str) -> str:
    return _OBJ_ID.sub(r"\1<id>)", _USER_COMMENT.sub("", code)).strip()


def _leaf_guards(manager) -> Iterator[Guard]:
    for guard in manager.get_leaf_guards():
        for part in guard.verbose_code_parts():
            yield Guard(type(guard).__name__, _clean(part))
    for child in manager.get_child_managers():
        yield from _leaf_guards(child)


def cache_entries(fn: Callable) -> list[CacheEntry]:
    """The compiled versions Dynamo holds for `fn`'s code object, with their guards, in the order Dynamo tries them.

    That order is most recently used first: a new version goes to the front, and so does one a call reuses.
    """
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    entries = []
    for entry in _debug_get_cache_entry_list(fn):
        root = entry.guard_manager.root
        epilogue = [Guard(type(guard).__name__, _clean(part))
                    for guard in root.get_epilogue_lambda_guards() for part in guard.verbose_code_parts()]
        entries.append(CacheEntry(str(entry.compile_id), list(_leaf_guards(root)), epilogue))
    return entries


def guard_failures(fn: Callable, frame_locals: dict) -> list[tuple[str, list[str]]]:
    """For each compiled version of `fn` (in the order Dynamo tries them): its compile id and why it rejects
    `frame_locals`.

    An empty list of reasons means every guard passes and Dynamo would reuse that version.
    """
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    results = []
    for entry in _debug_get_cache_entry_list(fn):
        info = entry.guard_manager.check_verbose(frame_locals)
        reasons = [] if info.result else [_clean(part) for part in info.verbose_code_parts]
        results.append((str(entry.compile_id), reasons))
    return results


def render_guards(entry: CacheEntry, show: tuple[str, ...] = ("TENSOR_MATCH",)) -> str:
    """A count per guard kind, then the full text of the kinds named in `show` and of the shape guards."""
    kinds = Counter(g.kind for g in entry.guards)
    total = len(entry.guards) + len(entry.shape_guards)
    lines = [words(en=f"compiled version {entry.compile_id}: {total} guards",
                   es=f"versión compilada {entry.compile_id}: {total} guardas")]
    lines += [f"  {kind:<32} x{count}" for kind, count in sorted(kinds.items())]
    if entry.shape_guards:
        lines.append("  " + words(en=f"{'shape guards':<32}", es=f"{'guardas de forma':<32}")
                     + f" x{len(entry.shape_guards)}")
    shown = [g for g in entry.guards if g.kind in show] + entry.shape_guards
    if shown:
        lines.append("  " + words(en="in full:", es="texto completo:"))
        lines += [f"    {g.kind}: {g.code}" for g in shown]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- Inductor


@dataclass(frozen=True)
class InductorOutput:
    """The Python module Inductor generated for one graph, taken apart.

    Attributes:
        code: The whole module, as `run_and_get_code` returned it.
        kernels: Generated kernels by name (`cpp_fused_...` on CPU), their C++ source.
        call: The body of the wrapper's `call(args)`: allocations, library calls, kernel launches.
        extern_calls: Library kernels the wrapper calls (e.g. `extern_kernels.addmm`), in call order.
        kernel_calls: Generated kernels the wrapper launches, in call order.
        buffers: Buffers the wrapper allocates: (name, shape).
    """

    code: str
    kernels: dict[str, str]
    call: str
    extern_calls: list[str] = field(default_factory=list)
    kernel_calls: list[str] = field(default_factory=list)
    buffers: list[tuple[str, str]] = field(default_factory=list)


_KERNEL = re.compile(r"^(?P<name>\w+) = async_compile\.\w+\(.*?r'''\n(?P<src>.*?)'''\)", re.MULTILINE | re.DOTALL)
_CALL = re.compile(r"^(?P<indent>[ \t]*)def call\(self, args\):\n(?P<body>.*?)(?=^\S|\n\n\S)", re.MULTILINE | re.DOTALL)
_BUFFER = re.compile(r"^\s*(buf\d+) = empty_strided_\w+\((\([^)]*\))", re.MULTILINE)


def inductor_output(code: str) -> InductorOutput:
    """Take apart one module of generated code (an element of `run_and_get_code(...)[1]`)."""
    kernels = {m["name"]: m["src"] for m in _KERNEL.finditer(code)}
    call_match = _CALL.search(code)
    call = ""
    if call_match:
        lines = call_match["body"].rstrip().splitlines()
        indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
        call = "\n".join(line[indent:] for line in lines)
    extern = re.findall(r"\b(extern_kernels\.\w+)\(", call)
    launched = [name for line in call.splitlines() for name in kernels if line.strip().startswith(name + "(")]
    return InductorOutput(code, kernels, call, extern, launched, _BUFFER.findall(call))


def render_inductor_summary(out: InductorOutput) -> str:
    """What the wrapper does, then one line per generated kernel (name, lines, parallel and vector markers)."""
    lines = [words(en="wrapper call(args):", es="call(args) del wrapper:")]
    lines += ["    " + line for line in out.call.splitlines()]
    lines.append(words(en="generated kernels:", es="kernels generados:"))
    for name, src in out.kernels.items():
        n = len(src.splitlines())
        found = (("OpenMP", "#pragma omp" in src), ("at::vec::Vectorized", "at::vec::Vectorized" in src))
        traits = ", ".join(t for t, present in found if present)
        lines.append(f"    {name}: " + words(en=f"{n} lines of C++, uses {traits or 'plain loops'}",
                                             es=f"{n} líneas de C++, usa {traits or 'bucles simples'}"))
    calls = ", ".join(out.extern_calls)
    lines.append(words(en=f"library calls: {calls or 'none'}", es=f"kernels externos: {calls or 'ninguno'}"))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- caches


@dataclass(frozen=True)
class CompileRun:
    """One compilation of a function under a logging and counting watch.

    Attributes:
        cache: Inductor's and AOTAutograd's cache counters for this compile (`fxgraph_cache_miss`, ...).
        artifacts: How many records each `TORCH_LOGS` artifact emitted during the compile.
        code: The generated code the compile produced or reloaded.
    """

    cache: dict[str, int]
    artifacts: dict[str, int]
    code: str


class _ArtifactCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.counts: Counter[str] = Counter()
        self.messages: dict[str, list[str]] = {}

    def emit(self, record: logging.LogRecord) -> None:
        if ".__" in record.name:
            artifact = record.name.rpartition(".__")[2]
            self.counts[artifact] += 1
            self.messages.setdefault(artifact, []).append(record.getMessage())


@contextmanager
def _counting_artifacts(artifacts: tuple[str, ...]) -> Iterator[_ArtifactCounter]:
    """Enable `artifacts` as `TORCH_LOGS` would, counting their records instead of printing them."""
    import torch
    from torch._logging._internal import log_registry

    torch._logging.set_logs(**dict.fromkeys(artifacts, True))
    counter = _ArtifactCounter()
    loggers = [logging.getLogger(name) for name in log_registry.get_log_qnames()]
    saved = [list(lg.handlers) for lg in loggers]
    for lg in loggers:
        lg.handlers = [counter]
    try:
        yield counter
    finally:
        for lg, handlers in zip(loggers, saved):
            lg.handlers = handlers
        torch._logging.set_logs()


def artifact_messages(run: Callable[[], object], artifacts: tuple[str, ...]) -> dict[str, list[str]]:
    """Call `run` with the `TORCH_LOGS` artifacts enabled; return each artifact's messages instead of printing them.

    Torch writes these logs through the `logging` module (to stderr by default), not with `print`.
    """
    with _counting_artifacts(artifacts) as seen:
        run()
    return {a: seen.messages.get(a, []) for a in artifacts}


CACHE_COUNTERS = ("fxgraph_cache_miss", "fxgraph_cache_hit", "autograd_cache_miss", "autograd_cache_hit")
"""The counters of `torch._dynamo.utils.counters` that say whether a compile was served from a cache."""


def compile_twice(compile_and_run: Callable[[], str], artifacts: tuple[str, ...]) -> list[CompileRun]:
    """Compile twice in a fresh, empty Inductor cache: the first run fills it, the second is served by it.

    `compile_and_run` must compile and run something and return its generated code (e.g. through
    `run_and_get_code`, which starts with `torch._dynamo.reset()`, so the second run really recompiles).
    """
    from torch._dynamo.utils import counters
    from torch._inductor.runtime.cache_dir_utils import temporary_cache_dir

    runs = []
    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as folder, temporary_cache_dir(folder):
        for _ in range(2):
            counters.clear()
            with _counting_artifacts(artifacts) as seen:
                code = compile_and_run()
            cache = {name: sum(c.get(name, 0) for c in counters.values()) for name in CACHE_COUNTERS}
            runs.append(CompileRun(cache, {a: seen.counts.get(a, 0) for a in artifacts}, code))
    return runs


RUN_LABELS = (words(en=f"{'empty cache':>11}", es=f"{'caché vacía':>11}"),
              words(en=f"{'cache hit':>11}", es=f"{'con acierto':>11}"))
"""The heading of each run's column, in every language, right-aligned to the column's 11 characters."""


def render_compile_runs(runs: list[CompileRun], labels: tuple[str, ...] = RUN_LABELS) -> str:
    """A table: cache counters and artifact record counts, one column per run."""
    width = max(len(name) for name in (*CACHE_COUNTERS, *runs[0].artifacts))
    head = f"{'':<{width}}  " + "  ".join(f"{label:>11}" for label in labels)
    rows = [head]
    rows += [f"{name:<{width}}  " + "  ".join(f"{r.cache[name]:>11}" for r in runs) for name in CACHE_COUNTERS]
    rows.append(words(en="TORCH_LOGS records:", es="entradas de TORCH_LOGS:"))
    rows += [f"{name:<{width}}  " + "  ".join(f"{r.artifacts[name]:>11}" for r in runs) for name in runs[0].artifacts]
    return "\n".join(rows)
# --8<-- [end:body]
