"""Distributed runs on one machine, launched as a reader launches them: `torchrun` over gloo on 127.0.0.1.

`run_ranks` runs `python -m torch.distributed.run --nproc-per-node N --master-addr 127.0.0.1 ... -m
hood.capture.collectives MODULE:FUNCTION OUT_DIR`, waits under a timeout (killing the whole process group when it
expires) and returns each rank's result in rank order. A rank's result is whatever its function returns, passed
back as JSON: run as a module, this file is the rank's entry point; it calls the function and writes
`OUT_DIR/rank<N>.json`.
"""

import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOPBACK = "127.0.0.1"


class RankFailure(RuntimeError):
    """A rank exited with an error or the run timed out; the message holds the launcher's output tail."""


def _import_roots(target: str) -> list[str]:
    """The folders that make `hood` and the target's top-level package importable, for the children."""
    roots = []
    for package in ("hood", target.split(".")[0]):
        module = importlib.import_module(package)
        roots.append(str(Path(module.__file__).resolve().parents[1]))
    return list(dict.fromkeys(roots))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def launch_command(target: str, out: Path, world_size: int, port: int) -> list[str]:
    """The `torchrun` command line of a run (`python -m torch.distributed.run`, the same program)."""
    return [sys.executable, "-m", "torch.distributed.run", "--nnodes", "1", "--nproc-per-node", str(world_size),
            "--master-addr", LOOPBACK, "--master-port", str(port),
            "-m", "hood.capture.collectives", target, str(out)]


def rank_env(import_roots: list[str]) -> dict[str, str]:
    """The launcher's environment: gloo on the loopback interface, the project importable."""
    env = dict(os.environ)
    env.update(
        GLOO_SOCKET_IFNAME="lo", PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join([*import_roots, *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    return env


TRIES = 2
"""How many times a run is tried: gloo on a busy two-core machine now and then aborts a rank
("terminate called without an active exception") or stalls; a run fails only if every try does."""


def run_ranks(target: str, world_size: int = 2, timeout: float = 120.0) -> list[dict]:
    """Run `target` ("package.module:function") on `world_size` ranks with torchrun; return results by rank.

    The function initialises its own process group (`init_process_group("gloo")` reads the environment torchrun
    gives each rank) and returns a JSON-serialisable dict. If a rank fails, torchrun stops the others; if the
    run outlives `timeout` seconds, every process is killed. Either way `RankFailure` is raised with the output.
    Once every rank has written its result, the run is over: a launcher that then hangs or dies while the ranks
    shut down (gloo and profiler threads at exit) is stopped, and the results stand. A failed run is tried again,
    `TRIES` times in all, before `RankFailure` is raised with the last try's output.
    """
    for _ in range(TRIES - 1):
        try:
            return _run_once(target, world_size, timeout)
        except RankFailure:
            pass  # the next try starts afresh: new port, new output folder
    return _run_once(target, world_size, timeout)


def _run_once(target: str, world_size: int, timeout: float) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="hood-ranks-") as tmp:
        out = Path(tmp)
        with open(out / "launcher.log", "w") as log:
            proc = subprocess.Popen(
                launch_command(target, out, world_size, _free_port()), env=rank_env(_import_roots(target)),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
            problem = _wait(proc, timeout, lambda: all((out / f"rank{r}.json").exists() for r in range(world_size)))
        if problem:
            tail = (out / "launcher.log").read_text(errors="replace")[-6000:]
            raise RankFailure(f"{target}: {problem}\n{tail}")
        return [json.loads((out / f"rank{rank}.json").read_text()) for rank in range(world_size)]


GRACE = 20.0
"""Seconds torchrun gets to stop its ranks after a SIGTERM, before the launcher's process group is killed."""


def _wait(proc: subprocess.Popen, timeout: float, results_written) -> str:
    """Wait for the launcher until it exits, or `results_written()` has held for `GRACE` seconds, or the deadline.

    Returns "" or what went wrong. torchrun starts each rank in a session of its own, so killing torchrun's process
    group would leave the ranks running: a SIGTERM asks torchrun to stop them first.
    """
    deadline, written_at = time.monotonic() + timeout, None
    while (code := proc.poll()) is None:
        if results_written():
            written_at = written_at or time.monotonic()
            if time.monotonic() - written_at > GRACE:
                _stop(proc)
                return ""
        elif time.monotonic() > deadline:
            _stop(proc)
            return f"timed out after {timeout:.0f} s"
        time.sleep(0.1)
    return "" if code == 0 or results_written() else f"torchrun exited with {code}: a rank failed"


def _stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _rank_lines(rank: int, result: dict) -> list[str]:
    """One rank's result as lines: `rank N`, then one indented `key: value` line per entry."""
    return [f"rank {rank}", *(f"  {key}: {value}" for key, value in result.items())]


def render_ranks(results: list[dict]) -> str:
    """Each rank's result, in rank order, one `key: value` line per entry."""
    return "\n".join(line for rank, result in enumerate(results) for line in _rank_lines(rank, result))


def render_distinct_ranks(results: list[dict]) -> str:
    """Like `render_ranks`, but a rank whose result equals an earlier rank's is one line.

    That line, `rank N: identical to rank M`, comes from comparing the two results, not from assuming it.
    """
    lines = []
    for rank, result in enumerate(results):
        twin = next((earlier for earlier in range(rank) if results[earlier] == result), None)
        lines.extend(_rank_lines(rank, result) if twin is None else [f"rank {rank}: identical to rank {twin}"])
    return "\n".join(lines)


def show_ranks(target: str, world_size: int = 2) -> list[dict]:
    """`run_ranks`, then print the results as `render_distinct_ranks` does; return them for the drawings."""
    results = run_ranks(target, world_size)
    print(render_distinct_ranks(results))
    return results


def _rank_main(target: str, out: str) -> None:
    module_name, _, function = target.partition(":")
    result = getattr(importlib.import_module(module_name), function)()
    rank = int(os.environ["RANK"])
    partial = Path(out) / f".rank{rank}.json"
    partial.write_text(json.dumps(result))
    partial.replace(Path(out) / f"rank{rank}.json")  # whole or absent: the launcher polls for it


if __name__ == "__main__":
    _rank_main(*sys.argv[1:3])
