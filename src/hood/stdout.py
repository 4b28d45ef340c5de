"""One way to capture what code prints, from Python or from C/C++ alike: the engine, the lab runners and the
tests all use it, so that what a test sees is what a page shows."""

from __future__ import annotations

import ctypes
import io
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stdout
from typing import TypeVar

T = TypeVar("T")

_libc = ctypes.CDLL(None)


@contextmanager
def captured_stdout() -> Iterator[io.StringIO]:
    """Capture everything written to stdout, by Python or by C/C++ code, in order."""
    result = io.StringIO()
    sys.stdout.flush()
    saved = os.dup(1)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 1)
        stream = open(1, "w", encoding="utf-8", buffering=1, closefd=False)
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


def printed(fn: Callable[..., T], *args, **kwargs) -> tuple[T, str]:
    """Call `fn` and return its result and everything it printed."""
    with captured_stdout() as out:
        result = fn(*args, **kwargs)
    return result, out.getvalue()
