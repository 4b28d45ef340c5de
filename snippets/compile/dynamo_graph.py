"""Dynamo: the bytecode it reads and the FX graph it hands to a backend."""

from hood.capture.common import words
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import dis

import torch


def dynamo_graph():
    """Compile `head` with a backend that keeps the graph; print the bytecode and the graph's code."""
    graphs = []

    def keep_graph(gm, example_inputs):
        graphs.append(gm)
        return gm.forward  # run the captured graph unchanged

    x, W, b = running_example()
    torch.compile(head, backend=keep_graph)(x, W, b)
    print(words(en="bytecode of head (what Dynamo interprets):", es="bytecode de head (lo que interpreta Dynamo):"))
    for ins in dis.get_instructions(head):
        print(f"  {ins.opname:<13} {ins.argrepr}".rstrip())
    print(words(en="graphs captured:", es="grafos capturados:"), len(graphs))
    print(graphs[0].code.strip())
    return graphs
# --8<-- [end:body]
