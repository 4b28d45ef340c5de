"""Distributed runs on one machine: one process per rank, forked from the caller, over gloo on 127.0.0.1.

Each rank process gets the environment `torchrun` would give it (`RANK`, `WORLD_SIZE`, `MASTER_ADDR`,
`MASTER_PORT`, one intra-op thread), calls the rank function and writes what it returns as JSON. Forking, not
`torchrun`, is what lets a notebook run a rank function defined in one of its own cells; the body below needs
torch, the standard library and `words` (from `hood.capture.common`, whose body every page's setup includes
first), so a page's download carries it.
"""

from hood.capture.common import words

# --8<-- [start:body]
import faulthandler
import json
import multiprocessing
import os
import socket
import tempfile
import sys
import time
import traceback
from pathlib import Path

import torch
import torch.distributed as dist

LOOPBACK = "127.0.0.1"
TRIES = 2
"""How many times a run is tried: gloo on a busy two-core machine now and then aborts a rank or stalls."""
GRACE = 20.0
"""Seconds the ranks get to exit once every result is written, before they are killed (the results stand)."""


class RankFailure(RuntimeError):
    """A rank raised, died or outlived the timeout; the message holds what each rank printed (tracebacks too)."""


def run_ranks(rank_fn, world_size=2, timeout=120.0, tries=TRIES, grace=GRACE):
    """Run `rank_fn()` on `world_size` forked processes; return what each returned (a JSON-able dict), by rank.

    The function joins the process group itself (`dist.init_process_group("gloo")` reads the environment). If a
    rank fails, the others are killed; if the run outlives `timeout` seconds, every rank is; ranks still alive
    `grace` seconds after every result was written are killed too (the results stand). A failed run is tried
    `tries` times in all before `RankFailure` is raised.
    """
    for attempt in range(tries):
        try:
            return _run_once(rank_fn, world_size, timeout, grace)
        except RankFailure:
            if attempt == tries - 1:
                raise


def _free_port():
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def _run_once(rank_fn, world_size, timeout, grace):
    fork = multiprocessing.get_context("fork")
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="ranks-") as tmp:
        out = Path(tmp)
        ranks = [fork.Process(target=_rank_main, args=(rank_fn, rank, world_size, port, out), daemon=True)
                 for rank in range(world_size)]
        for process in ranks:
            process.start()
        problem = _wait(ranks, out, timeout, grace)
        for process in ranks:
            if process.is_alive():
                process.kill()
            process.join()
        if problem:
            reports = "\n".join(f"{log.stem}:\n" + log.read_text(errors="replace")[-3000:]
                                for log in sorted(out.glob("rank*.log")))
            raise RankFailure(f"{getattr(rank_fn, '__name__', rank_fn)}: {problem}\n{reports}")
        return [json.loads((out / f"rank{rank}.json").read_text()) for rank in range(world_size)]


def _wait(ranks, out, timeout, grace):
    """Wait until every rank has exited, or its results have stood `grace` seconds; "" or what went wrong."""
    deadline, written_at = time.monotonic() + timeout, None
    while any(process.is_alive() for process in ranks):
        if all((out / f"rank{rank}.json").exists() for rank in range(len(ranks))):
            written_at = written_at or time.monotonic()
            if time.monotonic() - written_at > grace:
                return ""
        elif any(process.exitcode not in (None, 0) for process in ranks):
            return "a rank failed"
        elif time.monotonic() > deadline:
            return f"timed out after {timeout:.0f} s"
        time.sleep(0.1)
    missing = [rank for rank in range(len(ranks)) if not (out / f"rank{rank}.json").exists()]
    return f"a rank failed (no result from rank {missing[0]})" if missing else ""


def _rank_main(rank_fn, rank, world_size, port, out):
    """One rank: torchrun's environment, one thread, the function; its result (or traceback) in `out`.

    What the rank prints (gloo's and the profiler's messages included) goes to `out/rankN.log`, not to the caller.
    """
    log = os.open(out / f"rank{rank}.log", os.O_WRONLY | os.O_CREAT)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.stdout = sys.stderr = os.fdopen(log, "w", buffering=1)  # a notebook's streams would reach the caller
    if faulthandler.is_enabled():
        faulthandler.enable(sys.stderr)  # a crash report goes to the log too
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size),
                      LOCAL_WORLD_SIZE=str(world_size), MASTER_ADDR=LOOPBACK, MASTER_PORT=str(port),
                      GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    torch.set_num_threads(1)
    try:
        result = rank_fn()
    except BaseException:  # noqa: BLE001 - whatever stops the rank, the caller gets its traceback
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    partial = out / f".rank{rank}.json"
    partial.write_text(json.dumps(result))
    partial.replace(out / f"rank{rank}.json")  # whole or absent: the caller polls for it
    if dist.is_initialized():
        dist.barrier()  # no rank leaves while another still talks to it


def _rank_lines(rank, result):
    """One rank's result as lines: `rank N`, then one indented `key: value` line per entry."""
    return [f"rank {rank}", *(f"  {key}: {value}" for key, value in result.items())]


def render_ranks(results):
    """Each rank's result, in rank order, one `key: value` line per entry."""
    return "\n".join(line for rank, result in enumerate(results) for line in _rank_lines(rank, result))


def render_distinct_ranks(results):
    """Like `render_ranks`, but a rank whose result equals an earlier rank's is one line.

    That line, `rank N: identical to rank M` (in the page's language), comes from comparing the two results, not
    from assuming it.
    """
    lines = []
    for rank, result in enumerate(results):
        twin = next((earlier for earlier in range(rank) if results[earlier] == result), None)
        lines.extend(_rank_lines(rank, result) if twin is None else [
            words(en=f"rank {rank}: identical to rank {twin}", es=f"rank {rank}: idéntico al rank {twin}")])
    return "\n".join(lines)


def show_ranks(rank_fn, world_size=2):
    """`run_ranks`, then print the results as `render_distinct_ranks` does; return them for the drawings."""
    results = run_ranks(rank_fn, world_size)
    print(render_distinct_ranks(results))
    return results
# --8<-- [end:body]
