"""Under the Hood: turn PyTorch internals into clean, stable text, and build the site that shows them.

- `hood.capture`: torch internals to plain data and text, one module per topic.
- `hood.normalize`: what a trace keeps of an output, so that only real changes count as drift.
- `hood.build`: the site machinery (run each block once, cache, traces, drift, bless).
"""
