"""AOTAutograd: the joint forward-backward graph, and the forward and backward it is cut into."""

# --8<-- [start:body]
import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.partitioners import min_cut_rematerialization_partition


def aot_graphs(fn, *args):
    """Compile `fn` through AOTAutograd, run forward and backward; return Dynamo's graph, the joint graph,
    and the forward and backward graphs it was cut into.

    `fn` must compile to one graph: after a graph break, each kind would keep only its last graph, and the
    forward and the backward kept could come from different graphs, so a break is an error (`fullgraph`)."""
    graphs = {}

    def keep(name):
        def compiler(gm, example_inputs):
            graphs[name] = gm
            return make_boxed_func(gm.forward)  # run the ATen graph unchanged
        return compiler

    def partition(joint, joint_inputs, **kwargs):
        graphs["joint"] = joint
        return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)  # Inductor's partitioner

    aot = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"), partition_fn=partition)

    def backend(gm, example_inputs):
        graphs["dynamo"] = gm  # the FX graph Dynamo captured, before AOTAutograd traces it to ATen
        return aot(gm, example_inputs)

    torch.compile(fn, backend=backend, fullgraph=True)(*args).sum().backward()
    return graphs


def readable(gm):
    """The graph as Python, every value annotated with its dtype and shape."""
    return gm.print_readable(print_output=False, include_stride=False, include_device=False).strip()


def saved_for_backward(graphs):
    """What the forward keeps for the backward: the backward's inputs that are not incoming gradients.

    Each comes with its shape, or with its type when it is not a tensor (a saved size, for instance).
    """
    saved = [(n.name, n.meta["val"]) for n in graphs["backward"].graph.nodes
             if n.op == "placeholder" and not n.name.startswith("tangents")]
    return [(name, tuple(v.shape) if isinstance(v, torch.Tensor) else type(v).__name__) for name, v in saved]
# --8<-- [end:body]
