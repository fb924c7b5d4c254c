"""A permissive twin of context-snapshot (the `context` module page of a Rust crate), written from the page alone.

Snapshots are kept as one JSON document each in the state folder (written atomically, synced) and answered in the
serde shape of the crate the page documents: the header flattened with fields the page never lists, options as
`null`, hashes as tagged byte arrays. Blobs are Git's: their ids are computed here (SHA-1 or SHA-256 of
`blob <size>`, NUL, content) and they are written as loose objects straight into the repositories the start options
name; refs, trees and commits of the retention strategies are written the same way. Wherever the page allows more
than one behaviour the twin takes the one the reference does not: see `LIBERTIES`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import secrets
import subprocess
import tempfile
import time
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Final, NoReturn

from twins._protocol import Json, Liberty, Refusal
from twins._protocol import Twin as ProtocolTwin

__all__ = ["LIBERTIES", "Twin", "TwinWithoutRetention"]

KINDS: Final = ("file", "url", "snippet", "command", "image")
STRATEGIES: Final = ("explicit", "heuristic")
RETENTION: Final = ("ref_anchoring", "orphan_commit", "keep_pack", "custom_gc_mark")
SIZES: Final = {"sha1": 20, "sha256": 32}
TAGS: Final = {"Sha1": "sha1", "Sha256": "sha256"}
OPTIONS: Final = {"sha1": "repository", "sha256": "repository_sha256"}
HEX: Final = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")
BASE64: Final = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
OPS: Final = (
    "create_snapshot",
    "add_item",
    "set_item_content",
    "remove_item",
    "finalize",
    "get_snapshot",
    "hash_content",
    "read_blob",
    "retain",
)
IDENTITY: Final = "ctxconform twin <twin@ctxconform.invalid>"
# Rust's char::is_whitespace: what a display text is trimmed of.
WHITE_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)

LIBERTIES: tuple[Liberty, ...] = (
    Liberty(
        what="Snapshots are answered in the crate's serde shape: the header flattened with fields the page never lists "
        "(header_version, schema_version, updated_at, visibility, tags, external_ids, checksum), created_by with "
        "display_name and auth_context as null when absent, and summary as null when none was given.",
        allowed_by="The page defines no field of ContextSnapshot's header ('A static capture of the context an agent "
        "observed at Run start.'); ORIGINS.md: Options 'serialized as null when absent (no skip_serializing_if)', "
        "'Unknown fields are accepted at 0.6.0' (registry structs/context-snapshot)",
    ),
    Liberty(
        what="items is always present, [] when empty (the origin omits it when empty).",
        allowed_by="The page says what an item is, not how an empty list of them is written (registry structs/context-snapshot)",
    ),
    Liberty(
        what='An item without a preview has "preview": null, and one without a blob "blob": null.',
        allowed_by="'blob is Option because it may be None during the draft/collection phase' "
        "(registry items/blob-none-in-draft, second reading); the preview is an optional layer as well",
    ),
    Liberty(
        what='Every blob id is answered in the crate\'s tagged form {"Sha1": [20 bytes]} / {"Sha256": [32 bytes]}, never in hex.',
        allowed_by="'blob — Git blob hash pointing to the full content at capture time.' (a hash, in no given notation; "
        "ORIGINS.md: the crate serializes a hash as a tagged byte array)",
    ),
    Liberty(
        what="object_id is a version 7 (time-ordered) UUID, and a snapshot_id is read in any UUID text form "
        "(upper case, braces, urn:uuid:, no hyphens).",
        allowed_by="The page gives the snapshot no id format (registry structs/context-snapshot: 'a new object_id (a UUID)')",
    ),
    Liberty(
        what="Timestamps have microseconds; created_at is written in RFC 3339's lower-case form (2026-02-20t14:30:00.123456z), "
        "updated_at with a +00:00 offset instead of Z.",
        allowed_by="The page gives no timestamp format (registry structs/context-snapshot: 'created_at in UTC'; RFC 3339 "
        "5.6: 'T' and 'Z' may alternatively be lower case)",
    ),
    Liberty(
        what="A preview is kept as display text: surrounding white space trimmed, CRLF line ends as LF.",
        allowed_by="'preview — truncated text for quick display without reading the blob.' (text for display, not content: "
        "the content is the blob) (registry items/three-layers and items/preview-under-500: trimmed, LF line ends)",
    ),
    Liberty(
        what="Results carry no algorithm beside the snapshot, hash_content answers only the blob, read_blob omits size, "
        "retain omits refs; item results add the snapshot_id.",
        allowed_by="The page defines none of these answers; the response schemas require only snapshot/state, "
        "index/item, blob, content and strategy/retained",
    ),
    Liberty(
        what='read_blob answers content as {"text"} when the bytes are UTF-8, else as {"base64"}.',
        allowed_by="'blob — Git blob hash pointing to the full content at capture time.' (the full content, in either "
        "of the interface's two content forms)",
    ),
    Liberty(
        what="A preview of any length is stored and read back as given (as display text, below): the twin neither cuts nor "
        "refuses a long one.",
        allowed_by="'preview — truncated text for quick display without reading the blob.' (the caller truncates; the "
        "page sets no bound) (registry items/preview-under-500, third reading; ORIGINS.md: 'stated, never enforced')",
    ),
    Liberty(
        what="A blank path (empty, or white space only) is accepted and stored as given.",
        allowed_by="'path — human-readable locator (repo path, URL, command, label).' says what a path is for, never "
        "that a blank one is refused (registry items/blank-path-rejected, second reading; ORIGINS.md: refused only "
        "by the item's constructor, not when a document is read)",
    ),
    Liberty(
        what='The open kind {"other": name} takes any name, blank included.',
        allowed_by="'The kind of content a ContextItem represents.' (registry enums/other-kind; ORIGINS.md: 'any "
        "string, blank included, is accepted when reading')",
    ),
    Liberty(
        what="created_by.kind and created_by.id take any string (blank included), and no field has a length limit: "
        "paths over 4096 characters, huge summaries, ids and names are stored and read back exactly.",
        allowed_by="The page sets no limit and defines no created_by (ORIGINS.md: actor kinds are four names 'or any "
        "other string'); the kit's limits are the kit's (registry structs/context-snapshot, items/path-locator)",
    ),
    Liberty(
        what="Fields a request does not define are ignored, never refused (object_id or created_at given to "
        "create_snapshot, a blob given to add_item, an extra field of created_by, of finalize, get_snapshot, "
        "remove_item, hash_content, read_blob); a null optional field (summary, display_name, preview, content "
        "of add_item, algorithm) is taken as absent.",
        allowed_by="The page defines no request (ORIGINS.md: 'Unknown fields are accepted at 0.6.0'; an Option reads "
        "null as None)",
    ),
    Liberty(
        what="A blob id is read in upper-case hex as well as lower-case hex and the tagged form.",
        allowed_by="'Git blob hash' (Git itself reads object names in either case)",
    ),
    Liberty(
        what="The snapshot is looked up before the rest of a request is read: a change to a finalized snapshot is "
        "SNAPSHOT_FINALIZED even when its other arguments are malformed or its index is past the last item, and "
        "retain checks the snapshot before the strategy.",
        allowed_by="The page ranks no error (it has none); the suite accepts either code where both apply",
    ),
    Liberty(
        what="Finalizing a finalized snapshot answers it unchanged instead of refusing.",
        allowed_by="'a point-in-time record that does not change after creation.' (registry "
        "definition/no-change-after-creation: 'finalize again is refused so too, or answers the unchanged snapshot')",
    ),
    Liberty(
        what="finalize does not look for the blobs in the repository (no BLOB_NOT_FOUND for a pruned draft blob).",
        allowed_by="'This library does not enforce any particular strategy — the consuming application is responsible "
        "for ensuring referenced blobs remain reachable.'",
    ),
    Liberty(
        what="retain keeps every blob of the snapshot, File blobs too, lists them in item order, skips blobs the "
        "repository no longer holds, and works on drafts as on finalized snapshots.",
        allowed_by="'For File items this is not a concern' (keeping them anyway is harmless); 'applications must "
        "choose a retention strategy' (registry blob-retention/application-chooses-strategy)",
    ),
    Liberty(
        what='retain with a strategy outside the document\'s table ("gc", "") is UNSUPPORTED_STRATEGY, not INVALID_REQUEST.',
        allowed_by="'For all other kinds, applications must choose a retention strategy:' (both codes fit a strategy "
        "that is not one of the table's; nothing ranks them)",
    ),
    Liberty(
        what="TwinWithoutRetention (same module) declares no strategy and refuses every retain with UNSUPPORTED_STRATEGY.",
        allowed_by="'This library does not enforce any particular strategy — the consuming application is responsible "
        "for ensuring referenced blobs remain reachable.' (registry blob-retention/application-chooses-strategy, "
        "second reading)",
    ),
    Liberty(
        what="Ref anchoring writes loose ref files, the orphan commit and its tree are written as loose objects by the "
        "twin itself; custom_gc_mark is declared and records the blobs in a mark list of the twin's own gc.",
        allowed_by="'Ref anchoring (refs/ai/blobs/<hex>)', 'Orphan commit (refs/ai/uploads)', 'Custom GC mark (scan "
        "AI objects)': the table names the strategies, not how they are carried out",
    ),
    Liberty(
        what="updated_at moves while a draft collects items and when it is finalized (never afterwards).",
        allowed_by="'a point-in-time record that does not change after creation.' (creation is finalization: registry "
        "definition/no-change-after-creation)",
    ),
)


class Twin(ProtocolTwin):
    """context-snapshot over JSON documents in the state folder and loose objects in the harness's repositories."""

    spec: ClassVar[str] = "context-snapshot"
    version: ClassVar[str] = "unversioned"
    features: ClassVar[tuple[str, ...]] = ("sha256", "other_kind", *RETENTION)

    def open(self, state_dir: Path, options: Json) -> None:
        """Read the snapshots kept under the state folder; find (or make) the two repositories."""
        self.folder = state_dir / "context-snapshot-twin"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.snapshots: dict[str, Json] = {}
        for path in self.folder.glob("*.json"):
            document = json.loads(path.read_text(encoding="utf-8"))
            self.snapshots[document["snapshot"]["object_id"]] = document
        self.repositories: dict[str, Repository] = {}
        for algorithm, option in OPTIONS.items():
            path = Path(options.get(option) or state_dir / "context-snapshot-twin-repositories" / f"{algorithm}.git")
            self.repositories[algorithm] = Repository(path, algorithm)

    def call(self, op: str, args: Any, context: Json) -> Json:  # noqa: ARG002 - the spec has no call context
        """Carry out one operation."""
        if op not in OPS:
            raise Refusal("UNKNOWN_OP", f"context-snapshot has no operation {op!r}")
        if not isinstance(args, dict):
            invalid("the arguments must be a JSON object")
        result: Json = getattr(self, f"_{op}")(args)
        return result

    # --- snapshots ---------------------------------------------------------------------------------------------

    def _create_snapshot(self, args: Json) -> Json:
        actor = args.get("created_by")
        if not isinstance(actor, dict):
            invalid("created_by must be an object {kind, id, display_name?}")
        created_by = {
            "kind": text(actor.get("kind"), "created_by.kind"),
            "id": text(actor.get("id"), "created_by.id"),
            "display_name": optional_text(actor.get("display_name"), "created_by.display_name"),
            "auth_context": None,
        }
        strategy = args.get("selection_strategy")
        if strategy not in STRATEGIES:
            invalid("selection_strategy must be explicit or heuristic")
        algorithm = algorithm_of(args.get("algorithm"))
        now = timestamp()
        snapshot = {
            "object_id": uuid7(),
            "object_type": "context_snapshot",
            "header_version": 1,
            "schema_version": 1,
            "created_at": now.replace("T", "t").replace("+00:00", "z"),
            "updated_at": now,
            "created_by": created_by,
            "visibility": "private",
            "tags": {},
            "external_ids": {},
            "checksum": None,
            "selection_strategy": strategy,
            "items": [],
            "summary": optional_text(args.get("summary"), "summary"),
        }
        document = {"snapshot": snapshot, "state": "draft", "algorithm": algorithm}
        self.save(document)
        return answer(document)

    def _get_snapshot(self, args: Json) -> Json:
        return answer(self.find(args))

    def _finalize(self, args: Json) -> Json:
        document = self.find(args)
        if document["state"] == "finalized":
            return answer(document)
        unset = [str(i) for i, item in enumerate(document["snapshot"]["items"]) if item["blob"] is None]
        if unset:
            raise Refusal("ITEM_WITHOUT_BLOB", f"item(s) {', '.join(unset)} have no content yet; set it or remove them")
        document["state"] = "finalized"
        document["snapshot"]["updated_at"] = timestamp()
        self.save(document)
        return answer(document)

    # --- items -------------------------------------------------------------------------------------------------

    def _add_item(self, args: Json) -> Json:
        document = self.draft(args)
        kind = kind_of(args.get("kind"))
        path = text(args.get("path"), "path")
        preview = optional_text(args.get("preview"), "preview")
        preview = None if preview is None else preview.replace("\r\n", "\n").strip(WHITE_SPACE)
        content = None if args.get("content") is None else content_of(args["content"])
        blob = None if content is None else self.store(document, content)
        item = {"kind": kind, "path": path, "preview": preview, "blob": blob}
        items = document["snapshot"]["items"]
        items.append(item)
        self.touch(document)
        return {"index": len(items) - 1, "item": item, "snapshot_id": document["snapshot"]["object_id"]}

    def _set_item_content(self, args: Json) -> Json:
        document = self.draft(args)
        index = index_of(args.get("index"))
        if "content" not in args:
            invalid("set_item_content needs content")
        content = content_of(args["content"])
        item = self.item_at(document, index)
        item["blob"] = self.store(document, content)
        self.touch(document)
        return {"index": index, "item": item, "snapshot_id": document["snapshot"]["object_id"]}

    def _remove_item(self, args: Json) -> Json:
        document = self.draft(args)
        index = index_of(args.get("index"))
        item = self.item_at(document, index)
        document["snapshot"]["items"].pop(index)
        self.touch(document)
        return {"index": index, "item": item, "snapshot_id": document["snapshot"]["object_id"]}

    # --- blobs -------------------------------------------------------------------------------------------------

    def _hash_content(self, args: Json) -> Json:
        if "content" not in args:
            invalid("hash_content needs content")
        content, algorithm = content_of(args["content"]), algorithm_of(args.get("algorithm"))
        return {"blob": tagged(blob_id(content, algorithm), algorithm)}

    def _read_blob(self, args: Json) -> Json:
        algorithm, digest = parse_blob(args.get("blob"))
        content = self.repositories[algorithm].read(digest.hex())
        if content is None:
            raise Refusal("BLOB_NOT_FOUND", f"the {algorithm} repository holds no blob {digest.hex()}")
        try:
            shown: Json = {"text": content.decode("utf-8")}
        except UnicodeDecodeError:
            shown = {"base64": base64.b64encode(content).decode("ascii")}
        return {"blob": tagged(digest.hex(), algorithm), "content": shown}

    def _retain(self, args: Json) -> Json:
        document = self.find(args)
        strategy = args.get("strategy")
        if not isinstance(strategy, str):
            invalid("strategy must be a string")
        if strategy not in RETENTION or strategy not in self.features:
            raise Refusal("UNSUPPORTED_STRATEGY", f"this implementation does not carry out {strategy!r}")
        repository = self.repositories[document["algorithm"]]
        blobs = [bytes(next(iter(i["blob"].values()))).hex() for i in document["snapshot"]["items"] if i["blob"]]
        held = [blob for blob in dict.fromkeys(blobs) if repository.has(blob)]
        if held:
            getattr(repository, strategy)(held, self.folder / f"gc-marks-{document['algorithm']}.txt")
        return {"strategy": strategy, "retained": [tagged(blob, document["algorithm"]) for blob in held]}

    # --- storage -----------------------------------------------------------------------------------------------

    def store(self, document: Json, content: bytes) -> Json:
        """Write content as a blob in the snapshot's repository; return its tagged id."""
        algorithm = document["algorithm"]
        return tagged(self.repositories[algorithm].write_blob(content), algorithm)

    def find(self, args: Json) -> Json:
        """The snapshot a request names."""
        value = args.get("snapshot_id")
        if not isinstance(value, str):
            invalid("snapshot_id must be a snapshot's object_id")
        try:
            object_id = str(uuid.UUID(value))
        except ValueError:
            invalid("snapshot_id is not a UUID")
        document = self.snapshots.get(object_id)
        if document is None:
            raise Refusal("SNAPSHOT_NOT_FOUND", f"no context snapshot {object_id}")
        return document

    def draft(self, args: Json) -> Json:
        """The draft a change names: a finalized snapshot never changes."""
        document = self.find(args)
        if document["state"] == "finalized":
            raise Refusal("SNAPSHOT_FINALIZED", "the snapshot is finalized and does not change after creation")
        return document

    @staticmethod
    def item_at(document: Json, index: int) -> Json:
        """The item at an index."""
        items: list[Json] = document["snapshot"]["items"]
        if index >= len(items):
            raise Refusal("ITEM_NOT_FOUND", f"the snapshot has {len(items)} item(s); there is none at {index}")
        return items[index]

    def touch(self, document: Json) -> None:
        """Record a change to a draft."""
        document["snapshot"]["updated_at"] = timestamp()
        self.save(document)

    def save(self, document: Json) -> None:
        """Keep a snapshot durably: written to a temporary file, synced, then renamed over the old one."""
        object_id = document["snapshot"]["object_id"]
        self.snapshots[object_id] = document
        write_atomically(self.folder / f"{object_id}.json", json.dumps(document, ensure_ascii=False).encode("utf-8"))


