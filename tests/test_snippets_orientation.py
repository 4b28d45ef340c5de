"""What the orientation page says about `first_look()`'s output."""

import torch

from snippets.orientation.first_look import first_look


def test_first_look_records_addmm_backward(capsys):
    y = first_look()
    out = capsys.readouterr().out
    assert y.shape == (2, 600)
    assert type(y.grad_fn).__name__ == "AddmmBackward0"
    assert f"torch: {torch.__version__}" in out
    assert "y.shape: (2, 600)" in out
    assert "y.grad_fn: <AddmmBackward0 object at" in out
    assert "next_functions: ['AccumulateGrad', 'AccumulateGrad', 'TBackward0']" in out


def test_next_functions_lead_to_b_x_and_through_t_to_w():
    from snippets.running_example import running_example

    x, W, b = running_example()
    y = torch.nn.functional.linear(x, W, b)
    (n_b, _), (n_x, _), (n_t, _) = y.grad_fn.next_functions
    assert type(n_b).__name__ == type(n_x).__name__ == "AccumulateGrad"
    assert n_b.variable is b and n_x.variable is x
    assert type(n_t).__name__ == "TBackward0"
    assert n_t.next_functions[0][0].variable is W
