"""Distributed runs on one machine: launch ranks over gloo on 127.0.0.1, gather what each rank observed.

`run_ranks` starts one Python process per rank with the environment `torchrun` would give it (`RANK`,
`WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT`, ...), hosts their rendezvous store itself on a socket bound
to 127.0.0.1, waits for all of them under a timeout (killing the whole group when it expires) and returns
each rank's result in rank order. A rank's result is whatever its function returns, passed back as JSON.

Run as a module (`python -m hood.capture.collectives MODULE:FUNCTION OUT_DIR`), this file is the rank's
entry point: it calls the function and writes `OUT_DIR/rank<N>.json`.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

LOOPBACK = "127.0.0.1"


class RankFailure(RuntimeError):
    """A rank exited with an error or the run timed out; the message holds every rank's stderr tail."""


def _import_roots(target: str) -> list[str]:
    """The folders that make `hood` and the target's top-level package importable, for the children."""
    roots = []
    for package in ("hood", target.split(".")[0]):
        module = importlib.import_module(package)
        roots.append(str(Path(module.__file__).resolve().parents[1]))
    return list(dict.fromkeys(roots))


def rank_env(rank: int, world_size: int, port: int, import_roots: list[str]) -> dict[str, str]:
    """The environment of one rank: torchrun's variables, loopback only, one thread, the project importable."""
    env = dict(os.environ)
    env.update(
        RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world_size), LOCAL_WORLD_SIZE=str(world_size),
        GROUP_RANK="0", MASTER_ADDR=LOOPBACK, MASTER_PORT=str(port),
        TORCHELASTIC_USE_AGENT_STORE="True",  # every rank is a client of the store the launcher hosts
        GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join([*import_roots, *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    return env


def run_ranks(target: str, world_size: int = 2, timeout: float = 120.0) -> list[dict]:
    """Run `target` ("package.module:function") in `world_size` processes; return their results by rank.

    The function initialises its own process group (`init_process_group("gloo")` reads the environment)
    and returns a JSON-serialisable dict. If a rank fails, the others are killed at once; if the run
    outlives `timeout` seconds, all are. Either way `RankFailure` is raised with each rank's stderr.
    """
    import torch.distributed as dist

    roots = _import_roots(target)
    with tempfile.TemporaryDirectory(prefix="hood-ranks-") as tmp, socket.socket() as listener:
        out = Path(tmp)
        listener.bind((LOOPBACK, 0))
        listener.listen(world_size * 4)
        port = listener.getsockname()[1]
        store = dist.TCPStore(LOOPBACK, port, world_size, is_master=True, timeout=timedelta(seconds=timeout),
                              wait_for_workers=False, master_listen_fd=os.dup(listener.fileno()))
        procs = []
        try:
            for rank in range(world_size):
                with open(out / f"rank{rank}.err", "w") as err:
                    procs.append(subprocess.Popen(
                        [sys.executable, "-m", "hood.capture.collectives", target, str(out)],
                        env=rank_env(rank, world_size, port, roots), stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                    ))
            problem = _wait(procs, timeout)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            del store
        if problem:
            tails = "\n".join(f"--- rank {rank} (exit {proc.returncode}) stderr:\n"
                              + (out / f"rank{rank}.err").read_text(errors="replace")[-3000:]
                              for rank, proc in enumerate(procs))
            raise RankFailure(f"{target}: {problem}\n{tails}")
        return [json.loads((out / f"rank{rank}.json").read_text()) for rank in range(world_size)]


def _wait(procs: list[subprocess.Popen], timeout: float) -> str:
    """Wait for every process; stop at the first failure or at the deadline. Returns "" or what went wrong."""
    deadline = time.monotonic() + timeout
    while True:
        codes = [proc.poll() for proc in procs]
        if any(code not in (None, 0) for code in codes):
            return "a rank failed"
        if all(code == 0 for code in codes):
            return ""
        if time.monotonic() > deadline:
            return f"timed out after {timeout:.0f} s"
        time.sleep(0.05)


def render_ranks(results: list[dict]) -> str:
    """Each rank's result, in rank order, one `key: value` line per entry."""
    lines = []
    for rank, result in enumerate(results):
        lines.append(f"rank {rank}")
        for key, value in result.items():
            lines.append(f"  {key}: {value}")
    return "\n".join(lines)


def _rank_main(target: str, out: str) -> None:
    module_name, _, function = target.partition(":")
    result = getattr(importlib.import_module(module_name), function)()
    rank = int(os.environ["RANK"])
    (Path(out) / f"rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    _rank_main(*sys.argv[1:3])
