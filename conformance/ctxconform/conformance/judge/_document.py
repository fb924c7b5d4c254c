"""A spec's document as text: its sentences, which of them are normative, and which the registry's quotes cover.

The documents are plain text as published (Markdown, or a web page copied out): paragraphs wrapped across lines, list
items, tables, headings and code blocks. A sentence ends at `.`, `!` or `?` followed by a space and a capital (not
after an abbreviation or an ellipsis), at a line ending in one of them, at a blank line, and where a list item, a
heading or a table row starts; each line of a code block is a sentence of its own, except that a list item there
continues on its deeper-indented lines. Quotes and sentences are compared with white space collapsed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ctxconform.conformance.judge._registry import Informative, Registry, Requirement

__all__ = [
    "DocumentCheck",
    "Sentence",
    "check_document",
    "covers",
    "document_file",
    "normative_keywords",
    "quote_found",
    "sentences",
    "squeeze",
]

# RFC 2119 keywords in capitals, and the lower-case words a plain-text spec uses as they are meant ("shouldn't" is not).
_UPPER: Final = re.compile(r"\b(MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b")
_LOWER: Final = re.compile(r"\b(must not|must|shall not|shall|should not|should|required)\b(?![\w'\u2019])")
_FENCE: Final = re.compile(r"^\s*(```|~~~)")
_RULE: Final = re.compile(r"^\s*([-*_=])(\s*\1){2,}\s*$")
_HEADING: Final = re.compile(r"^\s*(#{1,6}\s|\u00a7)|\u00b6\s*$|\u00a7\s*$")
_TABLE_RULE: Final = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_ITEM: Final = re.compile(r"^(\s*)([-*+\u2022\u25e6]|\d{1,3}[.)])\s+")
_MARKER: Final = re.compile(r"^(?:[-*+\u2022\u25e6]|\d{1,3}[.)])\s+")
# A sentence break: a terminator (and what may close it) and white space, then what may open a sentence.
_BREAK: Final = re.compile(r"(?<=[.!?])([\"'\u201d\u2019)\]`*]*)\s+(?=[A-Z0-9\"'\u201c\u2018`(*<\u2022-])")
_LINE_END: Final = re.compile(r"[.!?][\"'\u201d\u2019)\]`*]*\s*$")
_NUMBER: Final = re.compile(r"[#\s]*\d+(\.\d+)*\.")  # a list item's or a heading's number, not a sentence
_INITIAL: Final = re.compile(r"[A-Z]\.")
_ABBREVIATIONS: Final = frozenset({"e.g.", "i.e.", "vs.", "cf.", "approx.", "incl.", "no.", "fig.", "e.g.,", "i.e.,"})


def squeeze(text: str) -> str:
    """Collapse runs of white space to one space and strip the ends: how quotes and documents are compared."""
    return re.sub(r"\s+", " ", text).strip()


def quote_found(quote: str, squeezed_text: str) -> bool:
    """Whether a quote is in a document's text (already squeezed), white space aside."""
    return squeeze(quote) in squeezed_text


