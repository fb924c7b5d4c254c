"""A report document as indented JSON text, written at native speed."""

from __future__ import annotations

import json

from pydantic_core import PydanticSerializationError, to_json

__all__ = ["indented_json"]


def indented_json(document: object) -> str:
    """`document` as JSON indented by two spaces, non-ASCII text as itself, and a final newline.

    The standard library indents with its pure-Python encoder, 0.17 s for a whole run's report; pydantic-core's
    encoder writes the same document in 0.03 s. It cannot write a lone surrogate, which the standard library can:
    such a document is written that way instead (and the surrogate escaped when the file is written).
    """
    try:
        return to_json(document, indent=2).decode("utf-8") + "\n"
    except PydanticSerializationError:
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
