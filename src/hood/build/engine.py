"""Run each block at most once per build: memo across languages, cache across builds, replay for sessions."""

from __future__ import annotations

import ctypes
import io
import os
import re
import sys
import tempfile
import traceback
from collections import Counter
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import ModuleType
from collections.abc import Iterator

from hood.build import runtime
from hood.build.cache import BlockCache, Outcome
from hood.build.fingerprint import block_key
from hood.build.settings import Settings

_libc = ctypes.CDLL(None)


@dataclass(frozen=True)
class Block:
    """One executed code block of a page.

    Attributes:
        page: The page's path inside its language folder, e.g. `theory/00-why-open-the-hood.md`.
        block_id: The block's `id` option: stable under edits, names its trace.
        code: The code after snippet expansion.
        session: The markdown-exec session it shares state with, if any.
    """

    page: str
    block_id: str
    code: str
    session: str | None = None

    @property
    def filename(self) -> str:
        """What tracebacks call the block's code."""
        return f"<{self.page}#{self.block_id}>"


@dataclass
class _Session:
    codes: list[str] = field(default_factory=list)
    namespace: dict | None = None
    executed: int = 0  # how many of `codes` have run in `namespace`


@contextmanager
def captured_stdout() -> Iterator[io.StringIO]:
    """Capture everything written to stdout, by Python or by C/C++ code, in order."""
    result = io.StringIO()
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        stream = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
        try:
            with redirect_stdout(stream):
                yield result
        finally:
            stream.flush()
            _libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            sink.seek(0)
            result.write(sink.read().decode("utf-8", errors="replace"))


def _module_name(block: Block) -> str:
    return "hood_block_" + re.sub(r"\W+", "_", f"{block.page}_{block.block_id}")


class Engine:
    """Executes blocks, remembering outcomes by key; counts what really ran."""

    memo: dict[str, Outcome] = {}
    """Outcomes of this process, by key (a key changes whenever anything an output depends on changes)."""

    def __init__(self, settings: Settings, env_fingerprint: str) -> None:
        self.settings = settings
        self.env_fingerprint = env_fingerprint
        self.cache = BlockCache(settings.cache_dir) if settings.use_cache else None
        self.sessions: dict[tuple[str, str], _Session] = {}
        self.executions: Counter[tuple[str, str]] = Counter()

    def begin_page(self, page: str) -> None:
        """Forget the sessions of the previous rendering of `page` (no state leaks between languages)."""
        for key in [k for k in self.sessions if k[0] == page]:
            del self.sessions[key]

    def run(self, block: Block) -> Outcome:
        """The outcome of `block`: from memo, then cache, else executed (after replaying its session)."""
        session = self.sessions.setdefault((block.page, block.session), _Session()) if block.session else None
        chain = [*session.codes, block.code] if session else [block.code]
        key = block_key(self.env_fingerprint, chain)
        outcome = self.memo.get(key) or (self.cache.get(key) if self.cache else None)
        if outcome is None:
            outcome = self._execute(block, session)
            if self.cache is not None:
                self.cache.put(key, outcome)
        self.memo[key] = outcome
        if session:
            session.codes.append(block.code)
        return outcome

    def _execute(self, block: Block, session: _Session | None) -> Outcome:
        if session is None:
            runtime.reset_state(self.settings, new_chain=True)
            return self._exec(block, block.code, {})
        if session.namespace is None or session.executed < len(session.codes):
            runtime.reset_state(self.settings, new_chain=True)
            session.namespace, session.executed = {}, 0
            for code in session.codes:  # replay what the memo or cache answered without running
                self._exec(block, code, session.namespace, replay=True)
                session.executed += 1
        runtime.reset_state(self.settings, new_chain=False)
        outcome = self._exec(block, block.code, session.namespace)
        session.executed += 1
        return outcome

    def _exec(self, block: Block, code: str, namespace: dict, *, replay: bool = False) -> Outcome:
        name = _module_name(block)
        namespace.setdefault("__name__", name)
        sys.modules.setdefault(name, ModuleType(name))
        error = None
        with captured_stdout() as out:
            try:
                exec(compile(code, block.filename, "exec"), namespace)  # noqa: S102
            except Exception as exc:  # noqa: BLE001 - a raising block is reported, never swallowed
                error = "".join(traceback.format_exception(exc))
        if not replay:
            self.executions[(block.page, block.block_id)] += 1
            self._log_execution(block)
        return Outcome(output=out.getvalue(), error=error)

    def _log_execution(self, block: Block) -> None:
        if self.settings.exec_log is None:
            return
        stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        with self.settings.exec_log.open("a", encoding="utf-8") as log:
            log.write(f"{stamp}\t{block.page}\t{block.block_id}\ttorch-imported={'torch' in sys.modules}\n")
