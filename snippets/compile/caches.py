"""Caches: the same compile twice in a fresh Inductor cache, and what a cache hit no longer logs."""

from hood.capture.common import words
from hood.capture.compile import compile_twice, render_compile_runs
from snippets.compile.heads import head
from snippets.compile.inductor_code import generated_code
from snippets.running_example import running_example

# --8<-- [start:body]
ARTIFACTS = ("graph_code", "aot_graphs", "post_grad_graphs", "ir_pre_fusion", "ir_post_fusion", "output_code")


def cache_hit_hides_artifacts():
    """Compile the head twice in an empty cache; count cache events and TORCH_LOGS records each time."""
    x, W, b = running_example()

    def compile_head():
        _, (code,) = generated_code(head, x, W, b)
        return code

    runs = compile_twice(compile_head, ARTIFACTS)
    print(render_compile_runs(runs))
    print(words(en="same generated code both times:", es="el mismo código generado las dos veces:"),
          runs[0].code == runs[1].code)
    return runs
# --8<-- [end:body]