def document_file(registry: Registry, folder: Path) -> Path:
    """Where a registry's document is in a folder of spec texts: the file the registry names."""
    return folder / registry.document


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document: its text (white space collapsed, list marker dropped) and the line it starts on."""

    text: str
    line: int

    @property
    def keywords(self) -> tuple[str, ...]:
        """The RFC 2119 keywords it holds, in capitals, in order of appearance."""
        return normative_keywords(self.text)

    @property
    def normative(self) -> bool:
        """Whether it holds an RFC 2119 keyword."""
        return bool(self.keywords)


def normative_keywords(text: str) -> tuple[str, ...]:
    """The RFC 2119 keywords of a text in capitals, and the lower-case must/shall/should/required, as capitals."""
    found = [(m.start(), m.group(1)) for m in _UPPER.finditer(text)]
    found += [(m.start(), m.group(1).upper()) for m in _LOWER.finditer(text)]
    return tuple(keyword for _, keyword in sorted(found))


def covers(quote: str, sentence: str) -> bool:
    """Whether a quote covers a sentence: one holds the other, white space collapsed."""
    quote, sentence = squeeze(quote), squeeze(sentence)
    return bool(quote and sentence) and (quote in sentence or sentence in quote)


def sentences(text: str) -> list[Sentence]:
    """Split a document into sentences (see the module's docstring for where one ends)."""
    return [
        Sentence(text=cleaned, line=line)
        for line, unit, whole in _units(text.splitlines())
        for piece in ([unit] if whole else _split(unit))
        if (cleaned := _clean(piece))
    ]


def _units(lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """The blocks no sentence crosses, each with its first line and whether it is one sentence whole (heading, row)."""
    current: list[str] = []
    start = 0
    code = False
    item_indent: int | None = None  # the indentation of the list item the current unit is, if it is one

    def flush(*, whole: bool = False) -> Iterator[tuple[int, str, bool]]:
        nonlocal current, item_indent
        if current:
            yield start, " ".join(current), whole
        current, item_indent = [], None

    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if _FENCE.match(line):
            yield from flush()
            code = not code
            continue
        if not stripped or (not code and (_RULE.match(line) or _TABLE_RULE.match(line))):
            yield from flush()
            continue
        item = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        continues = (
            bool(current)
            and item is None
            and not _starts_block(stripped, code=code)
            and (indent > item_indent if code and item_indent is not None else not code)
            and not (_LINE_END.search(current[-1]) and _ends_sentence(current[-1]))
        )
        if continues:
            current.append(stripped)
        else:
            yield from flush()
            current, start = [stripped], number
            item_indent = len(item.group(1)) if item else None
            if _starts_block(stripped, code=code):
                yield from flush(whole=True)
    yield from flush()


def _starts_block(stripped: str, *, code: bool) -> bool:
    """Whether a line is a block of its own outside code: a heading or a table row."""
    return not code and (bool(_HEADING.search(stripped)) or stripped.startswith("|"))


def _split(unit: str) -> Iterator[str]:
    """Split one unit at its sentence breaks, never after an abbreviation or an ellipsis."""
    begin = 0
    for match in _BREAK.finditer(unit):
        end = match.start(1)
        if not _ends_sentence(unit[begin:end]) or _NUMBER.fullmatch(unit[begin:end]):
            continue
        yield unit[begin : match.end(1)]
        begin = match.end()
    yield unit[begin:]


def _ends_sentence(text: str) -> bool:
    """Whether a terminator ending `text` ends a sentence: not that of an abbreviation, an initial or an ellipsis."""
    text = text.rstrip().rstrip("\"'\u201d\u2019)]`*")
    last = text.split()[-1] if text.split() else ""
    return not (last.lower() in _ABBREVIATIONS or text.endswith("..") or _INITIAL.fullmatch(last))


def _clean(piece: str) -> str:
    """A sentence as compared: white space collapsed, a leading list marker and table pipes dropped."""
    text = squeeze(piece)
    text = _MARKER.sub("", text)
    if text.startswith("|"):
        text = text.strip("|").strip()
    return text


@dataclass(frozen=True)
class DocumentCheck:
    """A version of a spec's document checked against its registry: stale quotes and uncovered normative sentences."""

    spec: str
    stale: tuple[Requirement, ...]
    stale_informative: tuple[Informative, ...]
    sentences: tuple[Sentence, ...]
    uncovered: tuple[Sentence, ...]

    @property
    def normative(self) -> tuple[Sentence, ...]:
        """The document's normative sentences."""
        return tuple(s for s in self.sentences if s.normative)

    @property
    def clean(self) -> bool:
        """Whether no quote is stale and every normative sentence is covered."""
        return not (self.stale or self.stale_informative or self.uncovered)


def check_document(registry: Registry, text: str) -> DocumentCheck:
    """Check a version of a spec's document against its registry."""
    squeezed = squeeze(text)
    found = tuple(sentences(text))
    quotes = [*(r.quote for r in registry.requirements), *(i.quote for i in registry.informative)]
    return DocumentCheck(
        spec=registry.spec,
        stale=tuple(r for r in registry.requirements if not quote_found(r.quote, squeezed)),
        stale_informative=tuple(i for i in registry.informative if not quote_found(i.quote, squeezed)),
        sentences=found,
        uncovered=tuple(s for s in found if s.normative and not _covered(s, quotes)),
    )


def _covered(sentence: Sentence, quotes: Iterable[str]) -> bool:
    return any(covers(quote, sentence.text) for quote in quotes)
