"""Theory 01: TORCH_SHOW_DISPATCH_TRACE=1 in a fresh process of the release wheel."""

from hood.capture.common import words

# --8<-- [start:body]
import subprocess
import sys


def dispatch_trace_env():
    """Run a call with TORCH_SHOW_DISPATCH_TRACE=1 in a fresh process and show what it printed."""
    code = "import torch; x = torch.ones(2); y = x + x"
    env = {"TORCH_SHOW_DISPATCH_TRACE": "1", "PATH": ""}
    # -W ignore: without numpy installed, torch warns at import; that warning is not the trace
    run = subprocess.run([sys.executable, "-W", "ignore", "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    printed = run.stdout + run.stderr
    print(words(en="exit code:", es="código de salida:"), run.returncode)
    print(words(en="characters printed:", es="caracteres impresos:"), len(printed))
    return printed
# --8<-- [end:body]
