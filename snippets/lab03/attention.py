"""Lab 03, stretch: a MiniGPT attention block compiled, and what Inductor fuses around its softmax."""

from hood.capture.compile import inductor_output
from snippets.compile.inductor_code import generated_code

# --8<-- [start:body]
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


def compile_attention(batch=2, tokens=8, seed=42):
    """Compile the block with Inductor; print its library calls and the kernels it generated."""
    torch.manual_seed(seed)
    _, (code,) = generated_code(CausalSelfAttention(), torch.randn(batch, tokens, 64))
    out = inductor_output(code)
    print("library calls, in order:", ", ".join(out.extern_calls))
    print(f"generated kernels: {len(out.kernels)}", *out.kernel_calls, sep="\n    ")
    return out
# --8<-- [end:body]
