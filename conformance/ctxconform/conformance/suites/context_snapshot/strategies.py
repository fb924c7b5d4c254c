"""Hypothesis strategies of the suite: contents, paths, kinds and previews that the request schemas accept."""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

__all__ = ["CONTENTS", "KINDS", "PATHS", "TEXT", "WHITE_SPACE"]

KINDS: Final = ("file", "url", "snippet", "command", "image")
# Rust's char::is_whitespace: the characters a blank path is made of (the schema's definition).
WHITE_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Any Unicode scalar value: text that UTF-8 can encode (no lone surrogates).
TEXT: Final = st.characters(codec="utf-8")
CONTENTS: Final = st.one_of(
    st.binary(max_size=512),
    st.text(TEXT, max_size=200).map(str.encode),
    st.sampled_from([b"", b"\0", b"blob 0\0", b"\xff\xfe\x00\x01", b"\n" * 3, "snowman \u2603\n".encode()]),
)
PATHS: Final = st.text(TEXT, min_size=1, max_size=60).filter(lambda p: not all(c in WHITE_SPACE for c in p))
