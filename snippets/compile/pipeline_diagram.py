"""The torch.compile pipeline as a diagram whose numbers are counted on the running example's graphs."""

from hood.capture.diagram import Node, layered_svg
from snippets.compile.aot_graphs import aot_graphs
from snippets.compile.heads import head
from snippets.running_example import running_example

# --8<-- [start:body]
import dis


def calls(gm):
    """How many operations a graph calls (its `call_*` nodes)."""
    return sum(node.op.startswith("call") for node in gm.graph.nodes)


def pipeline_diagram():
    """Capture the head's graphs at every stage and draw the pipeline with their sizes."""
    graphs = aot_graphs(head, *running_example())
    nodes = [
        Node("py", "Python bytecode", f"head: {len(list(dis.get_instructions(head)))} instructions"),
        Node("dynamo", "Dynamo", f"FX graph: {calls(graphs['dynamo'])} torch calls"),
        Node("aot", "AOTAutograd", f"joint graph: {calls(graphs['joint'])} ATen ops"),
        Node("fw", "forward graph", f"{calls(graphs['forward'])} ATen ops"),
        Node("bw", "backward graph", f"{calls(graphs['backward'])} ATen ops"),
        Node("inductor", "Inductor", "C++ and OpenMP on CPU"),
    ]
    edges = [("py", "dynamo"), ("dynamo", "aot"), ("aot", "fw"), ("aot", "bw"), ("fw", "inductor"), ("bw", "inductor")]
    print(layered_svg(nodes, edges, "torch.compile on the running example"))
    return graphs
# --8<-- [end:body]
