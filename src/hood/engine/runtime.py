"""The known state every block starts from: pinned ISA and threads, seeds, fresh Dynamo, fresh modules."""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
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


PINNED_ENVIRONMENT = ("ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS", "TORCHINDUCTOR_CACHE_DIR")
"""The environment variables a build sets."""


@dataclass
class ProcessSnapshot:
    """What a build changes in its process, as it was before: `sys.path`, `sys.meta_path`, the pinned environment
    variables, the project's modules, torch's thread count and Inductor's vector settings (when imported)."""

    path: list[str]
    meta_path: list
    environment: dict[str, str | None]
    modules: dict[str, ModuleType]
    threads: int | None
    inductor: tuple | None


def snapshot() -> ProcessSnapshot:
    """The process as it is now, for `restore`."""
    torch = sys.modules.get("torch")
    config = sys.modules.get("torch._inductor.config")
    return ProcessSnapshot(
        list(sys.path), list(sys.meta_path), {name: os.environ.get(name) for name in PINNED_ENVIRONMENT},
        {name: module for name, module in sys.modules.items() if name.split(".")[0] in PROJECT_PACKAGES},
        torch.get_num_threads() if torch is not None else None,
        (config.cpp.simdlen, config.cpp.threads) if config is not None else None,  # type: ignore[attr-defined]
    )


def restore(found: ProcessSnapshot) -> None:
    """Put back what `snapshot` saw (the modules torch imported stay: a module cannot be unimported)."""
    sys.path[:] = found.path
    sys.meta_path[:] = found.meta_path
    for name, value in found.environment.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    for name in [n for n in sys.modules if n.split(".")[0] in PROJECT_PACKAGES and n not in found.modules]:
        if not name.startswith(BUILD_LAYER) and name != "hood":
            del sys.modules[name]
    sys.modules.update(found.modules)
    if found.threads is not None and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(found.threads)
    config = sys.modules.get("torch._inductor.config")
    if config is not None:
        if found.inductor is not None:
            config.cpp.simdlen, config.cpp.threads = found.inductor  # type: ignore[attr-defined]
        else:
            config.cpp.simdlen, config.cpp.threads = None, -1  # type: ignore[attr-defined]


def prepare_process(settings: Settings, root) -> None:
    """Make the project importable (blocks may import `snippets`), drop its stale modules, pin the process."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    purge_project_modules()
    pin_process(settings, str(settings.cache_dir / ("inductor-" + "-".join(settings.pins().values()))))


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
