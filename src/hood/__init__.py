"""Under the Hood: turn PyTorch internals into clean, stable text, and build the site that shows them.

- `hood.capture`: torch internals to plain data, text and figures, one module per topic.
- `hood.engine`: run each block once from a known state, cache, normalise, compare with traces, report, bless;
  no MkDocs in it.
- `hood.mkdocs_plugin`: the only module that imports MkDocs; it wires the engine into the site build.
- `hood.compat`: every reliance on another package's internals, checked against the pinned releases.
- `hood.labkit`: what the lab runners share.
"""
