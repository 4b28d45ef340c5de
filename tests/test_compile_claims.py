"""Theory 03, the sentences that generalise: each one tried against a counterexample, on real outputs."""

import contextlib
import io
import re
from pathlib import Path

import pytest
import torch
from torch._dynamo.testing import CompileCounterWithBackend

from hood.capture.common import localize
from hood.capture.compile import inductor_output
from snippets.compile.graph_breaks import chatty_head
from snippets.compile.heads import head
from snippets.compile.inductor_code import generated_code
from snippets.compile.recompute import recomputed_in_backward
from snippets.running_example import running_example

pytestmark = pytest.mark.usefixtures("like_a_block")

TORCH = Path(torch.__file__).parent
PAGES = Path(__file__).resolve().parents[1] / "docs"


def quiet(fn, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(*args)
    return result, out.getvalue()


def test_the_partitioner_may_recompute_instead_of_saving():
    """The `recompute` block: for sin(sin(x)) the forward saves `x` alone and the backward computes `sin` again."""
    graphs, printed = quiet(recomputed_in_backward)
    out = localize(printed, "en")
    assert "saved for backward: [('primals_1', (4, 8))]" in out
    assert out.strip().endswith("forward operators the backward computes again: ['sin']")
    backward = [n.target.__name__ for n in graphs["backward"].graph.nodes if n.op == "call_function"]
    assert backward[0] == "sin.default" and backward.count("cos.default") == 2


def test_a_view_is_no_loop_the_transpose_of_w_is_a_reinterpret_tensor():
    _, W, b = running_example()
    _, (code,) = generated_code(head, torch.randn(2, 64), W, b)
    out = inductor_output(code)
    assert list(out.kernels) == ["cpp_fused__softmax_0"] and out.extern_calls == ["extern_kernels.addmm"]
    (addmm,) = [line for line in out.call.splitlines() if line.startswith("extern_kernels.addmm")]
    assert re.search(r"reinterpret_tensor\(arg\d_1, \(64, 600\), \(1, 64\), 0\)", addmm)
    assert "Original ATen: [aten.t, aten.addmm]" in out.call


def test_openmp_only_when_the_kernel_has_enough_work():
    """The head's softmax kernel has `#pragma omp`; the 2 x 4 `relu(x @ w) + 1` of the reading guide has none."""
    _, W, b = running_example()
    _, (big,) = generated_code(head, torch.randn(2, 64), W, b)
    assert "#pragma omp parallel" in inductor_output(big).kernels["cpp_fused__softmax_0"]
    torch._dynamo.reset()
    _, (small,) = generated_code(lambda x, w: torch.relu(x @ w) + 1, torch.randn(2, 3), torch.randn(3, 4))
    (kernel,) = inductor_output(small).kernels.values()
    assert "#pragma omp" not in kernel and "at::vec::Vectorized" in kernel


def test_predict_strides_two_compiles():
    """Check yourself, `predict-strides`: the TENSOR_MATCH guard pins strides too."""
    counter = CompileCounterWithBackend("eager")
    compiled = torch.compile(head, backend=counter)
    _, W, b = running_example()
    assert counter.frame_count == 0  # torch.compile does not touch the function before its first call
    compiled(torch.randn(2, 64), W, b)
    compiled(torch.randn(64, 2).t(), W, b)
    assert counter.frame_count == 2


def test_predict_kernels_the_multiplication_joins_the_softmax_kernel():
    """Check yourself, `predict-kernels`: one kernel, the softmax's three row loops, the `* 2` in the last one."""
    _, (code,) = generated_code(lambda x: torch.softmax(x, dim=-1) * 2, torch.randn(2, 600))
    kernels = inductor_output(code).kernels
    assert list(kernels) == ["cpp_fused__softmax_mul_0"]
    loops = kernels["cpp_fused__softmax_mul_0"].split("for(int64_t x1=")
    assert len(loops) == 4 and "static_cast<float>(2.0)" in loops[-1]


@pytest.mark.parametrize("change", ["inference_mode", "threads"])
def test_guards_reject_an_inference_tensor_and_another_thread_count(change):
    _, W, b = running_example()
    W, b = W.detach(), b.detach()
    counter = CompileCounterWithBackend("eager")
    compiled = torch.compile(head, backend=counter)
    compiled(torch.randn(2, 64), W, b)
    if change == "inference_mode":
        with torch.inference_mode():
            x = torch.randn(2, 64)
        assert "AutogradCPU" not in repr(torch._C._dispatch_keys(x))
        compiled(x, W, b)
    else:
        torch.set_num_threads(1)
        compiled(torch.randn(2, 64), W, b)
    assert counter.frame_count == 2


def test_reorderable_print_does_not_apply_to_the_chatty_head():
    """A bare `print` can be delayed after the graph; the chatty head's cannot, so its break stays."""
    def simple(x):
        y = x * 2
        print("y computed")
        return y + 1

    with torch._dynamo.config.patch(reorderable_logging_functions={print}):
        explained, _ = quiet(torch._dynamo.explain(simple), torch.randn(2))
        assert explained.graph_break_count == 0
        torch._dynamo.reset()
        with torch._dynamo.config.patch(capture_scalar_outputs=True):
            explained, _ = quiet(torch._dynamo.explain(chatty_head), *running_example())
    assert explained.graph_count == 2
    assert explained.break_reasons[0].reason.startswith("attempted to reorder a debugging function that can't")


@pytest.mark.parametrize("path, first, last, needles", [
    ("_inductor/config.py", 219, 219, ["online_softmax = "]),
    ("_inductor/fx_passes/post_grad.py", 470, 479, ["def prepare_softmax_extra_check", "config.online_softmax",
                                                    "We only have triton online softmax kernels currently",
                                                    'device_type in ["cuda", "xpu"]', '_backend") == "triton"']),
    ("_inductor/fx_passes/post_grad.py", 813, 825, ["register_replacement(", "prepare_softmax_pattern",
                                                    "extra_check=prepare_softmax_extra_check"]),
    ("_inductor/codegen/common.py", 579, 586, ['get_scheduling_for_device("mps")', '"mps"', "MetalScheduling,"]),
    ("_inductor/codegen/triton.py", 7276, 7278, ["get_kernel_category_by_source_code(src_code)[:3]", '"triton"']),
    ("_inductor/__init__.py", 358, 359, ['"reduce-overhead"', '"triton.cudagraphs": True']),
    ("_inductor/cudagraph_trees.py", 2206, 2217, ["check_for_mutation(",
                                                  "log_cudagraph_skip_and_bump_counter(maybe_mutation_str)"]),
    ("_inductor/kernel/mm.py", 655, 668, ["not (inductor_config.max_autotune or inductor_config.max_autotune_gemm)",
                                          "[aten_addmm]", "return node"]),
    ("_inductor/config.py", 2670, 2670, ['cuda_backend: Literal["triton", "halide", "pallas"] = "triton"']),
    ("_inductor/output_code.py", 850, 869, ["cudagraph_partition_post_compile(", "cudagraph_post_compile("]),
    ("_inductor/cudagraph_utils.py", 322, 347, ["def check_multiple_devices_or_any_cpu_nodes",
                                                'msg = f"cpu device', 'f"multiple devices:']),
    ("utils/benchmark/utils/timer.py", 17, 20, ["def timer()", "if torch.accelerator.is_available():",
                                                "torch.accelerator.synchronize()", "return timeit.default_timer()"]),
])
def test_the_pinned_source_lines_the_pages_link_say_what_the_pages_say(path, first, last, needles):
    """Theory 03 (CUDA section, timing), lab 03 (belief box, GPU sentences, pitfalls) and theory 00 (what Inductor
    emits) link these lines at the v2.13.0 tag; the wheel is 2.13.0."""
    assert torch.__version__.startswith("2.13.0")
    lines = (TORCH / path).read_text().splitlines()[first - 1:last]
    text = "\n".join(lines)
    for needle in needles:
        assert needle in text, (path, needle)
    anchor = f"blob/v2.13.0/torch/{path}#L{first}" + (f"-L{last}" if last != first else "")
    for lang in ("en", "es"):
        linked = "".join((PAGES / lang / page).read_text()
                         for page in ("theory/00-why-open-the-hood.md", "theory/03-compile.md",
                                      "labs/03-compile-and-survey.md"))
        assert anchor in linked, (lang, anchor)
