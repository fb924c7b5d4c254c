"""Finding tree items by id in the order a path reads them, hashing only when that order is broken."""

from __future__ import annotations

from typing import Any

__all__ = ["Finder"]

Json = dict[str, Any]


class Finder:
    """The items of a list by one string field; the item after the last one found is tried first.

    Trees list their nodes and edges root first, so a path is usually read front to back and found without hashing:
    on a path of a million nodes, two tables of a million ids cost more than the rest of the assembly, and their
    random accesses make the time grow faster than the path. The table is built on the first miss only. Ids are
    unique in a well-formed tree; where one is not, the first item with it is meant, but a lookup in list order may
    find a later one.
    """

    def __init__(self, items: list[Json], field: str) -> None:
        self._items = items
        self._field = field
        self._next = 0
        self._table: dict[str, int] | None = None

    def get(self, wanted: str) -> Json | None:
        """The item whose field is `wanted`, or None."""
        position: int | None = self._next
        if not (self._next < len(self._items) and self._items[self._next][self._field] == wanted):
            position = self._position(wanted)
        if position is None:
            return None
        self._next = position + 1
        return self._items[position]

    def _position(self, wanted: str) -> int | None:
        if self._table is None:
            self._table = {}
            for index, item in enumerate(self._items):
                self._table.setdefault(item[self._field], index)
        return self._table.get(wanted)
