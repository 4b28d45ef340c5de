"""`hood.engine.normalize` on real outputs of torch 2.13.0 (tests/samples/, captured from this torch)."""

from pathlib import Path

import pytest

from hood.engine.normalize import RULES, normalise, normalise_profiler_table

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text()


def test_rules_have_unique_names():
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))


def test_grad_fn_addresses_are_hidden():
    out = normalise(sample("grad_fn_repr.txt"))
    assert "<AddmmBackward0 object at 0x<addr>>" in out
    assert "0x7" not in out


def test_dispatch_table_keeps_keys_and_kernel_kinds_but_not_build_paths():
    raw = sample("dispatch_table_addmm.txt")
    out = normalise(raw)
    assert "CPU: registered at <torch-src>/build/aten/src/ATen/RegisterCPU_2.cpp:<line> [kernel]" in out
    assert "Meta: registered at <site-packages>/torch/_meta_registrations.py:<line> [kernel]" in out
    assert "/__w/" not in out and "site-packages/torch" not in out.replace("<site-packages>/torch", "")
    assert out.count("\n") == raw.count("\n")


def test_profiler_table_compares_names_shapes_and_counts_only():
    out = normalise(sample("profiler_table.txt"))
    lines = out.splitlines()
    assert lines[0] == "profiler table: Name | # of Calls | Input Shapes"
    rows = lines[1:-1]
    assert rows == sorted(rows)
    assert "aten::linear | 1 | [[2, 64], [600, 64], [600]]" in rows
    assert "AddmmBackward0 | 1 | [[2, 600]]" in rows
    assert "aten::t | 2 | [[600, 64]]" in rows
    assert lines[-1] == "Self CPU time total: <time>"
    assert "%" not in out


def test_profiler_rows_in_another_order_normalise_the_same():
    raw = sample("profiler_table.txt").splitlines(keepends=True)
    swapped = raw[:3] + [raw[4], raw[3]] + raw[5:]
    assert normalise_profiler_table("".join(swapped)) == normalise_profiler_table("".join(raw))


def test_torch_logs_lose_their_prefix_and_user_paths():
    out = normalise(sample("torch_logs.txt"))
    first = out.splitlines()[0]
    assert first == "[0/0] [__graph_breaks] Graph break in user code at <tmp>.py"
    assert "V1121" not in out
    assert 'File "<tmp>.py", line <line>, in f' in out


def test_fx_graph_file_comments_and_resume_functions():
    out = normalise(sample("dynamo_graph.txt"))
    assert "# File: <tmp>.py in f, code: y = torch.sin(x)" in out
    assert "torch_dynamo_resume_in_f_at_<n>" in out


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("__compiled_fn_1_dde92325_cae3_4342_84ed_b420763faa91", "__compiled_fn_<n>"),
        ("# AOT ID: ['3_inference']", "# AOT ID: ['<n>_inference']"),
        ("id 2c1b6f0e-8a51-4a3e-9d0c-35a7cbb3b0c4 done", "id <uuid> done"),
        ("\x1b[1m\x1b[32mall_reduce\x1b[0m: 2", "all_reduce: 2"),
        ("took 12.5ms (3.2%)", "took <time> (<pct>)"),
        ("data_ptr=94251632401216", "data_ptr=<ptr>"),
    ],
)
def test_small_rules(raw, expected):
    assert normalise(raw) == expected


def test_project_root_becomes_repo():
    assert normalise("/home/me/site/snippets/a.py", root="/home/me/site") == "<repo>/snippets/a.py"


def test_normalising_is_idempotent():
    for name in ["grad_fn_repr.txt", "dispatch_table_addmm.txt", "profiler_table.txt", "torch_logs.txt"]:
        once = normalise(sample(name))
        assert normalise(once) == once


def test_a_blocks_file_name_and_a_notebook_cells_are_the_same_cell():
    from hood.engine.normalize import normalise_text

    build = "# File: <theory/03-compile.md#setup>:27 in head, code: return torch.softmax(F.linear(x, W, b), dim=-1)"
    notebook = ("# File: /tmp/ipykernel_24011/2106551638.py:27 in head, code: "
                "return torch.softmax(F.linear(x, W, b), dim=-1)")
    assert normalise_text(build) == normalise_text(notebook) == (
        "# File: <cell> in head, code: return torch.softmax(F.linear(x, W, b), dim=-1)")
    assert normalise_text("Graph break in user code at <theory/03-compile.md#graph-break>") == \
        "Graph break in user code at <cell>"
    assert normalise_text("Recompiling function head in /tmp/ipykernel_1/2.py:25") == \
        "Recompiling function head in <cell>"  # a notebook prints the line, a block's message does not
