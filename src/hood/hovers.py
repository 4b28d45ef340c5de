"""The glossary's hovers: Python-Markdown's `abbr`, also finding a term that the Markdown source breaks over two
lines (`process\ngroup`), which the stock extension misses because it matches the spaces literally."""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions.abbr import AbbrExtension, AbbrTreeprocessor


class _AnySpacing(dict):
    """Abbreviations looked up with any run of whitespace read as one space."""

    def __getitem__(self, text: str) -> str:
        return super().__getitem__(" ".join(text.split()))


class WrappedTermTreeprocessor(AbbrTreeprocessor):
    """Wraps each abbreviation in `<abbr>`, letting any whitespace, a line break included, stand between its words."""

    def run(self, root: etree.Element) -> None:
        if not self.abbrs:
            return
        words = sorted(self.abbrs, key=len, reverse=True)
        self.RE = re.compile(r"\b(?:" + "|".join(r"\s+".join(map(re.escape, w.split())) for w in words) + r")\b")
        defined, self.abbrs = self.abbrs, _AnySpacing(self.abbrs)
        try:
            self.iter_element(root)
        finally:
            self.abbrs = defined


class GlossaryHovers(AbbrExtension):
    """`abbr`, with `WrappedTermTreeprocessor` in place of its tree processor."""

    def extendMarkdown(self, md: Markdown) -> None:
        super().extendMarkdown(md)
        md.treeprocessors.register(WrappedTermTreeprocessor(md, self.abbrs), "abbr", 7)


def makeExtension(**kwargs) -> GlossaryHovers:
    """The extension, for `markdown_extensions: [hood.hovers]`."""
    return GlossaryHovers(**kwargs)
