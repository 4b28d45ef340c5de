"""The torch.compile pipeline as a diagram whose numbers are counted on the running example's graphs."""

from hood.capture.common import words
from hood.capture.diagram import Node, layered_svg
from hood.capture.figure import figure
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
    n = {name: calls(graph) for name, graph in graphs.items()}
    instructions = len(list(dis.get_instructions(head)))
    nodes = [
        Node("py", words(en="Python bytecode", es="bytecode de Python"),
             words(en=f"{instructions} instructions", es=f"{instructions} instrucciones")),
        Node("dynamo", "Dynamo", words(en=f"FX, {n['dynamo']} torch calls", es=f"FX, {n['dynamo']} llamadas a torch")),
        Node("aot", "AOTAutograd",
             words(en=f"joint, {n['joint']} ATen ops", es=f"grafo conjunto, {n['joint']} operadores de ATen")),
        Node("fw", words(en="forward graph", es="grafo del forward"),
             words(en=f"{n['forward']} ATen ops", es=f"{n['forward']} operadores de ATen")),
        Node("bw", words(en="backward graph", es="grafo del backward"),
             words(en=f"{n['backward']} ATen ops", es=f"{n['backward']} operadores de ATen")),
        Node("inductor", "Inductor", words(en="C++, OpenMP on CPU", es="C++ y OpenMP en CPU")),
    ]
    edges = [("py", "dynamo"), ("dynamo", "aot"), ("aot", "fw"), ("aot", "bw"), ("fw", "inductor"), ("bw", "inductor")]
    svg = layered_svg(nodes, edges, words(en="torch.compile on the running example",
                                          es="torch.compile sobre el ejemplo que nos acompaña"))
    data = "\n".join([f"head: {instructions} bytecode instructions"]
                      + [f"{name} graph: {count} calls" for name, count in n.items()])
    print(figure(svg, data, words(
        en="Each box is a stage; the counts on its second line were made on what that stage produced for the head.",
        es="Cada caja es una etapa; los números de su segunda línea se contaron sobre lo que esa etapa produjo para "
           "la cabeza.")))
    return graphs
# --8<-- [end:body]
