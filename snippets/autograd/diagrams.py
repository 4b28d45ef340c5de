"""Draw real autograd graphs (the running example's and the MLP's) as SVG at build time."""

from hood.capture.autograd import autograd_graph, graph_svg, tree_text
from hood.capture.common import words
from hood.capture.figure import figure
from snippets.autograd.mlp import mlp_forward, mlp_params
from snippets.running_example import running_example

# --8<-- [start:body]
import torch.nn.functional as F


def draw_linear_graph():
    """The graph of `F.linear(x, W, b)`, each node with the tensors it saved."""
    x, W, b = running_example()
    graph = autograd_graph(F.linear(x, W, b), {"x": x, "W": W, "b": b})
    print(figure(graph_svg(graph, words(en="Autograd graph of F.linear(x, W, b)",
                                        es="Grafo de autograd de F.linear(x, W, b)")), tree_text(graph),
                 words(en="Two nodes record the forward; an AccumulateGrad node stores each leaf's gradient.",
                       es="El forward queda grabado en dos nodos; un nodo AccumulateGrad guarda el gradiente de "
                          "cada hoja.")))
    return graph


def draw_mlp_graph():
    """The graph of the MLP's loss; saved tensors are named after the forward's tensors."""
    x, _, _ = running_example()
    W1, b1, W2, b2, target = mlp_params()
    h, logp, loss = mlp_forward(x, W1, b1, W2, b2, target)
    names = {"x": x, "W1": W1, "b1": b1, "W2": W2, "b2": b2, "h": h, "logp": logp, "target": target}
    graph = autograd_graph(loss, names)
    print(figure(graph_svg(graph, words(en="Autograd graph of the MLP's NLL loss",
                                        es="Grafo de autograd de la pérdida NLL del MLP")), tree_text(graph),
                 words(en="Seven nodes record the forward, five AccumulateGrad nodes store the leaves' gradients.",
                       es="El forward queda grabado en siete nodos y cinco nodos AccumulateGrad guardan los "
                          "gradientes de las hojas.")))
    return graph
# --8<-- [end:body]
