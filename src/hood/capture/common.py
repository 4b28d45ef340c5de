"""Helpers every page's setup block includes first: the pieces several capture modules share.

- `max_diff`: a floating-point comparison that prints the same on every machine;
- `key_names`: the names in a dispatch key set;
- `dispatch_table`: an operator's computed dispatch table, as entries by key;
- `words` and `localize`: a phrase in every language inside one output, shown in the page's language;
- `decimal` and `grouped`: a number in every language, with its decimal mark or its thousands grouped.

A printed number is a claim. `max_diff` judges the largest difference between two tensors against a fixed
tolerance that the page states, and refuses to print when the difference sits near that tolerance: the last
bits of a floating-point result change with the CPU (vector width, BLAS code path), so a value close to its
tolerance would read differently on the next machine.
"""

# --8<-- [start:body]
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads when a block needs it, not when the site build reads `localize`
    import torch

MARGIN = 10.0
"""How far from its tolerance a difference must be, as a factor, on either side, to be printed."""


class FragileComparison(ValueError):
    """A difference too close to its tolerance to read the same on every machine."""


@dataclass(frozen=True)
class Agreement:
    """The largest absolute difference between two tensors, judged against a fixed tolerance.

    Attributes:
        diff: The largest absolute difference (not printed: its last digits depend on the machine).
        tol: The tolerance the page states.
    """

    diff: float
    tol: float

    @property
    def within(self) -> bool:
        """Whether the difference is under the tolerance."""
        return self.diff < self.tol

    def __str__(self) -> str:
        return f"{'<' if self.within else '>'} {self.tol:.0e}"


def max_diff(a: "torch.Tensor", b: "torch.Tensor", tol: float) -> Agreement:
    """`max |a - b|` judged against `tol`; prints as `< tol` or `> tol`.

    Raises:
        FragileComparison: when the difference is within `MARGIN` times of `tol` on either side; choose a
            tolerance that the difference clears by a wide margin.
    """
    diff = (a.detach() - b.detach()).abs().max().item()
    if tol / MARGIN <= diff <= tol * MARGIN:
        raise FragileComparison(
            f"max |a - b| = {diff:.3g} is within {MARGIN:g}x of the tolerance {tol:g}: it may print differently on "
            f"another CPU. Use a tolerance at least {MARGIN:g}x away from it."
        )
    return Agreement(diff=diff, tol=tol)


def all_within(pairs, tol: float) -> bool:
    """Whether every `(a, b)` pair agrees within `tol`, each judged by `max_diff` (so none sits near `tol`)."""
    return all(max_diff(a, b, tol).within for a, b in pairs)


def key_names(key_set) -> tuple[str, ...]:
    """The names in a `DispatchKeySet`, lowest priority first (as its repr lists them)."""
    inner = re.fullmatch(r"DispatchKeySet\((.*)\)", repr(key_set))
    return tuple(k.strip() for k in inner.group(1).split(",") if k.strip()) if inner else ()


_TABLE_ROW = re.compile(
    r"^(?P<key>\w+): (?P<fallthrough>fallthrough )?registered at (?P<path>\S+?)(?::\d+)? \[(?P<kind>[^\]]+)\]$")


@dataclass(frozen=True)
class TableEntry:
    """One computed entry of an operator's dispatch table (`torch._C._dispatch_dump_table`).

    Attributes:
        key: The dispatch key, e.g. `AutogradCPU`.
        kind: `kernel`, `math kernel` (CompositeImplicitAutograd), `autograd kernel`, `backend fallback`...
        fallthrough: Whether the entry just passes the call on to the next key.
        path: The file that registered it, as the table prints it (without its line number).
    """

    key: str
    kind: str
    fallthrough: bool
    path: str


def dispatch_table(op: str) -> dict[str, TableEntry]:
    """The computed dispatch table of `op` (e.g. `aten::addmm`), by key."""
    import torch

    entries = {}
    for line in torch._C._dispatch_dump_table(op).splitlines():
        match = _TABLE_ROW.match(line.strip())
        if match:
            entries[match["key"]] = TableEntry(match["key"], match["kind"], bool(match["fallthrough"]), match["path"])
    return entries


LANGUAGES = ("en", "es")
"""The site's languages, the default first."""

PAGE_LANGUAGE = globals().get("PAGE_LANGUAGE", "")
"""The one language `words` prints. Empty on the site, which prints every language and shows the page's; a page's
notebook, script and `setup.py` set it to the page's language before this line runs."""

_WORDS = re.compile("\u27e6(.*?)\u27e7", re.DOTALL)
_SEPARATOR = "\u241f"


def words(**by_language: str) -> str:
    """One phrase in every language, as a marker inside an output: `words(en="batch 2", es="lote 2")`.

    A block runs once for every language, so what it prints must not depend on the page's language; the site
    replaces each marker with the phrase in the page's language when it renders the output (`localize`). Where
    `PAGE_LANGUAGE` is set (a page's download), the phrase in that language is returned instead of a marker.
    """
    if PAGE_LANGUAGE:
        return by_language.get(PAGE_LANGUAGE, by_language.get(LANGUAGES[0], ""))
    return "\u27e6" + _SEPARATOR.join(f"{language}={text}" for language, text in by_language.items()) + "\u27e7"


def localize(text: str, language: str) -> str:
    """`text` with every `words` marker replaced by its phrase in `language` (English when it has none)."""
    def pick(match: re.Match) -> str:
        phrases = dict(part.split("=", 1) for part in match.group(1).split(_SEPARATOR))
        return phrases.get(language, phrases.get(LANGUAGES[0], ""))
    return _WORDS.sub(pick, text)


DECIMAL_MARK = {"en": ".", "es": ","}
"""The decimal mark of each language: Spanish writes 0,21 where English writes 0.21."""


THOUSANDS = {"en": (",", 4), "es": ("\u00a0", 5)}
"""Each language's thousands separator and the fewest digits it groups: 1,024 and 10,240 in English; 1024 but
10 240 in Spanish, grouped by a no-break space (a line never breaks inside a number)."""


def number(value: float, spec: str, language: str) -> str:
    """`value` formatted with `spec` (e.g. `9.1f`) in the way of `language`: its decimal mark, and its thousands
    grouped by the rule of `THOUSANDS` (`12,345.6` and `1,024` in English, `12 345,6` and
    `1024` in Spanish); a width in
    `spec` counts the separators, so columns stay aligned."""
    separator, fewest = THOUSANDS.get(language, THOUSANDS[LANGUAGES[0]])
    text = format(value, spec)
    if len(re.match(r"\s*[-+]?(\d*)", text)[1]) >= fewest:
        text = format(value, re.sub(r"(?=(\.\d+)?[a-zA-Z%]?$)", ",", spec, count=1))
    return text.translate(str.maketrans({",": separator, ".": DECIMAL_MARK.get(language, ".")}))


def decimal(value: float, spec: str = ".2f") -> str:
    """`value` formatted by `spec` in every language (`words`): `0.21` in English, `0,21` in Spanish."""
    return words(**{language: number(value, spec, language) for language in DECIMAL_MARK})


def grouped(n: int) -> str:
    """`n` with its thousands grouped in every language (`words`): `4,202,496` in English, `4 202 496` in Spanish."""
    return words(**{language: number(n, "d", language) for language in LANGUAGES})


def widest(text: str) -> int:
    """The length of `text` in its longest language (how much room a label needs)."""
    return max(len(localize(text, language)) for language in LANGUAGES)
# --8<-- [end:body]
