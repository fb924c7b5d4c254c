"""Bearer tokens: one participant has exactly one valid signed token, and the empty participant has none."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from ctxconform.reference._tokens import MAX_VERIFIED, Tokens, mint_token

SECRET = b"s3cret"


def signed(name: str, participant: str) -> str:
    """A token whose name part is `name`, signed for `participant`."""
    return f"{name}.{hmac.new(SECRET, participant.encode(), hashlib.sha256).hexdigest()}"


def test_a_minted_token_names_its_participant() -> None:
    """The canonical token authenticates."""
    assert Tokens(SECRET).participant(mint_token(SECRET, "alice")) == "alice"


@pytest.mark.parametrize(
    "name",
    [
        "YWxpY2U=",  # padding
        "YWxpY2U==",
        "YWxp!Y2U",  # junk characters skipped by a lenient decoder
        "YWxp Y2U",
        "YWxp\nY2U",
        "YWxpY2V",  # non-zero trailing bits decode to the same bytes
        "YWxpY2U+",
        "YWxpY2U/",
        "YW!xpY2U=",  # junk and padding together
    ],
)
def test_non_canonical_names_do_not_authenticate(name: str) -> None:
    """Only the canonical unpadded base64url of the participant authenticates, never a variant."""
    assert Tokens(SECRET).participant(signed(name, "alice")) is None


def test_the_empty_participant_is_refused() -> None:
    """A signed token for the empty participant names nobody, and none can be minted."""
    assert Tokens(SECRET).participant(signed("", "")) is None
    with pytest.raises(ValueError, match="participant"):
        mint_token(SECRET, "")


@pytest.mark.parametrize("token", ["", ".", "..", "YWxpY2U", "YWxpY2U.", "\udcff.x", "é.x", "YWxpY2U.ZZ"])
def test_malformed_tokens_name_nobody(token: str) -> None:
    """Malformed tokens give None, never an exception."""
    assert Tokens(SECRET).participant(token) is None


def test_a_participant_that_is_not_utf8_names_nobody() -> None:
    """A name part decoding to bytes that are not UTF-8 is refused."""
    assert Tokens(SECRET).participant("_w." + "0" * 64) is None


def test_a_token_checked_once_names_its_participant_again_and_forged_ones_never() -> None:
    """Remembered checks give the same answers: the same participant for a valid token, none for a forged one after it."""
    tokens = Tokens(SECRET)
    token = mint_token(SECRET, "alice")
    assert [tokens.participant(token) for _ in range(3)] == ["alice"] * 3
    assert tokens.participant(token[:-1] + ("0" if token[-1] != "0" else "1")) is None
    assert tokens.participant(mint_token(b"other", "alice")) is None


def test_the_tokens_remembered_stay_bounded() -> None:
    """However many valid tokens are checked, a Tokens remembers at most MAX_VERIFIED of them and answers all alike."""
    tokens = Tokens(SECRET)
    names = [f"agent:{n}" for n in range(MAX_VERIFIED + 10)]
    assert [tokens.participant(mint_token(SECRET, name)) for name in names] == names
    assert len(tokens._verified) <= MAX_VERIFIED
    assert tokens == Tokens(SECRET)
