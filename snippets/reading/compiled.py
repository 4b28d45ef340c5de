"""Reading torch.compile's outputs: the FX graph Dynamo captured and the wrapper Inductor generated, one compile."""

from snippets.compile.heads import AVX2, inductor_config
from snippets.reading.tiny import tiny, tiny_inputs

# --8<-- [start:body]
import torch
from torch._inductor.compile_fx import compile_fx
from torch._inductor.utils import run_and_get_code


def compile_tiny():
    """Compile `tiny` once with Inductor, keeping the FX graph on the way; print the graph's code.

    Returns the graph module and Inductor's generated module (Python source).
    """
    graphs = []

    def keep_graph_then_inductor(gm, example_inputs):
        graphs.append(gm)  # the FX graph Dynamo hands to the backend
        return compile_fx(gm, example_inputs)  # what backend="inductor" does with it

    x, w = tiny_inputs(requires_grad=False)
    with inductor_config.patch(AVX2):
        _, modules = run_and_get_code(torch.compile(tiny, backend=keep_graph_then_inductor), x, w)
    print(graphs[0].code.strip())
    return graphs[0], modules[0]
# --8<-- [end:body]
