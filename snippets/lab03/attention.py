"""Lab 03, stretch: a MiniGPT attention block compiled, and what Inductor fuses around its softmax."""

from hood.capture.common import words
from hood.capture.compile import inductor_output
from snippets.compile.inductor_code import generated_code

# --8<-- [start:body]
import re

import torch
import torch.nn as nn


class CausalSelfAttention(nn.Module):
    """MiniGPT's attention: d=64 split into 4 heads, a causal mask, one output projection."""

    def __init__(self, d: int = 64, heads: int = 4):
        super().__init__()
        self.heads, self.qkv, self.proj = heads, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in self.qkv(x).split(C, dim=2))
        scores = (q @ k.transpose(-2, -1)) * (C // self.heads) ** -0.5
        causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
        att = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        return self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C))


def calls_with_buffers(out):
    """Each library call and kernel launch of the wrapper, in order, with the buffers it is handed (`out` marks
    the one a library call writes)."""
    rows = []
    for line in out.call.splitlines():
        name = line.split("(", 1)[0]
        if name.startswith("extern_kernels.") or name in out.kernels:
            written = re.findall(r"out=(buf\d+)", line)
            read = [b for b in re.findall(r"\b(buf\d+|arg\d+_\d+)\b", line) if b not in written]
            rows.append((name, read + [f"out {b}" for b in written]))
    return rows


def compile_attention(batch=2, tokens=8, seed=42):
    """Compile the block with Inductor; print its library calls and kernel launches in order, with their buffers."""
    torch.manual_seed(seed)
    _, (code,) = generated_code(CausalSelfAttention(), torch.randn(batch, tokens, 64))
    out = inductor_output(code)
    calls, kernels = len(out.extern_calls), len(out.kernels)
    print(words(en=f"library calls: {calls}, generated kernels: {kernels}",
                es=f"kernels externos: {calls}, kernels generados: {kernels}"))
    print(words(en="in order, with the buffers each is handed:", es="en orden, con los buffers que recibe cada uno:"))
    for name, buffers in calls_with_buffers(out):
        print(f"    {name}({', '.join(buffers)})")
    return out
# --8<-- [end:body]
