"""What chapter 3 compiles: the running example with a softmax, as a function and as a module."""

# --8<-- [start:body]
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch._inductor.config as inductor_config

# Inductor counts the C++ vector width in bits: 256 selects AVX2 (8 floats per vector), the same
# vector ISA on every x86-64 Linux or Windows machine with AVX2 (without AVX2, or on macOS: plain scalar
# loops; another architecture may select its own 256-bit vectors).
AVX2 = {"cpp.simdlen": 256}


def head(x, W, b):
    """The LM head with its softmax: scores over the 600-word vocabulary, as probabilities."""
    return torch.softmax(F.linear(x, W, b), dim=-1)


class TinyHead(nn.Module):
    """The same head as a module: `nn.Linear(64, 600)` then softmax over the last dimension."""

    def __init__(self, d: int = 64, vocab: int = 600):
        super().__init__()
        self.fc = nn.Linear(d, vocab)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)
# --8<-- [end:body]
