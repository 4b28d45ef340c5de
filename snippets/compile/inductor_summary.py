"""Inductor: the module of Python and C++ it generates for the head, summarised."""

from hood.capture.common import words
from hood.capture.compile import inductor_output, render_inductor_summary
from snippets.compile.heads import head
from snippets.compile.inductor_code import generated_code
from snippets.running_example import running_example

# --8<-- [start:body]


def show_inductor_code():
    """Compile the head with Inductor and summarise what it generated."""
    x, W, b = running_example()
    y, modules = generated_code(head, x, W, b)  # torch._inductor.utils.run_and_get_code underneath
    print(words(en="generated modules:", es="módulos generados:"), len(modules))
    out = inductor_output(modules[0])
    print(render_inductor_summary(out))
    return out
# --8<-- [end:body]
