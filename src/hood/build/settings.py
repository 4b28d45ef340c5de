"""How a build behaves, read once from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def _flag(name: str) -> bool:
    return os.environ.get(name, "").lower() not in {"", "0", "no", "off", "false"}


@dataclass(frozen=True)
class Settings:
    """Build behaviour.

    Attributes:
        root: The project root (where `mkdocs.yml` lives).
        check: Test/CI mode: a raising block, a missing or drifted trace fails the build. Never reads the cache.
        bless: Rewrite every trace from the fresh output instead of comparing.
        use_cache: Read and write the authoring cache.
        cache_dir: Where the authoring cache and the Inductor cache live (ignored by git).
        traces_dir: Where the committed traces live.
        execute: Run blocks at all (`HOOD_EXECUTE=off` renders them empty: the benchmark's floor).
        exec_log: If set, one line per executed block is appended there (used by tests and the benchmark).
        threads: Intra-op threads every block runs with.
        simdlen: Inductor's C++ vector width in bits (256 = AVX2, 8 floats per vector).
        cpu_capability: ATen's vector ISA (`ATEN_CPU_CAPABILITY`).
    """

    root: Path
    check: bool = False
    bless: bool = False
    use_cache: bool = True
    cache_dir: Path = Path(".cache/hood")
    traces_dir: Path = Path("traces")
    execute: bool = True
    exec_log: Path | None = None
    threads: int = 2
    simdlen: int = 256
    cpu_capability: str = "avx2"

    @classmethod
    def from_env(cls, root: Path, *, strict: bool = False) -> Settings:
        """Read `HOOD_CHECK`, `HOOD_BLESS`, `HOOD_CACHE`, `HOOD_CACHE_DIR`, `HOOD_EXECUTE` and `HOOD_EXEC_LOG`.

        A `--strict` build is a check build too.
        """
        check = _flag("HOOD_CHECK") or strict
        bless = _flag("HOOD_BLESS")
        cache_off = os.environ.get("HOOD_CACHE", "on").lower() in {"0", "off", "no", "false"}
        exec_log = os.environ.get("HOOD_EXEC_LOG")
        return cls(
            root=root,
            check=check and not bless,
            bless=bless,
            use_cache=not (check or bless or cache_off),
            cache_dir=Path(os.environ.get("HOOD_CACHE_DIR", root / ".cache" / "hood")),
            traces_dir=root / "traces",
            execute=os.environ.get("HOOD_EXECUTE", "on").lower() not in {"0", "off", "no", "false"},
            exec_log=Path(exec_log) if exec_log else None,
        )

    def pins(self) -> dict[str, str]:
        """The settings that change outputs; part of every cache key."""
        return {
            "threads": str(self.threads),
            "simdlen": str(self.simdlen),
            "cpu_capability": self.cpu_capability,
        }