class TwinWithoutRetention(Twin):
    """The twin taking the other reading of blob-retention/application-chooses-strategy.

    It leaves retention to the application, declares no strategy and refuses every retain with UNSUPPORTED_STRATEGY.
    """

    features: ClassVar[tuple[str, ...]] = ("sha256", "other_kind")


class Repository:
    """A Git repository of one object format: loose objects and refs are written here, git reads packs."""

    def __init__(self, path: Path, algorithm: str) -> None:
        self.path = path
        self.algorithm = algorithm
        if not (path / "objects").is_dir():
            path.mkdir(parents=True, exist_ok=True)
            self.git("init", "--quiet", "--bare", f"--object-format={algorithm}", ".")

    def git(self, *args: str, stdin: bytes = b"") -> bytes:
        """Run git in the repository."""
        environment = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"LC_ALL": "C"}
        done = subprocess.run(
            ["git", "-C", str(self.path), *args],
            input=stdin,
            capture_output=True,
            check=True,
            timeout=120,
            env=environment,
        )
        return done.stdout

    def loose(self, hexid: str) -> Path:
        """Where an object lives while it is loose."""
        return self.path / "objects" / hexid[:2] / hexid[2:]

    def has(self, hexid: str) -> bool:
        """Whether the repository holds the object, loose or in a pack."""
        return self.loose(hexid).is_file() or self.packed(hexid)

    def packed(self, hexid: str) -> bool:
        """Whether a pack's index (version 2) lists the object."""
        wanted, size = bytes.fromhex(hexid), SIZES[self.algorithm]
        for index in (self.path / "objects" / "pack").glob("pack-*.idx"):
            data = index.read_bytes()
            if data[:8] != b"\377tOc\0\0\0\2":
                continue
            low = int.from_bytes(data[8 + 4 * (wanted[0] - 1) : 12 + 4 * (wanted[0] - 1)]) if wanted[0] else 0
            high = int.from_bytes(data[8 + 4 * wanted[0] : 12 + 4 * wanted[0]])
            while low < high:
                middle = (low + high) // 2
                name = data[1032 + middle * size : 1032 + (middle + 1) * size]
                if name == wanted:
                    return True
                low, high = (middle + 1, high) if name < wanted else (low, middle)
        return False

    def write_object(self, kind: str, body: bytes) -> str:
        """Write a loose object (unless the repository holds it already); return its id."""
        raw = f"{kind} {len(body)}\0".encode() + body
        hexid = hashlib.new(self.algorithm, raw, usedforsecurity=False).hexdigest()
        if not self.has(hexid):
            target = self.loose(hexid)
            target.parent.mkdir(exist_ok=True)
            write_atomically(target, zlib.compress(raw, 1), mode=0o444)
        return hexid

    def write_blob(self, content: bytes) -> str:
        """Store content as a blob."""
        return self.write_object("blob", content)

    def read(self, hexid: str) -> bytes | None:
        """A blob's content, or None when the repository holds no blob of that id."""
        loose = self.loose(hexid)
        if loose.is_file():
            raw = zlib.decompress(loose.read_bytes())
            header, _, body = raw.partition(b"\0")
            return body if header.split(b" ")[0] == b"blob" else None
        output = self.git("cat-file", "--batch", stdin=f"{hexid}\n".encode())
        header, _, rest = output.partition(b"\n")
        fields = header.split()
        return rest[: int(fields[2])] if len(fields) == 3 and fields[1] == b"blob" else None

    def ref(self, name: str) -> str | None:
        """The object a ref names, loose or packed."""
        loose = self.path / name
        if loose.is_file():
            return loose.read_text(encoding="ascii").strip()
        packed = self.path / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="ascii").splitlines():
                if line.endswith(f" {name}"):
                    return line.split()[0]
        return None

    def set_ref(self, name: str, hexid: str) -> None:
        """Point a ref at an object: a loose ref file (git update-ref where refs are not files)."""
        if (self.path / "reftable").exists():
            self.git("update-ref", name, hexid)
            return
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, f"{hexid}\n".encode())

    def ref_anchoring(self, blobs: list[str], _marks: Path) -> None:
        """refs/ai/blobs/<hex> for each blob."""
        for blob in blobs:
            self.set_ref(f"refs/ai/blobs/{blob}", blob)

    def orphan_commit(self, blobs: list[str], _marks: Path) -> None:
        """A commit on refs/ai/uploads (after the one there) whose tree names every blob."""
        tree = self.write_object("tree", b"".join(b"100644 %s\0" % b.encode() + bytes.fromhex(b) for b in sorted(blobs)))
        parent = self.ref("refs/ai/uploads")
        stamp = f"{int(time.time())} +0000"
        lines = [f"tree {tree}", *([f"parent {parent}"] if parent else [])]
        lines += [f"author {IDENTITY} {stamp}", f"committer {IDENTITY} {stamp}", "", "ai: uploads kept reachable", ""]
        self.set_ref("refs/ai/uploads", self.write_object("commit", "\n".join(lines).encode()))

    def keep_pack(self, blobs: list[str], _marks: Path) -> None:
        """A pack of the blobs, marked with .keep."""
        folder = self.path / "objects" / "pack"
        folder.mkdir(exist_ok=True)
        name = self.git("pack-objects", "-q", str(folder / "pack"), stdin="".join(f"{b}\n" for b in blobs).encode())
        (folder / f"pack-{name.decode().strip()}.keep").write_text("kept by the ctxconform twin\n", encoding="utf-8")

    @staticmethod
    def custom_gc_mark(blobs: list[str], marks: Path) -> None:
        """Record the blobs in the mark list the twin's own gc would scan."""
        with marks.open("a", encoding="ascii") as listing:
            listing.write("".join(f"{blob}\n" for blob in blobs))


