"""An implementation's transcript: each exchange frozen when it happens, clipped once when a report reads it."""

from __future__ import annotations

from ctxconform.conformance.judge._clip import MAX_CHARS
from ctxconform.conformance.transports._transcript import Exchange, Transcript


def test_an_exchange_reads_back_as_it_was_when_recorded() -> None:
    """A test that changes its arguments or the reply after the call does not change what the transcript shows."""
    transcript = Transcript(5)
    args = {"key": "k", "items": [1, 2]}
    reply = {"seq": 1, "result": {"value": "v"}}
    transcript.record({"seq": 1, "args": args}, reply)
    args["items"].append(3)
    reply["result"]["value"] = "changed"
    assert list(transcript) == [Exchange({"seq": 1, "args": {"key": "k", "items": [1, 2]}}, {"seq": 1, "result": {"value": "v"}})]


def test_a_long_text_is_clipped_once_and_counts_what_it_left_out() -> None:
    """A 5,000-character value reads back cut at MAX_CHARS with the true count of the characters left out."""
    transcript = Transcript(5)
    transcript.record({"seq": 1}, {"seq": 1, "result": "y" * (MAX_CHARS + 904)})
    transcript.record({"seq": 2, "args": "z" * (200 * 1024)}, None, "TIMEOUT: " + "w" * (MAX_CHARS + 7))
    first, second = transcript
    assert first.reply == {"seq": 1, "result": "y" * MAX_CHARS + "... (904 more characters)"}
    assert second.call["args"] == "z" * MAX_CHARS + f"... ({200 * 1024 - MAX_CHARS} more characters)"
    assert second.reply is None
    assert second.failure is not None
    assert second.failure.endswith(f"... ({len('TIMEOUT: ') + 7} more characters)")


def test_what_is_not_json_is_kept_clipped_and_lone_surrogates_escaped() -> None:
    """A call holding a value JSON cannot write, or a lone surrogate, is kept; the surrogate reads back escaped."""
    transcript = Transcript(5)
    transcript.record({"seq": 1, "args": {(1, 2): "tuple key"}}, {"seq": 1, "result": "\ud800"})
    (only,) = transcript
    assert only.call == {"seq": 1, "args": {"(1, 2)": "tuple key"}}
    assert only.reply == {"seq": 1, "result": "\\ud800"}


def test_the_transcript_keeps_the_last_exchanges_and_clears() -> None:
    """Only the last `size` exchanges are kept, oldest first, and clear forgets them all."""
    transcript = Transcript(3)
    for seq in range(1, 6):
        transcript.record({"seq": seq}, {"seq": seq, "result": None})
    assert [e.call["seq"] for e in transcript] == [3, 4, 5]
    assert len(transcript) == 3
    transcript.clear()
    assert list(transcript) == []
