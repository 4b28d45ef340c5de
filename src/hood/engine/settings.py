"""How a build behaves: the `hood` plugin's options, read once per build."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


def switch(value: object) -> bool:
    """An option's value as a switch: off for `false`, `off`, `no`, `0`, an empty value or `None`."""
    return value is not None and str(value).strip().lower() not in {"", "0", "no", "off", "false"}


@dataclass(frozen=True)
class Settings:
    """Build behaviour.

    Attributes:
        root: The project root (where `mkdocs.yml` lives).
        check: Test/CI mode: a raising block, a missing or drifted trace fails the build. Never reads the cache.
        bless: Write the traces whose output changed instead of failing (all of them, or those `bless_only` selects).
        bless_only: `page` or `page#block`: a bless that accepts the new output of that page or block alone.
        use_cache: Read and write the authoring cache.
        cache_dir: Where the authoring cache and the Inductor cache live (ignored by git).
        traces_dir: Where the committed traces live.
        execute: Run blocks at all (`HOOD_EXECUTE=off` renders them empty: the benchmark's floor).
        exec_log: If set, one line per executed block is appended there (used by tests and the benchmark).
        lens: Record what every traced block prints under the running torch in `traces/lens/<release>/`
            (`make lens` sets it, in a virtualenv with another torch) instead of checking it.
        threads: Intra-op threads every block runs with (ATen's `torch.set_num_threads`).
        inductor_threads: The thread count Inductor writes into its generated C++ (`cpp.threads`), pinned apart
            from `threads` so that generated code is the same whatever the thread count a block runs with.
        simdlen: Inductor's C++ vector width in bits (256 = AVX2, 8 floats per vector).
        cpu_capability: ATen's vector ISA (`ATEN_CPU_CAPABILITY`).
    """

    root: Path
    check: bool = False
    bless: bool = False
    bless_only: str = ""
    use_cache: bool = True
    cache_dir: Path = Path(".cache/hood")
    traces_dir: Path = Path("traces")
    execute: bool = True
    exec_log: Path | None = None
    lens: bool = False
    threads: int = 2
    inductor_threads: int = 2
    simdlen: int = 256
    cpu_capability: str = "avx2"

    @classmethod
    def from_options(cls, root: Path, *, serving: bool = False, check: object = True, bless: object = "",
                     cache: object = True, cache_dir: str = "", execute: object = True,
                     exec_log: str = "", lens: object = "") -> Settings:
        """Settings from the `hood` plugin's options in `mkdocs.yml` (each set there from a `HOOD_*` variable).

        A switch is off for `false`, `off`, `no`, `0` or nothing. `bless` is on for `1`, or names one page or
        one block (`page` / `page#block`) whose new output alone is accepted. Every build is a check build unless
        it serves (`mkdocs serve`), blesses, or opts out (`check: off`: a lenient build that shows drift in the
        page instead of failing).
        """
        blessing = switch(bless)
        recording = switch(lens)
        checking = not (serving or blessing or recording) and switch(check)
        return cls(
            root=root,
            check=checking,
            bless=blessing,
            bless_only="" if str(bless).lower() in {"1", "on", "yes", "true"} or not blessing else str(bless),
            use_cache=not (checking or blessing or recording) and switch(cache),
            cache_dir=Path(cache_dir) if cache_dir else root / ".cache" / "hood",
            traces_dir=root / "traces",
            execute=switch(execute),
            exec_log=Path(exec_log) if exec_log else None,
            lens=recording,
        )

    def blesses(self, where: str) -> bool:
        """Whether this build writes the trace of `where` (`page#block`)."""
        only = self.bless_only
        return self.bless and (not only or where == only or where.startswith(only + "#"))

    def pins(self) -> dict[str, str]:
        """The settings that change outputs; part of every cache key."""
        return {
            "threads": str(self.threads),
            "inductor_threads": str(self.inductor_threads),
            "simdlen": str(self.simdlen),
            "cpu_capability": self.cpu_capability,
        }
