"""Theory 01: a real per-key walk of F.linear(x, W, b), in several contexts, and why the env var is silent."""

from hood.capture.common import words
from hood.capture.diagram import Node, layered_svg
from hood.capture.dispatch import dispatch_walk, render_walk
from snippets.running_example import running_example

# --8<-- [start:body]
import subprocess
import sys
import torch
import torch.nn.functional as F


def linear_walk():
    """Every dispatch decision of one F.linear(x, W, b) call."""
    x, W, b = running_example()
    steps = dispatch_walk(lambda: F.linear(x, W, b))
    print(render_walk(steps))
    return steps


def walk_diagram():
    """The same walk as a diagram: one box per operator call, listing the keys it went through."""
    x, W, b = running_example()
    steps = dispatch_walk(lambda: F.linear(x, W, b))
    calls = []  # consecutive steps of one operator are one call going down the keys
    for step in steps:
        if calls and calls[-1][0] == step.op and step.key not in [k for k, _ in calls[-1][1]]:
            calls[-1][1].append((step.key, step.kernel))
        else:
            calls.append((step.op, [(step.key, step.kernel)]))
    nodes = [Node(str(i), op, " | ".join(f"{key}: {kernel}" for key, kernel in keys))
             for i, (op, keys) in enumerate(calls)]
    edges = [(str(i), str(i + 1)) for i in range(len(calls) - 1)]
    print(layered_svg(nodes, edges, words(en="Dispatch decisions of F.linear(x, W, b), in order",
                                           es="Decisiones de dispatch de F.linear(x, W, b), en orden")))
    return calls


def walk_in_contexts():
    """Where linear and addmm are handled under no_grad, inference_mode and autocast."""
    x, W, b = running_example()
    contexts = {
        "torch.no_grad()": torch.no_grad,
        "torch.inference_mode()": torch.inference_mode,
        "torch.autocast('cpu', dtype=torch.bfloat16)": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
    }
    walks = {}
    for label, context in contexts.items():
        def call(context=context):
            with context():
                F.linear(x, W, b)
        walks[label] = [s for s in dispatch_walk(call) if s.op in ("aten.linear.default", "aten.addmm.default")]
        print(f"{label}\n{render_walk(walks[label])}\n")
    return walks


def dispatch_trace_env():
    """Run a call with TORCH_SHOW_DISPATCH_TRACE=1 in a fresh process and show what it printed."""
    code = "import torch; x = torch.ones(2); y = x + x"
    env = {"TORCH_SHOW_DISPATCH_TRACE": "1", "PATH": ""}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    printed = run.stdout + run.stderr
    print(f"exit code: {run.returncode}")
    print(f"characters printed: {len(printed)}")
    return printed
# --8<-- [end:body]
