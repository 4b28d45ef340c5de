"""Lab 02's deliverables: `python -m snippets.lab02.run --out DIR` writes REPORT.md, opcheck.json,
generated_forward.py, generated_backward.py and manifest.json."""

import json
from pathlib import Path

import torch

from hood.labkit import manifest, run_lab, section
from hood.stdout import printed
from snippets.custom_ops.checks import check_scaled_linear
from snippets.custom_ops.compare_tables import compare_tables
from snippets.custom_ops.head import compiled_head, head_trace
from snippets.custom_ops.no_fake import without_fake
from snippets.custom_ops.redefine import redefine_pitfall
from snippets.custom_ops.reference import against_reference
from snippets.custom_ops.scaled_linear import define_scaled_linear

SEED = 42
"""The running example's seed."""


def build() -> dict[str, str]:
    """Run every step of the lab and lay out the deliverables (file name -> text)."""
    scaled_linear = define_scaled_linear()
    _, reference = printed(against_reference, scaled_linear)
    (_, _, opcheck), checks = printed(check_scaled_linear, scaled_linear)
    _, tables = printed(compare_tables)
    _, trace = printed(head_trace)
    (codes, _, _), compiled = printed(compiled_head)
    _, no_fake = printed(without_fake)
    _, redefine = printed(redefine_pitfall)
    report = "\n".join([
        "# Lab 02 · A custom op end to end: report\n",
        "Objective: register `hood::scaled_linear(x, W, b, scale) = scale * (x @ W.T + b)` with "
        "`torch.library.custom_op`, give it a fake kernel and a backward, check it, find it in the "
        "dispatcher, and run it inside `torch.compile(fullgraph=True)`. Every block below was printed by "
        f"torch {torch.__version__} while this report was written.\n",
        section("1. The op against its reference", reference,
                "The op computes what `F.linear(x, W, b) * scale` computes, and its hand-written backward "
                "gives the same three gradients as autograd does through the reference."),
        section("2. gradcheck, gradgradcheck, opcheck", checks,
                "The backward matches finite differences; it is built from differentiable torch ops, so "
                "its own gradient (gradgradcheck) is right too. opcheck's four tests pass: the schema, "
                "the autograd registration, the fake kernel against the real one, and AOT dispatch. "
                "The same results are in `opcheck.json`."),
        section("3. The dispatch table, next to aten::addmm", tables,
                "`custom_op` registers three kernels (Meta, Autograd, CompositeExplicitAutograd) whose "
                "table rows call back into Python; `register_fake` and `register_autograd` fill them in. "
                "`aten::addmm` has an autocast kernel; for the custom op, `AutocastCPU` falls through."),
        section("4. What a TorchDispatchMode sees", trace,
                "Below the autograd key, the whole matmul, bias and scale are one call, "
                "`hood.scaled_linear.default`, followed by the log-softmax and the `detach` autograd makes "
                "when it saves log-softmax's output for the backward."),
        section("5. Compiled with fullgraph=True", compiled,
                "The forward wrapper calls the op as it is, opaquely, next to Inductor's fused "
                "log-softmax kernel; the backward wrapper has no call to the op: AOTAutograd traced the "
                "registered backward into plain ATen ops (two `mm`, a fused multiply and a sum). "
                "The full wrappers are in `generated_forward.py` and `generated_backward.py`."),
        section("6. Without register_fake", no_fake,
                "Real tensors never need the fake kernel. Meta tensors, torch.compile (which traces "
                "with fake tensors) and opcheck's fake-tensor test all fail with the same message."),
        section("7. Pitfall: one name, two definitions", redefine,
                "A second `custom_op` with the same name replaces the first without a word; the operator "
                "then behaves as the second definition says. Define each op once, in a module imported once."),
    ])
    return {
        "REPORT.md": report,
        "opcheck.json": json.dumps(opcheck, indent=2) + "\n",
        "generated_forward.py": codes[0],
        "generated_backward.py": codes[1],
    }


def main(argv=None) -> list[Path]:
    """Write the deliverables into `--out DIR` and print their paths."""
    code = sorted([*Path(__file__).parent.glob("*.py"), *(Path(__file__).parents[1] / "custom_ops").glob("*.py")])
    meta = manifest(lab="lab02-custom-op", seed=SEED, code=code)
    return run_lab("Lab 02: a custom op end to end", build(), meta, argv)


if __name__ == "__main__":
    main()
