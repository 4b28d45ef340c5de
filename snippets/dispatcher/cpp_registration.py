"""Theory 01: a TORCH_LIBRARY / TORCH_LIBRARY_IMPL registration, compiled with g++ and loaded for real."""

from hood.capture.tables import table_rows

# --8<-- [start:body]
import torch
from torch.utils.cpp_extension import load_inline

CPP = r"""
#include <torch/library.h>

at::Tensor scale_cpu(const at::Tensor& x, double factor) { return x * factor; }

TORCH_LIBRARY(hood_cpp, m) {             // declare the operator: its schema, once
  m.def("scale(Tensor x, float factor) -> Tensor");
}

TORCH_LIBRARY_IMPL(hood_cpp, CPU, m) {   // fill the CPU slot of its table
  m.impl("scale", &scale_cpu);
}
"""


def compile_and_register():
    """Compile CPP into a shared library (built in torch's extension cache, once), load it, read the table."""
    load_inline("hood_cpp", cpp_sources=CPP, is_python_module=False)  # loading runs both registration blocks
    rows = {row.key: row for row in table_rows("hood_cpp::scale", ("AutogradCPU", "CPU"))}
    for row in rows.values():
        print(f"{row.key:<12} {row.kind} · {row.source}")
    result = torch.ops.hood_cpp.scale(torch.ones(3), 2.5)
    print(f"torch.ops.hood_cpp.scale(torch.ones(3), 2.5) = {result.tolist()}")
    return rows, result
# --8<-- [end:body]
