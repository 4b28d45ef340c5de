"""Torch internals to plain data, and data to stable text: one module per topic.

Each capture function returns data (dataclasses, lists of records) that tests assert on; a separate
`render_*` function turns the same data into the text a page prints.
"""
