"""Lab 01: autograd by hand, on linear(x, W, b) and on a two-layer MLP."""
