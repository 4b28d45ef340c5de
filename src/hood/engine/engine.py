"""Run each block at most once per build: memo across languages, cache across builds, replay for sessions."""

from __future__ import annotations

import linecache
import re
import sys
import traceback
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import ModuleType

from hood.engine import runtime
from hood.engine.cache import BlockCache, Outcome
from hood.engine.fingerprint import block_key
from hood.engine.settings import Settings
from hood.stdout import captured_stdout

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
    blocks: list[Block] = field(default_factory=list)
    module: ModuleType | None = None
    executed: int = 0  # how many of `blocks` have run in `module`


def module_name(block: Block) -> str:
    """The name of the module a block runs in: one per session of a page, else one per block."""
    return "hood_block_" + re.sub(r"\W+", "_", f"{block.page}_{block.session or block.block_id}")


def _new_module(block: Block) -> ModuleType:
    """A real, registered module: a block's globals are its `__dict__`, as for any imported code.

    Dynamo's guards, `inspect.getmodule`, pickling and `typing.get_type_hints` look globals up through
    `sys.modules[__name__]`; code executed in a loose dictionary would hide them.
    """
    module = ModuleType(module_name(block))
    sys.modules[module.__name__] = module
    return module


def _drop_module(module: ModuleType | None) -> None:
    if module is not None and sys.modules.get(module.__name__) is module:
        del sys.modules[module.__name__]


def _register_source(block: Block) -> None:
    """Give the block's code a source, as a file on disk has: `inspect.getsourcefile`, tracebacks and Dynamo see it.

    torch 2.12 (and earlier) compiles a function with no source file through a shared wrapper, so its guards
    and cache entries would not belong to the function itself.
    """
    linecache.cache[block.filename] = (len(block.code), None, block.code.splitlines(keepends=True), block.filename)


def _forget_source(block: Block) -> None:
    linecache.cache.pop(block.filename, None)


class Engine:
    """Executes blocks, remembering outcomes by key; counts what really ran."""

    def __init__(self, settings: Settings, env_fingerprint: str) -> None:
        self.settings = settings
        self.env_fingerprint = env_fingerprint
        self.memo: dict[str, Outcome] = {}
        """Outcomes of this build, by key (a key changes whenever anything an output depends on changes)."""
        self.cache = BlockCache(settings.cache_dir) if settings.use_cache else None
        self.sessions: dict[tuple[str, str], _Session] = {}
        self.executions: Counter[tuple[str, str]] = Counter()

    def begin_page(self, page: str) -> None:
        """Forget the sessions of the previous rendering of `page` (no state leaks between languages)."""
        self.end_page(page)

    def end_page(self, page: str) -> None:
        """End the sessions of `page`: their modules leave `sys.modules`."""
        for key in [k for k in self.sessions if k[0] == page]:
            session = self.sessions.pop(key)
            _drop_module(session.module)
            for block in session.blocks:
                _forget_source(block)

    def close(self) -> None:
        """End every session still open; drop the cache entries no build has used for `cache.MAX_AGE`."""
        for page in {page for page, _ in self.sessions}:
            self.end_page(page)
        if self.cache:
            self.cache.evict()

    def run(self, block: Block) -> Outcome:
        """The outcome of `block`: from memo, then cache, else executed (after replaying its session)."""
        session = self.sessions.setdefault((block.page, block.session), _Session()) if block.session else None
        chain = [*(earlier.code for earlier in session.blocks), block.code] if session else [block.code]
        key = block_key(self.env_fingerprint, chain, self.settings.root)
        outcome = self.memo.get(key) or (self.cache.get(key) if self.cache else None)
        if outcome is None:
            outcome = self._execute(block, session)
            if self.cache is not None:
                self.cache.put(key, outcome)
        self.memo[key] = outcome
        if session:
            session.blocks.append(block)
        return outcome

    def _execute(self, block: Block, session: _Session | None) -> Outcome:
        if session is None:
            runtime.reset_state(self.settings, new_chain=True)
            module = _new_module(block)
            try:
                return self._exec(block, module)
            finally:
                _drop_module(module)
                _forget_source(block)
        if session.module is None or session.executed < len(session.blocks):
            runtime.reset_state(self.settings, new_chain=True)
            _drop_module(session.module)
            session.module, session.executed = _new_module(block), 0
            for earlier in session.blocks:  # replay what the memo or cache answered without running
                self._exec(earlier, session.module, replay=True)
                session.executed += 1
        runtime.reset_state(self.settings, new_chain=False)
        outcome = self._exec(block, session.module)
        session.executed += 1
        return outcome

    def _exec(self, block: Block, module: ModuleType, *, replay: bool = False) -> Outcome:
        error = None
        _register_source(block)
        with captured_stdout() as out:
            try:
                exec(compile(block.code, block.filename, "exec"), module.__dict__)  # noqa: S102
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
