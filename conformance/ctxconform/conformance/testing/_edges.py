"""Inputs at the edges, the ones real implementations get wrong: hostile names, wrong types, limits, degenerate text.

Each strategy draws its named cases on purpose (hypothesis shrinks towards the first of a `sampled_from`), so a dev
run meets every case class, not only what random text happens to hit. A suite narrows them to what its spec lets
through and checks every value meant to be valid against its schema.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from hypothesis import strategies as st

__all__ = [
    "AWKWARD_TEXTS",
    "DEGENERATE_TEXTS",
    "HOSTILE_NAMES",
    "NAME_PAIRS",
    "WRONG_TYPES",
    "around",
    "awkward_texts",
    "degenerate_texts",
    "hostile_names",
    "name_pairs",
    "sized_text",
    "wrong_types",
    "wrong_values",
]

HOSTILE_NAMES: Final[Sequence[str]] = (
    # path separators and dot segments: a name joined into a file path
    "..",
    ".",
    "a/b",
    "./a",
    "a/../b",
    "../x",
    "a\\b",
    "..\\x",
    "/etc/passwd",
    "/tmp",  # noqa: S108 - a hostile id, never a path the kit opens
    "C:\\x",
    "a/",
    # names that are special in common languages: a plain object used as a map
    "__proto__",
    "constructor",
    "toString",
    "hasOwnProperty",
    "prototype",
    "__class__",
    "__dict__",
    "null",
    "None",
    "undefined",
    "NaN",
    "0",
    "-1",
    "true",
    # control characters, white space, the empty string
    "",
    " ",
    " a",
    "a ",
    "a\nb",
    "a\rb",
    "a\tb",
    "a\x00b",
    "a\x1b[31mb",
    "\u202ea",
    "a\u200bb",
    # case and Unicode normalization variants of one another
    "A",
    "a",
    "\u00e9",
    "e\u0301",
    "\ufb01",
    "\u212a",
    "\u0130",
    # reserved or awkward as file names
    "CON",
    "nul",
    "a:b",
    "a*b",
    "a?b",
    "%2e%2e",
    "~",
    "-",
)
"""Identifiers that break code treating a caller's id as a path, a map key, a file name or a normal form."""

NAME_PAIRS: Final[Sequence[tuple[str, str]]] = (
    ("a", "a/b"),
    ("a", "a/"),
    ("a", "a.b"),
    ("a", "ab"),
    ("a/b", "a/./b"),
    ("a/b", "a/../a/b"),
    ("a", "A"),
    ("\u00e9", "e\u0301"),
    ("fi", "\ufb01"),
    ("k", "\u212a"),
    ("a", " a"),
    ("a", "a\x00"),
    ("x", "./x"),
    ("x", "../x"),
    ("__proto__", "constructor"),
)
"""Two distinct ids that code may confuse: a prefix or path parent, a case or normalization variant, a trailing NUL."""

WRONG_TYPES: Final[Sequence[Any]] = (
    None,
    0,
    1,
    -1,
    1.5,
    True,
    False,
    [],
    ["a"],
    ["a", "b", "c"],
    {},
    {"a": "b"},
    {"value": ["x"]},
    [[["nested"]]],
    "",
)
"""One value of every JSON type and shape, for a position the spec types as something else."""

DEGENERATE_TEXTS: Final[Sequence[str]] = ("", " ", "\n", "\r\n", "\t", " \n \n ", "\n\n\n", "\u00a0", "\ufeff")
"""Text that is empty, white space only or only line breaks: the content filters, merges and counts get wrong."""

AWKWARD_TEXTS: Final[Sequence[str]] = (
    "a\r\nb",
    "a\rb",
    "\ufeffa",
    "a\u2028b",
    "\U0001f600",
    "e\u0301",
    "a\x00b",
    "a\x1bb",
    "\ufffd",
    "\ud800",
    "\udfff",
    "a\ud800b",
)
"""Text with CR, CRLF, a BOM, a line separator, astral and combining characters, NUL, escapes and lone surrogates."""


def _variants(name: str) -> set[str]:
    """Case and normalization variants of a name other than itself."""
    forms = {name.upper(), name.lower(), name.casefold(), *(unicodedata.normalize(f, name) for f in ("NFC", "NFD", "NFKC"))}
    return forms - {name}


def hostile_names(*, max_size: int = 300) -> st.SearchStrategy[str]:
    """Hostile identifiers: the named cases first, then case and normalization variants, control characters, long ids."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    named = st.sampled_from(HOSTILE_NAMES)
    variants = st.sampled_from(HOSTILE_NAMES).flatmap(lambda n: st.sampled_from(sorted(_variants(n)) or [n]))
    controls = st.text(st.characters(max_codepoint=0x1F), min_size=1, max_size=3).map(lambda c: f"id{c}x")
    long = st.integers(min_value=64, max_value=max_size).map(lambda n: "a" * n)
    return st.one_of(named, variants, controls, long)


def name_pairs() -> st.SearchStrategy[tuple[str, str]]:
    """Two distinct ids that code may confuse, in either order."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    return st.sampled_from(NAME_PAIRS).flatmap(lambda pair: st.sampled_from([pair, pair[::-1]]))


def wrong_values(*, exclude: tuple[type, ...] = ()) -> list[Any]:
    """The named wrong values and 2**64, less `exclude`'s types: a finite set, so a test can send every one."""
    values = [*WRONG_TYPES, 2**64]
    # bool is an int in Python: excluding int must not let booleans through as the right type, nor the reverse.
    return [v for v in values if not (isinstance(v, exclude) and (type(v) is not bool or bool in exclude))]


def wrong_types(*, exclude: tuple[type, ...] = ()) -> st.SearchStrategy[Any]:
    """A JSON value of a type or shape other than the one a position takes (leave out `exclude`'s types)."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    named = st.sampled_from(wrong_values(exclude=exclude))
    if int in exclude:
        return named
    return st.one_of(named, st.integers(min_value=2**53, max_value=2**64))


def degenerate_texts() -> st.SearchStrategy[str]:
    """Empty, white-space-only and newline-only text."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    return st.sampled_from(DEGENERATE_TEXTS)


def awkward_texts(*, surrogates: bool = True) -> st.SearchStrategy[str]:
    """Text with CR, CRLF, BOM, NUL, escapes and (unless `surrogates` is false) lone surrogates."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    return st.sampled_from([t for t in AWKWARD_TEXTS if surrogates or not _has_surrogate(t)])


def around(limit: int, *, step: int = 1) -> st.SearchStrategy[int]:
    """A size one step under `limit`, exactly at it, or one step over, drawn on purpose."""
    from hypothesis import strategies as st  # noqa: PLC0415 - hypothesis takes 0.35 s to import

    return st.sampled_from([limit, limit - step, limit + step])


def sized_text(size: int, *, fill: str = "a") -> str:
    """Text of exactly `size` code points."""
    return (fill * (size // len(fill) + 1))[:size]


_SURROGATES: Final = range(0xD800, 0xE000)


def _has_surrogate(text: str) -> bool:
    return any(ord(c) in _SURROGATES for c in text)
