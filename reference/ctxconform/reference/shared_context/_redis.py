"""A Redis store for shared context: a fenced per-session lock, writes applied in one MULTI/EXEC.

Each transaction takes a lock on a session the first time it touches it (SET NX PX with a random token), reads
under that lock, buffers its writes, and at the end of the block applies them in one MULTI/EXEC that also
releases the lock. The EXEC is fenced: it WATCHes the lock key and checks the token first, so if the lock
expired or passed to someone else nothing is applied and the caller gets StoreError.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from typing import Any, Final
from urllib.parse import quote, urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.client import Pipeline
from redis.retry import Retry

from ctxconform.reference.exceptions import StoreError
from ctxconform.reference.shared_context._model import Entry, Metadata, Session, SessionState
from ctxconform.reference.shared_context._store import Transaction

__all__ = ["RedisStore"]

PREFIX: Final = "ctxconform:sc:"
_RELEASE: Final = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
_ADVICE: Final = "check that redis-server is running and reachable, or use sqlite:///path.db or memory:"

Command = tuple[str, tuple[str | bytes | int, ...]]


class _LockLost(redis.RedisError):
    """A session lock expired or passed to another client before the commit; nothing was applied."""


@dataclass(frozen=True)
class Timing:
    """How long a store waits: for the network, for a session's lock, and how long a lock lives."""

    socket_seconds: float = 2.0
    lock_ttl_ms: int = 10_000
    lock_wait_seconds: float = 20.0


def _name(text: str) -> str:
    # Percent-encoding is injective and leaves no ':', '{' or '}' to confuse key layout or cluster hash tags.
    return quote(text.encode("utf-8", "surrogatepass"), safe="")


def _field(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class _Keys:
    """The Redis keys of one session; the braces put them all in one cluster slot."""

    session_id: str
    base: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "base", f"{PREFIX}{{{_name(self.session_id)}}}:")

    @property
    def lock(self) -> str:
        """The key of the session's lock."""
        return self.base + "lock"

    @property
    def meta(self) -> str:
        """The hash of the session's state and total tokens."""
        return self.base + "session"

    @property
    def entries(self) -> str:
        """The hash of the current entries, by key."""
        return self.base + "entries"

    @property
    def snapshots(self) -> str:
        """The hash of the snapshots, by label."""
        return self.base + "snapshots"

    def history(self, key: str) -> str:
        """The list of a key's retained versions, oldest first."""
        return self.base + "history:" + _name(key)


def _json(data: object) -> bytes:
    # Raw characters plus surrogatepass keep lone surrogates apart: "\\ud800\\udfff" escapes would load as one character.
    return json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")


def _unjson(raw: bytes | str) -> Any:
    return json.loads(raw if isinstance(raw, str) else raw.decode("utf-8", "surrogatepass"))


def _dump(entry: Entry) -> bytes:
    return _json(asdict(entry))


def _load(raw: bytes | str) -> Entry:
    return Entry(**_unjson(raw))


def _text(raw: bytes | str) -> str:
    return raw if isinstance(raw, str) else raw.decode("utf-8", "surrogatepass")


def _redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


class RedisStore:
    """Sessions in a Redis server; one fenced per-session lock and one MULTI/EXEC per operation."""

    def __init__(self, url: str, timing: Timing | None = None) -> None:
        self.url = _redacted(url)
        self.timing = timing or Timing()
        seconds = self.timing.socket_seconds
        # No retries: a retried EXEC whose reply was lost could apply a write twice.
        options: dict[str, Any] = {"socket_timeout": seconds, "socket_connect_timeout": seconds, "retry": Retry(NoBackoff(), 0)}
        try:
            self._redis: redis.Redis = redis.Redis.from_url(url, **options)
            self._redis.ping()
        except (redis.RedisError, ValueError) as error:
            raise StoreError(self.url, f"cannot open the store ({error}); {_ADVICE}") from error
        self._release = self._redis.register_script(_RELEASE)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """Run one atomic step: its writes are applied together when the block ends, or not at all if it raises."""
        tx = _RedisTransaction(self._redis, self.timing)
        try:
            try:
                yield tx
                tx.commit()
            except BaseException:
                tx.abandon(self._release)
                raise
        except redis.RedisError as error:
            raise StoreError(self.url, f"the operation failed and was not applied ({error}); {_ADVICE}") from error

    def close(self) -> None:
        """Close the connections to the server."""
        self._redis.close()


