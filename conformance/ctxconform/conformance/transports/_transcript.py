"""The last calls of an implementation and what came back, kept for the report of a test that does not pass."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from ctxconform.conformance.judge._clip import clip, clip_text

__all__ = ["Exchange", "Transcript"]

Json = dict[str, Any]
# A message whose JSON text is at most this long is kept as that text, and clipped only if a report shows it;
# a longer one (a reply may take 64 MiB) is clipped at once, so that a transcript stays small.
_KEPT_TEXT: Final = 64 * 1024


@dataclass(frozen=True)
class Exchange:
    """One call and what came back, for reports and replays."""

    call: Json
    reply: Json | None
    failure: str | None = None


class Transcript:
    """The last `size` exchanges, each frozen when it happens and clipped when it is read.

    Most tests pass and their transcripts are never read, so an exchange is kept as JSON text (a copy the test can
    no longer change, made at C speed) and decoded and clipped only when read; clipping every call cost a third of
    the harness's time per call.
    """

    def __init__(self, size: int) -> None:
        self._kept: deque[tuple[object, object, str | None]] = deque(maxlen=size)

    def record(self, call: Json, reply: Json | None, failure: str | None = None) -> None:
        """Keep one exchange (`reply` None: the call failed as `failure` says)."""
        self._kept.append(
            (_frozen(call), None if reply is None else _frozen(reply), None if failure is None else clip_text(failure))
        )

    def clear(self) -> None:
        """Forget every exchange: a new test begins."""
        self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)

    def __iter__(self) -> Iterator[Exchange]:
        for call, reply, failure in list(self._kept):
            yield Exchange(_thawed(call), None if reply is None else _thawed(reply), failure)


@dataclass(frozen=True)
class _Clipped:
    """A message clipped when it was kept (too long to keep as text, or not JSON at all)."""

    value: Json


def _frozen(message: Json) -> object:
    try:
        text = json.dumps(message, ensure_ascii=False)  # the same text read back, at a fraction of the cost
    except (TypeError, ValueError, RecursionError):  # not JSON (a test's own bad input may hold anything)
        return _Clipped(_clipped(message))
    return text if len(text) <= _KEPT_TEXT else _Clipped(_clipped(message))


def _thawed(kept: object) -> Json:
    """The message kept, clipped (once: clipping a clipped text would clip its note too)."""
    if isinstance(kept, _Clipped):
        return kept.value
    assert isinstance(kept, str)
    return _clipped(json.loads(kept))


def _clipped(value: Json) -> Json:
    clipped = clip(value)
    assert isinstance(clipped, dict)
    return clipped
