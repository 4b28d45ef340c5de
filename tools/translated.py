"""Mark a translated page as up to date with its English page: `python -m tools.translated PAGE [LANGUAGE]`.

Run it once the translation of `docs/<LANGUAGE>/PAGE` (default `es`) says what `docs/en/PAGE` says: it writes the
English page's current hash into the translated page's front matter (`translated_from`), which the check build
compares with the English page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hood.engine.translations import mark

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    """Mark each page named in `argv` (`all` for every page), in the language given by `--lang` (default es)."""
    language = "es"
    if "--lang" in argv:
        at = argv.index("--lang")
        language, argv = argv[at + 1], argv[:at] + argv[at + 2:]
    english_root, translated_root = ROOT / "docs" / "en", ROOT / "docs" / language
    pages = ([str(p.relative_to(english_root)) for p in sorted(english_root.rglob("*.md"))] if argv == ["all"]
             else argv)
    if not pages:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    for page in pages:
        english, translated = english_root / page, translated_root / page
        if not english.is_file() or not translated.is_file():
            print(f"no page {page}: both docs/en/{page} and docs/{language}/{page} must exist", file=sys.stderr)
            return 1
        translated.write_text(mark(translated.read_text(encoding="utf-8"), english.read_text(encoding="utf-8")),
                              encoding="utf-8")
        print(f"docs/{language}/{page} translates the current docs/en/{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
