"""Chapter 2: the autograd engine, its graph, hooks and grad modes."""
