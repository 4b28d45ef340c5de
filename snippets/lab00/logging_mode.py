"""Lab 00, part C: the smallest logging mode, a TorchDispatchMode that notes each ATen call it receives."""

# --8<-- [start:body]
from torch.utils._python_dispatch import TorchDispatchMode


class LoggingMode(TorchDispatchMode):
    """Every call that reaches the Python key lands here: note its name, run it, hand back its result."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(func.name())  # name() with parentheses: `func.name` alone is a bound method
        return func(*args, **(kwargs or {}))
# --8<-- [end:body]
