"""Lab 03, the sentences that generalise or explain: each tried on a real output (kernel, wrapper, fresh process)."""

import contextlib
import io
import os
import subprocess
import sys
import textwrap

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from hood.capture.common import localize
from hood.capture.compile_timing import Timing
from snippets.compile.heads import TinyHead
from snippets.lab03.attention import calls_with_buffers, compile_attention
from tests.sitekit import ROOT

pytestmark = pytest.mark.usefixtures("like_a_block")


@pytest.fixture(scope="module")
def attention():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = compile_attention()
    return code, out.getvalue()


def test_attention_kernels_and_the_buffers_they_are_handed(attention):
    code, printed = attention
    assert localize(printed, "en").splitlines()[0] == "library calls: 4, generated kernels: 3"
    assert localize(printed, "es").splitlines()[0] == "kernels externos: 4, kernels generados: 3"
    calls = calls_with_buffers(code)
    assert [name.split("_")[0] if name.startswith("cpp") else name for name, _ in calls] == [
        "extern_kernels.addmm", "cpp", "extern_kernels.bmm", "cpp", "extern_kernels.bmm", "cpp",
        "extern_kernels.addmm"]
    (first, _), (softmax, handed), (third, _) = [c for c in calls if c[0].startswith("cpp")]
    assert first == "cpp_fused_clone_split_transpose_view_0" and third == "cpp_fused_clone_transpose_view_2"
    assert softmax.startswith("cpp_fused__softmax_") and all(w in softmax for w in ("clone", "split", "transpose"))
    assert handed == ["buf7", "buf0", "buf4", "buf6", "buf8"]
    assert dict(calls[0:1])["extern_kernels.addmm"][-1] == "out buf0"
    assert calls[4] == ("extern_kernels.bmm", ["buf7", "buf8", "out buf9"])  # the second bmm reads buf8: v
    assert calls[2] == ("extern_kernels.bmm", ["buf1", "buf2", "out buf3"])
    assert "buf7 = buf5" in code.call and "buf5 = reinterpret_tensor(buf3" in code.call


def test_the_softmax_kernel_copies_v_in_a_loop_nest_that_does_not_feed_the_softmax(attention):
    code, _ = attention
    (name,) = [k for k in code.kernels if "softmax" in k]
    kernel = code.kernels[name]
    # v is the last third of the 192 columns of buf0 (in_ptr1): offset 128, written to out_ptr2 (buf8)
    assert "in_ptr1 + static_cast<int64_t>(128L + x3" in kernel
    assert kernel.rfind("in_out_ptr0 +") < kernel.find("in_ptr1 +")  # after the last softmax access
    assert "in_ptr1" not in kernel[:kernel.rfind("in_out_ptr0 +")].split("{", 1)[1]
    first = code.kernels["cpp_fused_clone_split_transpose_view_0"]
    assert "in_ptr0 + static_cast<int64_t>(x3 + 16L*x1" in first and "in_ptr0 + static_cast<int64_t>(64L + x1" in first


def test_eager_launches_the_same_two_computing_kernels_as_the_compiled_head():
    """Part E's prose: eager calls addmm and one softmax kernel; `t` is a view (no kernel)."""
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func.overloadpacket.__name__))
            return func(*args, **(kwargs or {}))

    model, x = TinyHead().eval(), torch.randn(2, 64)
    with torch.no_grad(), Record():
        model(x)
    assert seen == ["t", "addmm", "_softmax"]


FRESH = textwrap.dedent("""
    import os, torch
    import torch._inductor.config as config
    from torch._inductor.utils import run_and_get_code
    torch.manual_seed(42)
    head = torch.nn.Sequential(torch.nn.Linear(64, 600), torch.nn.Softmax(dim=-1))
    with config.patch({"cpp.simdlen": 256}), torch.no_grad():
        _, (code,) = run_and_get_code(torch.compile(head), torch.randn(2, 64))
    print(torch.get_num_threads(), os.cpu_count(), config.cpp.threads)
    print([line.strip() for line in code.splitlines() if "#pragma omp parallel" in line])
""")


def test_a_default_run_writes_omp_parallel_without_num_threads(tmp_path):
    """The kernel box: with Inductor's default `cpp.threads` (-1) and torch's threads equal to the CPU count,
    the pragma has no `num_threads`; the site pins `cpp.threads = 2` and prints `num_threads(2)`."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "TORCHINDUCTOR_CACHE_DIR")}
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path)
    env["OMP_NUM_THREADS"] = str(os.cpu_count())
    run = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, env=env, timeout=600)
    threads, cpus, setting = run.stdout.splitlines()[-2].split()
    assert threads == cpus and setting == "-1", run.stdout
    assert run.stdout.splitlines()[-1] == "['#pragma omp parallel']"
    kernel = (ROOT / "traces" / "labs" / "03-compile-and-survey" / "kernel.txt").read_text()
    assert "#pragma omp parallel num_threads(2)" in kernel


def test_the_report_writes_spanish_numbers_with_a_decimal_comma():
    from snippets.lab03.report import lab03_report
    from hood.capture.common import Agreement

    report = lab03_report(Agreement(1e-8, 1e-6), True, [Timing(2, 16.5, 78.6), Timing(64, 20.1, 48.0)])
    spanish, english = localize(report, "es"), localize(report, "en")
    assert "| 2 | 16,5 | 78,6 | 0,21 |" in spanish and "lote 2: 0,21" in spanish
    assert "| 2 | 16.5 | 78.6 | 0.21 |" in english and "batch 2: 0.21" in english
    assert "diferencia absoluta máxima < 1e-06: **True**" in spanish
    assert "max abs diff < 1e-06: **True**" in english and "all checks hold: **True**" in english


def test_the_lab_sends_nobody_to_a_module_or_a_clone_and_its_setup_holds_no_answer():
    for language in ("en", "es"):
        page = (ROOT / "docs" / language / "labs" / "03-compile-and-survey.md").read_text()
        assert "python -m snippets" not in page and "clone" not in page.split("## ")[0]
        setup = page[page.index('id="setup"'):page.index("```", page.index('id="setup"'))]
        for answer in ("kernel_annotation.py", "inductor_code.py", "aot_graphs.py", "lab03/timing.py",
                       "compile_head.py", "survey.py:survey"):
            assert answer not in setup
        assert page.count('--8<-- "hood/labkit.py:body"') == 1
        assert ("**Time** about 210 minutes." if language == "en" else "**Tiempo** unos 210 minutos.") in page


def _batch_256_kernel(kernel_threads):
    from torch._inductor.utils import run_and_get_code

    from snippets.compile.heads import AVX2, TinyHead, inductor_config

    torch._dynamo.reset()
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with inductor_config.patch({**AVX2, "cpp.threads": kernel_threads}), torch.no_grad():
            return "\n".join(run_and_get_code(torch.compile(TinyHead().eval()), torch.randn(256, 64))[1])
    finally:
        torch.set_num_threads(previous)


def test_time_head_times_a_one_thread_kernel_against_one_thread_eager():
    """This site's build (and the tip, for a pasted setup) pins Inductor's kernel threads to 2; Part E's timing
    patches them to its own thread count."""
    import inspect

    from snippets.lab03 import timing

    assert '"cpp.threads": threads' in inspect.getsource(timing.time_head)
    assert "num_threads(2)" in _batch_256_kernel(2)  # the setup's pin: a two-thread kernel
    assert "#pragma omp parallel" not in _batch_256_kernel(1)  # what Part E times: no OpenMP region at all