class _RedisTransaction:
    def __init__(self, client: redis.Redis, timing: Timing) -> None:
        self._redis = client
        self._timing = timing
        self._locks: dict[str, tuple[_Keys, bytes]] = {}
        self._writes: list[Command] = []

    # -- locking and commit

    def _keys(self, session_id: str) -> _Keys:
        held = self._locks.get(session_id)
        if held is not None:
            return held[0]
        keys, token = _Keys(session_id), secrets.token_hex(16).encode("ascii")
        deadline = time.monotonic() + self._timing.lock_wait_seconds
        pause = 0.0005
        while not self._redis.set(keys.lock, token, nx=True, px=self._timing.lock_ttl_ms):
            if time.monotonic() > deadline:
                raise _LockLost(f"session {session_id!r} stayed locked for {self._timing.lock_wait_seconds:g} s")
            time.sleep(pause * (0.5 + secrets.randbelow(1000) / 1000))
            pause = min(pause * 2, 0.01)
        self._locks[session_id] = (keys, token)
        return keys

    def _read(self, session_id: str) -> _Keys:
        if self._writes:
            raise RuntimeError("a read after a write in one transaction would not see the write; read first")
        return self._keys(session_id)

    def _write(self, name: str, *args: str | bytes | int) -> None:
        self._writes.append((name, args))

    def commit(self) -> None:
        """Apply the buffered writes and release the locks in one MULTI/EXEC, only if every lock is still ours."""
        if not self._locks:
            return
        locks = [keys.lock for keys, _ in self._locks.values()]
        with self._redis.pipeline(transaction=True) as pipe:
            try:
                self._fenced_exec(pipe, locks)
            except redis.WatchError as error:
                raise _LockLost("a session lock expired before the commit; nothing was applied") from error

    def _fenced_exec(self, pipe: Pipeline, locks: list[str]) -> None:
        pipe.watch(*locks)  # type: ignore[no-untyped-call] # redis-py leaves Pipeline.watch untyped
        if [pipe.get(lock) for lock in locks] != [token for _, token in self._locks.values()]:
            raise _LockLost("a session lock expired before the commit; nothing was applied")
        pipe.multi()
        for name, args in self._writes:
            pipe.execute_command(name, *args)  # type: ignore[no-untyped-call] # same
        pipe.delete(*locks)
        pipe.execute()

    def abandon(self, release: Any) -> None:
        """Drop the buffered writes and release the locks; a failed release only leaves a lock to expire."""
        self._writes.clear()
        for keys, token in self._locks.values():
            with suppress(redis.RedisError):
                release(keys=[keys.lock], args=[token])

    # -- the Transaction protocol

    def session(self, session_id: str) -> Session | None:
        state, total = self._redis.hmget(self._read(session_id).meta, ["state", "total_tokens"])
        if state is None:
            return None
        checked: SessionState = "archived" if state == b"archived" else "active"
        return Session(session_id, checked, int(total or 0))

    def create_session(self, session_id: str) -> None:
        self._write("HSET", self._keys(session_id).meta, "state", "active", "total_tokens", 0)

    def set_state(self, session_id: str, state: SessionState) -> None:
        self._write("HSET", self._keys(session_id).meta, "state", state)

    def drop_session(self, session_id: str) -> None:
        keys = self._read(session_id)
        # remove() deletes a key's history with its entry, so the history keys are exactly those of the entries.
        names: list[bytes | str] = self._redis.hkeys(keys.entries)
        history = [keys.history(_text(name)) for name in names]
        self._write("DEL", keys.meta, keys.entries, keys.snapshots, *history)

    def entry(self, session_id: str, key: str) -> Entry | None:
        raw = self._redis.hget(self._read(session_id).entries, _field(key))
        return None if raw is None else _load(raw)

    def metadata(self, session_id: str) -> list[Metadata]:
        entries = self._entries(session_id)
        return [Metadata(e.key, e.written_by, e.written_at, e.version, e.tokens) for e in entries]

    def put(self, session_id: str, entry: Entry, total_tokens: int, keep_history: int) -> None:
        keys = self._keys(session_id)
        self._write("HSET", keys.entries, _field(entry.key), _dump(entry))
        self._write("RPUSH", keys.history(entry.key), _dump(entry))
        self._write("LTRIM", keys.history(entry.key), -max(keep_history, 1), -1)
        self._write("HSET", keys.meta, "total_tokens", total_tokens)

    def remove(self, session_id: str, key: str, total_tokens: int) -> None:
        keys = self._keys(session_id)
        self._write("HDEL", keys.entries, _field(key))
        self._write("DEL", keys.history(key))
        self._write("HSET", keys.meta, "total_tokens", total_tokens)

    def history(self, session_id: str, key: str) -> list[Entry]:
        raws: list[bytes | str] = self._redis.lrange(self._read(session_id).history(key), 0, -1)
        return [_load(raw) for raw in raws]

    def put_snapshot(self, session_id: str, label: str, taken_at: str) -> int:
        entries = self._entries(session_id)
        frozen = {"taken_at": taken_at, "entries": [asdict(e) for e in entries]}
        self._write("HSET", self._keys(session_id).snapshots, _field(label), _json(frozen))
        return len(entries)

    def snapshot(self, session_id: str, label: str) -> tuple[str, list[Entry]] | None:
        raw = self._redis.hget(self._read(session_id).snapshots, _field(label))
        if raw is None:
            return None
        frozen = _unjson(raw)
        return frozen["taken_at"], [Entry(**e) for e in frozen["entries"]]

    def _entries(self, session_id: str) -> list[Entry]:
        raws: dict[bytes | str, bytes | str] = self._redis.hgetall(self._read(session_id).entries)
        return sorted((_load(raw) for raw in raws.values()), key=lambda e: e.key)
