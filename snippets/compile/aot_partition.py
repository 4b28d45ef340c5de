"""AOTAutograd's partition, shown on the joint graph: which side of the cut each operator lands on."""

from hood.capture.common import words
from snippets.compile.aot_graphs import aot_graphs, readable, saved_for_backward
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import re

import torch


def side_of_each_node(graphs):
    """For each operator of the joint graph: `fw` if the partitioner put it in the forward graph, else `bw`."""
    forward = {n.name for n in graphs["forward"].graph.nodes}
    return {n.name: "fw" if n.name in forward else "bw"
            for n in graphs["joint"].graph.nodes if n.op == "call_function"}


def show_aot_graphs():
    """Print the head's joint graph once, each operator tagged with its side of the cut; then what is saved."""
    torch._dynamo.reset()  # forget earlier compiles of `head`: sizes that changed there would be dynamic here
    graphs = aot_graphs(head, *running_example())
    side = side_of_each_node(graphs)
    for line in readable(graphs["joint"]).splitlines():
        name = re.match(r"\s+(\w+): \"", line)
        print(f"{side[name[1]] if name else '':<3}{line}")
    print(words(en="saved for backward:", es="se guarda para el backward:"), saved_for_backward(graphs))
    return graphs
# --8<-- [end:body]
