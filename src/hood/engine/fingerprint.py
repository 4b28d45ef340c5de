"""What an output depends on besides its own code, hashed without importing torch."""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import re
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


PROJECT_PACKAGES = ("hood", "snippets")
"""The packages whose modules a block may import; an edit to one of them re-runs the blocks that use it."""

_TARGET = re.compile(r"^((?:hood|snippets)(?:\.\w+)+)(?::\w+)?$")


def engine_files(root: Path) -> list[Path]:
    """The engine's own files, which every output depends on (its normaliser aside: it changes no output)."""
    return sorted(p for p in (root / "src" / "hood" / "engine").glob("*.py") if p.name != "normalize.py")


def module_file(root: Path, module: str) -> Path | None:
    """The file of a project module (`hood.*` under `src/`, `snippets.*` at the root), or `None`."""
    base = root / "src" if module.split(".")[0] == "hood" else root
    path = base.joinpath(*module.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.lru_cache(maxsize=4096)
def _imported_modules(code: str) -> frozenset[str]:
    """Project modules that `code` imports, or names as a string `"package.module:function"` (a rank target).

    Kept per text: every block's key parses its session's earlier blocks and the modules they import again, and a
    serve process renders the same texts at each rebuild."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return frozenset()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _TARGET.match(node.value):
            found.add(_TARGET.match(node.value).group(1))
    return frozenset(name for name in found if name.split(".")[0] in PROJECT_PACKAGES)


def imported_files(root: Path, codes: list[str]) -> list[Path]:
    """Every project file the code imports, directly or through other project modules, in a stable order."""
    seen: dict[Path, None] = {}
    pending = [name for code in codes for name in sorted(_imported_modules(code))]
    while pending:
        name = pending.pop()
        parts = name.split(".")
        for depth in range(1, len(parts) + 1):  # a package's __init__ runs before its modules
            path = module_file(root, ".".join(parts[:depth]))
            if path is not None and path not in seen:
                seen[path] = None
                pending += sorted(_imported_modules(path.read_text(encoding="utf-8")))
    return sorted(seen)


def fingerprint(root: Path, pins: dict[str, str]) -> str:
    """One hash of the engine, the torch build, the Python version and the output-changing settings."""
    digest = hashlib.sha256()
    for path in engine_files(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    meta = {"torch": torch_build(), "python": sys.version, "pins": pins}
    digest.update(json.dumps(meta, sort_keys=True).encode())
    return digest.hexdigest()


def block_key(env_fingerprint: str, codes: list[str], root: Path) -> str:
    """The key of a block: its code, every earlier block of its session, and the project files they import.

    Included snippets are part of the code already; an imported module is hashed with everything it imports,
    so editing a module changes the key of exactly the blocks that use it (and of their later session blocks).
    """
    digest = hashlib.sha256(env_fingerprint.encode())
    for code in codes:
        digest.update(b"\0block\0" + code.encode())
    for path in imported_files(root, codes):
        digest.update(b"\0file\0" + str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
