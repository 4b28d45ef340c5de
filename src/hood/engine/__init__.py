"""The engine: runs each block once from a known state, caches it, normalises its output, compares it with its
trace, reports problems and blesses. It knows nothing of MkDocs: `hood.mkdocs_plugin` wires it in.

A block flows through it like this: the plugin sees a `python exec` block, the engine looks it up (memo for this
build, cache for authors) or runs it, the output is normalised and compared with the block's committed trace,
and any problem names the page, the block and the fix.
"""
