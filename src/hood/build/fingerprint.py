"""What an output depends on besides its own code, hashed without importing torch."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import sys
from pathlib import Path


def torch_build() -> dict[str, str]:
    """The installed torch's version and git revision, read from its files (torch is not imported)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise RuntimeError("torch is not installed: run `make setup`")
    version_file = Path(spec.origin).with_name("version.py")
    namespace: dict[str, object] = {}
    exec(version_file.read_text(), namespace)  # noqa: S102 - torch's own generated constants
    return {
        "version": importlib.metadata.version("torch"),
        "git_version": str(namespace.get("git_version", "")),
    }


def source_files(root: Path) -> list[Path]:
    """Every Python file of `hood` and of the snippets: a change to any of them may change an output."""
    files = [*sorted((root / "src" / "hood").rglob("*.py")), *sorted((root / "snippets").rglob("*.py"))]
    return [f for f in files if "__pycache__" not in f.parts]


def fingerprint(root: Path, pins: dict[str, str]) -> str:
    """One hash of the sources, torch build, Python version and output-changing settings."""
    digest = hashlib.sha256()
    for path in source_files(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    meta = {"torch": torch_build(), "python": sys.version, "pins": pins}
    digest.update(json.dumps(meta, sort_keys=True).encode())
    return digest.hexdigest()


def block_key(env_fingerprint: str, codes: list[str]) -> str:
    """The key of a block: its code and every earlier block of its session, under one environment."""
    digest = hashlib.sha256(env_fingerprint.encode())
    for code in codes:
        digest.update(b"\0block\0" + code.encode())
    return digest.hexdigest()
