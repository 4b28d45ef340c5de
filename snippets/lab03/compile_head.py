"""Lab 03, parts A to C: compile the TinyHead, check it against eager, and get its generated code."""

from hood.capture.common import max_diff, words
from hood.capture.compile import inductor_output, render_inductor_summary
from snippets.compile.heads import TinyHead
from snippets.compile.inductor_code import generated_code

# --8<-- [start:body]
import torch


def compile_head(batch=2, tol=1e-6, seed=42):
    """Compile the head with Inductor, compare it with eager under `tol`, summarise the generated code."""
    torch.manual_seed(seed)
    model = TinyHead()
    x = torch.randn(batch, 64)
    compiled_y, (code,) = generated_code(model, x)
    with torch.no_grad():
        eager_y = model(x)
    agreement = max_diff(eager_y, compiled_y, tol)
    print(words(en=f"batch {batch}: eager and compiled agree, max abs diff {agreement}:",
                es=f"lote {batch}: eager y compilado coinciden, diferencia absoluta máxima {agreement}:"),
          agreement.within)
    head_code = inductor_output(code)
    print(render_inductor_summary(head_code))
    return head_code, agreement
# --8<-- [end:body]
