"""What torch.library.custom_op registers with the dispatcher, and the rows a CPU call meets."""

from hood.capture.custom_ops import dispatch_rows, registrations, render_registrations, render_rows
from snippets.custom_ops.scaled_linear import define_scaled_linear

# --8<-- [start:body]
def show_dispatch_table(qualname="hood::scaled_linear"):
    """Registrations and call-path rows of the (defined) op, and of a twin without fake or backward."""
    define_scaled_linear(qualname + "_bare", fake=False, autograd=False)
    full, bare = registrations(qualname), registrations(qualname + "_bare")
    print(render_registrations(*full))
    print()
    print("the twin without fake kernel or backward registers the same keys:",
          [r.key for r in full[1]] == [r.key for r in bare[1]])
    print()
    print(render_rows(dispatch_rows(qualname)))
    return full, bare, dispatch_rows(qualname)
# --8<-- [end:body]
