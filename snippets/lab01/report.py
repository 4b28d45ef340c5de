"""What the labs' runnable modules share: run a step, keep what it printed, lay it out in REPORT.md."""

import contextlib
import io


def printed(fn, *args, **kwargs):
    """Call `fn` and return (its result, everything it printed)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args, **kwargs)
    return result, out.getvalue()


def section(title: str, output: str, interpretation: str) -> str:
    """A REPORT.md section: a title, the real output in a text block, then what it means."""
    return f"## {title}\n\n```text\n{output.rstrip()}\n```\n\n{interpretation.strip()}\n"
