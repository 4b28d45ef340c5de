"""The known state every block starts from: pinned ISA and threads, seeds, fresh Dynamo, fresh modules."""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import random
import sys
from collections.abc import Callable
from types import ModuleType

from hood.engine.settings import Settings

PROJECT_PACKAGES = ("snippets", "hood")
"""Packages whose edited modules must be re-imported by the next build (except `BUILD_LAYER`)."""

BUILD_LAYER = ("hood.engine", "hood.mkdocs_plugin", "hood.compat")
"""The modules a build runs on: kept, so that a build never swaps its own code while it runs."""


def purge_project_modules() -> list[str]:
    """Drop the project's modules from `sys.modules` so that an edit under `mkdocs serve` is picked up."""
    stale = [
        name
        for name in sys.modules
        if name.split(".")[0] in PROJECT_PACKAGES and not (name == "hood" or name.startswith(BUILD_LAYER))
    ]
    for name in stale:
        del sys.modules[name]
    return stale


class _AfterImport(importlib.abc.MetaPathFinder):
    """Run a callback on a module right after it is first imported."""

    def __init__(self, name: str, callback: Callable[[ModuleType], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return spec
        loader, callback = spec.loader, self.callback

        class _Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                callback(module)

        spec.loader = _Loader()
        return spec


def _pin_inductor(settings: Settings) -> Callable[[ModuleType], None]:
    def pin(config: ModuleType) -> None:
        config.cpp.simdlen = settings.simdlen  # type: ignore[attr-defined]
        config.cpp.threads = settings.inductor_threads  # type: ignore[attr-defined]
    return pin


def pin_process(settings: Settings, inductor_cache: str) -> None:
    """Pin what must be fixed before torch is imported: ISA, threads, Inductor's cache and vector width.

    The Inductor cache directory is named after the pins, so a cache filled under other settings is never
    reused (a cache reused across ISAs has returned wrong numbers).
    """
    os.environ["ATEN_CPU_CAPABILITY"] = settings.cpu_capability
    os.environ["OMP_NUM_THREADS"] = str(settings.threads)
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor_cache
    if "torch._inductor.config" in sys.modules:
        _pin_inductor(settings)(sys.modules["torch._inductor.config"])
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("torch._inductor.config", _pin_inductor(settings)))


def reset_state(settings: Settings, *, new_chain: bool) -> None:
    """Seed every generator and, at the start of a chain of blocks, forget what Dynamo compiled."""
    import torch  # imported only when a block really runs

    random.seed(0)
    torch.manual_seed(0)
    torch.set_num_threads(settings.threads)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed(0)
    if new_chain and "torch._dynamo" in sys.modules:
        sys.modules["torch._dynamo"].reset()
