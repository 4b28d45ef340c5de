"""The site machinery: the only part of `hood` that knows about MkDocs and markdown-exec.

A block flows through it like this: the plugin sees a `python exec` block, the engine looks it up
(memo for this build, cache for authors) or runs it from a known state, the output is normalised and
compared with the block's committed trace, and any problem names the page, the block and the fix.
"""