# --- reading requests --------------------------------------------------------------------------------------------


def invalid(message: str) -> NoReturn:
    """Refuse malformed arguments."""
    raise Refusal("INVALID_REQUEST", message)


def text(value: object, name: str) -> str:
    """A string that is valid Unicode (no lone surrogate)."""
    if not isinstance(value, str):
        invalid(f"{name} must be a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        invalid(f"{name} is not valid Unicode")
    return str(value)


def optional_text(value: object, name: str) -> str | None:
    """A string, or None for null or absent."""
    return None if value is None else text(value, name)


def kind_of(value: object) -> object:
    """One of the five kinds, or {"other": name} with any name."""
    if isinstance(value, str) and value in KINDS:
        return value
    if isinstance(value, dict) and list(value) == ["other"]:
        return {"other": text(value["other"], "kind.other")}
    return invalid(f'kind must be one of {", ".join(KINDS)} or {{"other": name}}')


def index_of(value: object) -> int:
    """A position from 0."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        invalid("index must be a non-negative integer")
    return value


def algorithm_of(value: object) -> str:
    """sha1 (also for null or absent) or sha256."""
    if value is None:
        return "sha1"
    if not isinstance(value, str) or value not in SIZES:
        invalid("algorithm must be sha1 or sha256")
    return str(value)


def content_of(value: object) -> bytes:
    """{"text": string} as UTF-8, or {"base64": string}."""
    if isinstance(value, dict) and list(value) == ["text"]:
        return text(value["text"], "content.text").encode("utf-8")
    if isinstance(value, dict) and list(value) == ["base64"]:
        encoded = value["base64"]
        if isinstance(encoded, str) and BASE64.fullmatch(encoded):
            with contextlib.suppress(binascii.Error, ValueError):
                return base64.b64decode(encoded, validate=True)
        invalid("content.base64 must be standard base64 with padding")
    return invalid('content must be {"text": string} or {"base64": string}')


def parse_blob(value: object) -> tuple[str, bytes]:
    """A blob id in hex (either case) or tagged: its object format and digest."""
    if isinstance(value, str) and HEX.fullmatch(value):
        return ("sha1" if len(value) == 40 else "sha256"), bytes.fromhex(value)
    if isinstance(value, dict) and len(value) == 1:
        ((tag, numbers),) = value.items()
        algorithm = TAGS.get(tag)
        if (
            algorithm is not None
            and isinstance(numbers, list)
            and len(numbers) == SIZES[algorithm]
            and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 255 for n in numbers)
        ):
            return algorithm, bytes(numbers)
    return invalid('blob must be 40 or 64 hex digits, or {"Sha1": [20 bytes]} / {"Sha256": [32 bytes]}')


# --- writing answers ---------------------------------------------------------------------------------------------


def answer(document: Json) -> Json:
    """A snapshot result: the record and its state."""
    return {"snapshot": json.loads(json.dumps(document["snapshot"])), "state": document["state"]}


def blob_id(content: bytes, algorithm: str) -> str:
    """Git's id of a blob: the hash of `blob <size>`, NUL, the content."""
    return hashlib.new(algorithm, b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()


def tagged(hexid: str, algorithm: str) -> Json:
    """The crate's form of a hash: {"Sha1": [bytes]} or {"Sha256": [bytes]}."""
    return {"Sha1" if algorithm == "sha1" else "Sha256": list(bytes.fromhex(hexid))}


def timestamp() -> str:
    """Now, in UTC, with microseconds and +00:00."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def uuid7() -> str:
    """A version 7 UUID: 48 bits of milliseconds, then random bits."""
    value = (time.time_ns() // 1_000_000) << 80 | secrets.randbits(80)
    value = value & ~(0xF << 76) | 0x7 << 76  # version 7
    value = value & ~(0x3 << 62) | 0x2 << 62  # RFC 4122 variant
    return str(uuid.UUID(int=value))


def write_atomically(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write a file so that readers see the old one or the new one, never a part, and it survives a crash."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            Path(temporary).chmod(mode)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
