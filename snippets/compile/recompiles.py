"""Recompilation: a new batch size fails a guard; the second time, Dynamo makes the size symbolic."""

from hood.capture.common import words
from hood.capture.compile import cache_entries
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import torch
from torch._dynamo.testing import CompileCounterWithBackend


def recompiles(batches=(2, 2, 3, 4, 64, 1)):
    """Call the compiled head with several batch sizes, counting compiles; print each graph's inputs."""
    counter = CompileCounterWithBackend("eager")  # counts frames compiled, keeps their graphs
    compiled = torch.compile(head, backend=counter)
    _, W, b = running_example()
    for n in batches:
        compiled(torch.randn(n, 64), W, b)
        print(words(en=f"batch {n:>2}: compiles so far", es=f"lote {n:>2}: compilaciones hasta ahora"),
              counter.frame_count)
    for i, gm in enumerate(counter.graphs, 1):
        inputs = []
        for node in gm.graph.nodes:
            if node.op == "placeholder":
                value = node.meta["example_value"]
                shape = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
                inputs.append(f"{node.name} {shape}")
        print(words(en=f"graph {i} inputs:", es=f"entradas del grafo {i}:"), ", ".join(inputs))
    for entry in reversed(cache_entries(head)):  # least recently used first: here, the oldest first
        version = entry.compile_id
        print(words(en=f"version {version} guards on x:", es=f"guardas de la versión {version} sobre x:"))
        about_x = [g for g in entry.guards if g.kind == "TENSOR_MATCH" and "L['x']" in g.code]
        for guard in about_x + entry.shape_guards:  # shape guards: relations between symbolic sizes
            print("   ", guard.code)
    return counter
# --8<-- [end:body]
