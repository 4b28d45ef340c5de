"""Backward by hand: walk the real graph like the engine, applying each node's hand-written formula."""

from snippets.lab01.formulas import (
    addmm_backward, as_signed, log_softmax_backward, nll_loss_backward, relu_backward, t_backward,
)
import torch

# --8<-- [start:formulas]
def hand_formulas(log_softmax=log_softmax_backward):
    """Node class -> function(node, grad) giving one gradient per entry of `node.next_functions`.

    Every input a formula needs is read from the node's saved values: the graph carries them.
    """
    return {
        "NllLossBackward0": lambda node, g: (nll_loss_backward(
            g, node._saved_self, node._saved_target, node._saved_total_weight), None, None),
        "LogSoftmaxBackward0": lambda node, g: (
            log_softmax(g, node._saved_result, as_signed(node._saved_dim)),),
        "AddmmBackward0": lambda node, g: addmm_backward(
            g, node._saved_mat1, node._saved_mat2, node._saved_alpha, node._saved_beta),
        "TBackward0": lambda node, g: (t_backward(g),),
        "ReluBackward0": lambda node, g: (relu_backward(g, node._saved_result),),
    }
# --8<-- [end:formulas]


# --8<-- [start:body]
def topological(root):
    """Every node reachable from `root`, each one after all the nodes that send it a gradient."""
    order, seen = [], set()

    def visit(node):
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                visit(nxt)
        order.append(node)

    visit(root)
    return order[::-1]


def backward_by_hand(output, formulas=None):
    """The gradient of `output` (seeded with ones) for each leaf, from the graph and formulas alone."""
    formulas = formulas or hand_formulas()
    incoming = {output.grad_fn: [torch.ones_like(output)]}
    leaf_grads = {}
    for node in topological(output.grad_fn):
        grad = sum(incoming.pop(node))  # gradients from every consumer add up
        if type(node).__name__ == "AccumulateGrad":
            leaf_grads[node.variable] = grad
            continue
        for (nxt, _), g in zip(node.next_functions, formulas[type(node).__name__](node, grad)):
            if nxt is not None:
                incoming.setdefault(nxt, []).append(g)
    return leaf_grads
# --8<-- [end:body]
