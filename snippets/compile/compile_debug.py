"""`TORCH_COMPILE_DEBUG=1`: the folder of compile artefacts it writes under the working directory."""

# --8<-- [start:body]
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """import torch, torch.nn.functional as F
with torch.no_grad():  # compile the head once with Inductor
    torch.compile(lambda x, W, b: torch.softmax(F.linear(x, W, b), dim=-1))(
        torch.randn(2, 64), torch.randn(600, 64), torch.randn(600))"""


def debug_folder_listing(graph_caches=False):
    """Run SCRIPT with TORCH_COMPILE_DEBUG=1 in an empty folder; list what it wrote there.

    Graph caches off unless `graph_caches`: a cache hit skips Inductor, and with it the trace."""
    with tempfile.TemporaryDirectory() as folder:
        caches = {} if graph_caches else {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
        env = {**os.environ, "TORCH_COMPILE_DEBUG": "1", **caches}
        subprocess.run([sys.executable, "-c", SCRIPT], cwd=folder, env=env, check=True, capture_output=True)
        files = sorted(p.relative_to(folder).as_posix() for p in Path(folder, "torch_compile_debug").rglob("*")
                       if p.is_file())
    normalised = [re.sub(r"run_[\d_]+-pid_\d+", "run_<date>-pid_<pid>",
                         re.sub(r"trace_\w+\.log$", "trace_<random>.log", f)) for f in files]
    print("\n".join(normalised))
    return normalised
# --8<-- [end:body]
