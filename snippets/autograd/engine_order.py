"""The order in which the autograd engine runs the nodes of the MLP's graph, printed, then drawn on the graph."""

from hood.capture.autograd import (autograd_graph, creation_order, graph_svg, ready_order_is_by_sequence_nr,
                                   tree_rows, tree_text, walk)
from hood.capture.common import words
from hood.capture.figure import figure
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.running_example import running_example

# --8<-- [start:body]
def engine_order():
    """Put a prehook on every node of the MLP's graph, run backward, print the order they ran in."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    graph = autograd_graph(loss, {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2})
    ran = []
    for (fn, _), node in zip(walk(loss), graph.nodes):  # same walk: same nodes, same order
        fn.register_prehook(lambda grad_outputs, label=node.label: ran.append(label))
    loss.backward()
    seq = creation_order(graph, top=words(en="max", es="máximo"))  # from the first node created
    print(words(en=f"{'step':>4}  {'node':<20} sequence_nr (from the first node created)",
                es=f"{'paso':>4}  {'nodo':<20} sequence_nr (desde el primer nodo creado)"))
    for step, label in enumerate(ran, 1):
        print(f"{step:>4}  {label:<20} {seq[label]}")
    print()
    rule = ready_order_is_by_sequence_nr(graph, ran)
    print(words(en="ready nodes ran highest sequence_nr first:",
                es="entre los nodos listos, se ejecutó primero el de mayor sequence_nr:"), rule)
    return graph, ran
# --8<-- [end:body]


# --8<-- [start:figure]
def draw_engine_order(graph, ran):
    """The graph with the step at which each node ran; highlighted, the nodes that ran before a node drawn above."""
    step, seq = {label: str(n) for n, label in enumerate(ran, 1)}, creation_order(graph)
    drawn = [node.label for node, _ in tree_rows(graph)]
    early = [label for i, label in enumerate(drawn) if any(ran.index(label) < ran.index(a) for a in drawn[:i])]
    title = words(en="The engine's order on the MLP's graph", es="El orden del motor en el grafo del MLP")
    shown = creation_order(graph, top=words(en="max", es="máximo"))  # the drawing in the page's language
    svg = graph_svg(graph, title, details={label: [f"sequence_nr {shown[label]}"] for label in drawn}, badges=step,
                    classes={label: "accent" for label in early})
    data = tree_text(graph, {label: f"step {step[label]}, sequence_nr {seq[label]}" for label in drawn})
    print(figure(svg, data + "\nhighlighted: " + ", ".join(early), words(
        en="Each number is the step at which the engine ran the node. Highlighted: the nodes that ran before a "
           "node drawn above them.",
        es="Cada número es el paso en que el motor ejecutó el nodo. Resaltados: los nodos que se ejecutaron antes "
           "que un nodo dibujado encima de ellos.")))
    return early
# --8<-- [end:figure]
