"""Lab 00, where CUDA would differ: an operator whose logged name is chosen for the device it runs on."""

from hood.capture.common import words

from hood.capture.ops import OpLog

# --8<-- [start:body]
import torch
import torch.nn.functional as F


def attention_on_cpu():
    """What a logging mode sees of scaled_dot_product_attention on CPU tensors: the kernel's name names the CPU."""
    q = torch.randn(1, 2, 4, 8)
    with OpLog() as log:
        F.scaled_dot_product_attention(q, q, q)
    print("F.scaled_dot_product_attention", words(en="on", es="en"), f"{q.device.type}: {', '.join(log.names)}")
    return log.names
# --8<-- [end:body]
