"""The order in which the autograd engine runs the nodes of the MLP's graph."""

from hood.capture.autograd import autograd_graph, ready_order_is_by_sequence_nr, walk
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
    first = min(n.sequence_nr for n in graph.nodes if n.name != "AccumulateGrad")
    seq = {n.label: "max" if n.name == "AccumulateGrad" else str(n.sequence_nr - first)
           for n in graph.nodes}
    print(f"{'step':>4}  {'node':<20} sequence_nr (from the first node created)")
    for step, label in enumerate(ran, 1):
        print(f"{step:>4}  {label:<20} {seq[label]}")
    print()
    print("ready nodes ran highest sequence_nr first:", ready_order_is_by_sequence_nr(graph, ran))
    return graph, ran
# --8<-- [end:body]
