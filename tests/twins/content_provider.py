"""A permissive twin of content-provider (AGN-030): written from the document, taking every liberty it leaves open.

Registers are keyed by their exact name; the instructions lane is a rendering of its own (registers by name, items as
list entries, line ends normalized and outer whitespace trimmed); input items follow the order items were added
across registers; optional fields come back as null and answers carry fields of their own; where the reference
refuses a call the document never forbids (a provider or a trace begun twice, a delivery report with nothing pending,
a session never saved, a serialized provider without its manifest, a step that is no object, counts the kit does not
name) the twin answers it as a no-op or carries it out; persisted providers are JSON files of the twin's own layout
under the state directory. `LIBERTIES` lists each liberty with the sentence that allows it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from twins._protocol import Json, Liberty, Refusal
from twins._protocol import Twin as _Twin

__all__ = ["LIBERTIES", "Twin"]

MANIFEST: Final = "ToolCallManifest"
RECORD_FIELDS: Final = ("toolName", "parametersJson", "outputJson", "toolCallRef")
# The classifications, by every spelling the twin reads: the kit's, and the document's own names.
CLASSIFICATIONS: Final = {
    "Session": "Session",
    "Session Context": "Session",
    "Consumable": "Consumable",
    "Consumable Context": "Consumable",
}
MAX_ID: Final = 256
MAX_CONTENT: Final = 100_000  # characters of one item, tool call field or step (larger ones are refused)
OPTIONAL_COUNTS: Final = ("reasoning", "cached")

LIBERTIES: Final[tuple[Liberty, ...]] = (
    Liberty(
        what="Register names are exact keys: 'Notes' and 'notes' are two registers, and appending to 'NOTES' when only "
        "'Notes' exists is REGISTER_NOT_FOUND (the origin compares names without regard to case).",
        allowed_by="4.2 'Has a stable name' says nothing of case; registry content-provider/4.2/stable-name, reading "
        "'Names are exact keys'.",
    ),
    Liberty(
        what="The instructions lane starts with a '# Session context' line (even with no Session item), then "
        '<context name="..."> blocks, registers sorted by name (not creation '
        "order), each item a '- ' list entry with CRLF/CR turned into LF, its outer whitespace trimmed and its further "
        "lines indented by two spaces.",
        allowed_by="4.3 'Serialized into the per-request `instructions` lane' does not say how; registry "
        "content-provider/4.3/session-in-instructions, second reading.",
    ),
    Liberty(
        what="Input items follow the order their items were added, interleaved across registers (after a rehydration: "
        "register by register, in the order of the serialized provider).",
        allowed_by="4.3 'Serialized into retained conversation input/tool items' orders no registers; registry "
        "content-provider/4.3/consumable-in-input-items, second reading.",
    ),
    Liberty(
        what="Every input item carries both 'text' and 'record', the one that does not apply as null.",
        allowed_by="4.3 gives input items no shape; the README's items {type, register, text} / {type, register, record} "
        "leave other fields open (composed_request.json).",
    ),
    Liberty(
        what="compose answers a fresh 'requestId' (a UUID) beside the instructions and input items.",
        allowed_by="3 'Maintain deterministic prompt composition inputs': the inputs (instructions and input items) are "
        "deterministic; an id of the request is not one of them.",
    ),
    Liberty(
        what="Registers are serialized sorted by name, with an extra 'count' field (how many items they hold); "
        "rehydrate reads a serialized provider with or without 'count'.",
        allowed_by="5.2 'composed solely of Registers' and 4.2 fix what a register has, not its other fields or the "
        "order of registers; 6.2 fixes no document layout.",
    ),
    Liberty(
        what="Persisted providers are one JSON file per session ({sessionId, savedAt, document}) under the state "
        "directory, not SQLite; persist answers an extra 'savedAt'.",
        allowed_by="1 'This DDR does not define ... persistence implementation details'; 6.2.",
    ),
    Liberty(
        what="A trace not yet ended carries tokens and summary as null; optional token counts not given (reasoning, "
        "cached) come back as null; traces carry startedAt and endedAt (null while open).",
        allowed_by="7.3 'invocation-level token totals' / 'invocation-level summary data' fix no shape; the trace's "
        "optional fields may be null or absent.",
    ),
    Liberty(
        what="end_trace takes reasoning and cached as null (the same as leaving them out), computes total as prompt + "
        "completion when it is left out or null, and keeps any other count it is given (say 'audio': 12).",
        allowed_by="7.3 'invocation-level token totals' names no counts; registry content-provider/7.3/token-totals "
        "(the given counts come back; others may be added).",
    ),
    Liberty(
        what="An ended trace's summary carries a 'stepCount' of the twin's own beside the summary given (unless the "
        "summary given has one).",
        allowed_by="7.3 'invocation-level summary data' does not say the summary is only what the caller gave; registry "
        "content-provider/7.3/summary-data (the given fields come back; others may be added).",
    ),
    Liberty(
        what="create_provider for an execution that has a provider is a no-op answering it; so is rehydrate into it "
        "(once the session or serialized provider was found valid).",
        allowed_by="5.1 'Exactly one ContentProvider instance exists per agent execution.'; registry "
        "content-provider/5.1/one-provider-per-execution, second reading.",
    ),
    Liberty(
        what="A text item offered to the ToolCallManifest is refused with INVALID_REQUEST, not MANIFEST_RECORDS_ONLY.",
        allowed_by="4.4 'Stores structured records of tool calls' names no error; the suite accepts either code "
        "(README: 'a text item is MANIFEST_RECORDS_ONLY', tests: MANIFEST_RECORDS_ONLY or INVALID_REQUEST).",
    ),
    Liberty(
        what="A blank register name in append_item is REGISTER_NOT_FOUND (no register can have it), not BLANK_NAME.",
        allowed_by="4.2 'Has a stable name'; the suite accepts BLANK_NAME or REGISTER_NOT_FOUND in append_item.",
    ),
    Liberty(
        what="Error codes in another order than the reference's: an unknown execution (PROVIDER_NOT_FOUND) before "
        "malformed field values; an unknown classification before a blank name; a serialized provider's faults before "
        "an execution that already has a provider.",
        allowed_by="The document defines no error codes, so it ranks none.",
    ),
    Liberty(
        what="begin_trace while the invocation's trace is open is a no-op answering that invocation's number (no "
        "TRACE_OPEN, no second trace).",
        allowed_by="7.2 'Each CompletionTrace represents exactly one LLM invocation.' asks for no refusal; registry "
        "content-provider/7.2/one-trace-per-invocation, second reading.",
    ),
    Liberty(
        what="mark_delivered or mark_failed with no request pending is a no-op answering cleared 0 (no NO_PENDING_REQUEST).",
        allowed_by="4.3 'Cleared after successful delivery to the LLM': nothing was delivered, so nothing is cleared; "
        "registry content-provider/4.3/consumable-kept-until-delivered, second reading.",
    ),
    Liberty(
        what="A step is any JSON value (a string, number, list, null or object), kept exactly.",
        allowed_by="7.4 'The schema is intentionally deferred.'; registry content-provider/7.4/step-schema-deferred, "
        "second reading.",
    ),
    Liberty(
        what="rehydrate from a session id nothing was persisted under gives the execution a new provider (an empty "
        "ToolCallManifest), not SESSION_NOT_FOUND.",
        allowed_by="6.2 'rehydrating the ContentProvider when required' says nothing of a session never saved; "
        "registry content-provider/6.2/persist-and-rehydrate, second reading.",
    ),
    Liberty(
        what="A serialized provider without a ToolCallManifest is rehydrated with an empty one added, not refused "
        "with MANIFEST_MISSING.",
        allowed_by="4.4 'The ContentProvider MUST include a ToolCallManifest register.': the rehydrated provider "
        "does; registry content-provider/4.4/manifest-required, second reading.",
    ),
    Liberty(
        what="Items, tool call fields and steps above 100,000 characters are refused (INVALID_REQUEST), nothing changed.",
        allowed_by="README 'Sizes': a megabyte is either kept exactly or refused without change; the document sets no size.",
    ),
    Liberty(
        what="Tool call records may carry fields beyond the four, kept as given.",
        allowed_by="4.4 'Stores structured records of tool calls including:' lists what a record includes, not all it may hold.",
    ),
    Liberty(
        what="add_register also reads the document's names 'Session Context' and 'Consumable Context' (answering "
        "'Session' / 'Consumable').",
        allowed_by="3 'Exactly two context classifications are permitted: Session Context and Consumable Context': "
        "still exactly two.",
    ),
    Liberty(
        what="Answers carry fields of their own: create_provider 'created', append_item 'executionId', "
        "record_tool_call 'toolCallRef', mark_delivered 'remaining', begin_trace 'startedAt'.",
        allowed_by="The document defines no operation; the README's result shapes are open (additionalProperties).",
    ),
)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _valid_unicode(value: object, what: str) -> None:
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError, ValueError, TypeError):
        raise Refusal("INVALID_REQUEST", f"{what} is not valid JSON of valid Unicode") from None


def _string(value: object, what: str, *, limit: int = MAX_CONTENT) -> str:
    if not isinstance(value, str):
        raise Refusal("INVALID_REQUEST", f"{what} must be a string")
    _valid_unicode(value, what)
    if len(value) > limit:
        raise Refusal("INVALID_REQUEST", f"{what} is longer than {limit} characters")
    return value


def _identifier(value: object, what: str) -> str:
    text = _string(value, what, limit=MAX_ID)
    if not text.strip():
        raise Refusal("INVALID_REQUEST", f"{what} must not be blank")
    return text


def _name(value: object, what: str) -> str:
    text = _string(value, what, limit=MAX_ID)
    if not text.strip():
        raise Refusal("BLANK_NAME", f"{what} is blank")
    return text


def _classification(value: object) -> str:
    if not isinstance(value, str):
        raise Refusal("INVALID_REQUEST", "classification must be a string")
    found = CLASSIFICATIONS.get(value)
    if found is None:
        raise Refusal("UNKNOWN_CLASSIFICATION", f"{value[:40]!r} is neither Session nor Consumable")
    return found


def _object(value: object, what: str) -> Json:
    if not isinstance(value, dict):
        raise Refusal("INVALID_REQUEST", f"{what} must be an object")
    return _value(value, what)  # type: ignore[return-value]


def _value(value: object, what: str) -> object:
    _valid_unicode(value, what)
    if len(json.dumps(value, ensure_ascii=False)) > MAX_CONTENT:
        raise Refusal("INVALID_REQUEST", f"{what} is larger than {MAX_CONTENT} characters")
    return value


def _fields(args: object, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> Json:
    if not isinstance(args, dict):
        raise Refusal("INVALID_REQUEST", f"{what} must be an object")
    unknown = set(args) - set(required) - set(optional)
    if unknown:
        raise Refusal("INVALID_REQUEST", f"{what} has unknown fields {sorted(map(repr, unknown))}")
    missing = [name for name in required if name not in args]
    if missing:
        raise Refusal("INVALID_REQUEST", f"{what} lacks {missing}")
    return args


def _record(value: object, what: str = "record") -> Json:
    if not isinstance(value, dict):
        raise Refusal("INVALID_REQUEST", f"{what} must be an object")
    missing = [name for name in RECORD_FIELDS if name not in value]
    if missing:
        raise Refusal("INVALID_REQUEST", f"{what} lacks {missing}")
    _identifier(value["toolName"], f"{what}.toolName")
    _identifier(value["toolCallRef"], f"{what}.toolCallRef")
    _string(value["parametersJson"], f"{what}.parametersJson")
    _string(value["outputJson"], f"{what}.outputJson")
    copy: Json = json.loads(json.dumps(_object(value, what)))
    return copy


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refusal("INVALID_REQUEST", f"{what} must be a whole number, at least 0")
    return value


def _tokens(value: object) -> Json:
    """Token totals as the twin keeps them.

    Prompt and completion; total (their sum when absent or null); reasoning and cached (null when not given); any
    other count, kept.
    """
    fields = _fields(value, "tokens", ("prompt", "completion"), tuple(value) if isinstance(value, dict) else ())
    tokens: Json = {name: None if count is None else _count(count, f"tokens.{name}") for name, count in fields.items()}
    for name in ("prompt", "completion"):
        if tokens[name] is None:
            raise Refusal("INVALID_REQUEST", f"tokens.{name} must be a whole number, at least 0")
    if tokens.get("total") is None:
        tokens["total"] = tokens["prompt"] + tokens["completion"]
    for name in OPTIONAL_COUNTS:
        tokens.setdefault(name, None)
    return tokens


@dataclass
class Item:
    """One line item: its place in the order items were added, and its text or tool call record."""

    serial: int
    value: str | Json


@dataclass
class Register:
    """A named, classified, ordered collection of line items."""

    name: str
    classification: str
    items: list[Item] = field(default_factory=list)

    def to_json(self) -> Json:
        """The register as answered and serialized, with the item count beside its items."""
        items = [item.value for item in self.items]
        return {"name": self.name, "classification": self.classification, "items": items, "count": len(items)}


@dataclass
class Execution:
    """An AgentPipelineContext: its provider's registers (by exact name), the pending request, its traces."""

    registers: dict[str, Register]
    pending: set[int] | None = None
    traces: list[Json] = field(default_factory=list)

    def document(self) -> Json:
        """The serialized provider: its registers, sorted by name, and nothing else."""
        ordered = sorted(self.registers.values(), key=lambda r: (r.name.casefold(), r.name))
        return {"registers": [register.to_json() for register in ordered]}

    def open_trace(self) -> Json:
        """The trace of the invocation under way."""
        if not self.traces or self.traces[-1]["ended"]:
            raise Refusal("NO_OPEN_TRACE", "no trace is open: begin_trace first")
        return self.traces[-1]


def _render(register: Register) -> str:
    lines = [f'<context name="{register.name}">']
    for item in register.items:
        text = str(item.value).replace("\r\n", "\n").replace("\r", "\n").strip()
        lines.append("- " + text.replace("\n", "\n  "))
    lines.append("</context>")
    return "\n".join(lines)


class Twin(_Twin):
    """content-provider, second implementation."""

    spec = "content-provider"
    version = "2025-12-23"
    features = ()
    name = "ctxconform-twin"

    def __init__(self) -> None:
        self.executions: dict[str, Execution] = {}
        self.folder: Path | None = None
        self.serial = 0

    # --- the adapter protocol -----------------------------------------------------------------------------------

    def open(self, state_dir: Path, options: Json) -> None:  # noqa: ARG002 - content-provider has no start options
        """Keep persisted providers under the state directory."""
        self.folder = state_dir / "twin-content-provider"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.executions = {}

    def close(self) -> None:
        """Forget the live executions (persisted providers stay on disk)."""
        self.executions = {}

    def call(self, op: str, args: Any, context: Json) -> Json:  # noqa: ARG002 - the execution travels in the arguments
        """Carry out one operation."""
        operation = getattr(self, f"op_{op}", None) if op.isidentifier() else None
        if operation is None:
            raise Refusal("UNKNOWN_OP", f"content-provider has no operation {op[:40]!r}")
        return operation(args)  # type: ignore[no-any-return]

    # --- helpers ------------------------------------------------------------------------------------------------

    def _next(self) -> int:
        self.serial += 1
        return self.serial

    def _execution(self, args: object, op: str, *required: str, optional: tuple[str, ...] = ()) -> tuple[str, Execution, Json]:
        fields = _fields(args, op, ("executionId", *required), optional)
        execution_id = _identifier(fields["executionId"], "executionId")
        found = self.executions.get(execution_id)
        if found is None:
            raise Refusal("PROVIDER_NOT_FOUND", f"execution {execution_id[:60]!r} has no provider")
        return execution_id, found, fields

    def _new_execution(self, registers: list[Register] | None = None) -> Execution:
        made = registers if registers is not None else [Register(MANIFEST, "Consumable")]
        return Execution({register.name: register for register in made})

    def _answer(self, execution_id: str, execution: Execution) -> Json:
        return {"executionId": execution_id, "provider": execution.document()}

    def _path(self, session_id: str) -> Path:
        assert self.folder is not None, "called before start"
        return self.folder / (hashlib.sha256(session_id.encode("utf-8")).hexdigest() + ".json")

    def _from_document(self, document: object) -> list[Register]:
        fields = _fields(document, "provider", ("registers",))
        entries = fields["registers"]
        if not isinstance(entries, list):
            raise Refusal("INVALID_REQUEST", "provider.registers must be a list")
        registers: dict[str, Register] = {}
        for index, entry in enumerate(entries):
            what = f"provider.registers[{index}]"
            got = _fields(entry, what, ("name", "classification", "items"), ("count",))
            classification = _classification(got["classification"])
            name = _name(got["name"], f"{what}.name")
            if got.get("count") is not None:
                _count(got["count"], f"{what}.count")
            if not isinstance(got["items"], list):
                raise Refusal("INVALID_REQUEST", f"{what}.items must be a list")
            if name in registers:
                raise Refusal("INVALID_REQUEST", f"two registers are named {name[:60]!r}")
            if name == MANIFEST:
                if classification != "Consumable":
                    raise Refusal("CLASSIFICATION_CONFLICT", f"the {MANIFEST} is Consumable")
                values: list[str | Json] = [_record(item, f"{what}.items[{n}]") for n, item in enumerate(got["items"])]
            else:
                values = [_string(item, f"{what}.items[{n}]") for n, item in enumerate(got["items"])]
            registers[name] = Register(name, classification, [Item(self._next(), value) for value in values])
        if MANIFEST not in registers:  # every provider includes one: an empty one is added
            registers[MANIFEST] = Register(MANIFEST, "Consumable")
        return list(registers.values())

    # --- operations ---------------------------------------------------------------------------------------------

    def op_create_provider(self, args: object) -> Json:
        """Create the execution's one provider (or answer the one it has)."""
        fields = _fields(args, "create_provider", ("executionId",))
        execution_id = _identifier(fields["executionId"], "executionId")
        existing = self.executions.get(execution_id)
        if existing is not None:
            return {**self._answer(execution_id, existing), "created": False}
        self.executions[execution_id] = self._new_execution()
        return {**self._answer(execution_id, self.executions[execution_id]), "created": True}

    def op_get_provider(self, args: object) -> Json:
        """The provider, serialized."""
        execution_id, execution, _ = self._execution(args, "get_provider")
        return self._answer(execution_id, execution)

    def op_end_execution(self, args: object) -> Json:
        """Release the execution, its provider and traces."""
        execution_id, _, _ = self._execution(args, "end_execution")
        del self.executions[execution_id]
        return {"executionId": execution_id, "ended": True}

    def op_add_register(self, args: object) -> Json:
        """Get or add a register by its exact name."""
        _, execution, fields = self._execution(args, "add_register", "name", "classification")
        classification = _classification(fields["classification"])
        name = _name(fields["name"], "name")
        register = execution.registers.get(name)
        if register is None:
            register = execution.registers[name] = Register(name, classification)
        elif register.classification != classification:
            raise Refusal("CLASSIFICATION_CONFLICT", f"register {name[:60]!r} is {register.classification}")
        return {"register": register.to_json()}

    def op_append_item(self, args: object) -> Json:
        """Append a text item to a register (not the manifest)."""
        execution_id, execution, fields = self._execution(args, "append_item", "register", "text")
        name = _string(fields["register"], "register", limit=MAX_ID)
        text = _string(fields["text"], "text")
        register = execution.registers.get(name)
        if register is None:
            raise Refusal("REGISTER_NOT_FOUND", f"no register is named {name[:60]!r}")
        if name == MANIFEST:
            raise Refusal("INVALID_REQUEST", f"the {MANIFEST} holds tool call records: use record_tool_call")
        register.items.append(Item(self._next(), text))
        return {"register": register.name, "count": len(register.items), "executionId": execution_id}

    def op_record_tool_call(self, args: object) -> Json:
        """Append a tool call record to the manifest."""
        _, execution, fields = self._execution(args, "record_tool_call", "record")
        record = _record(fields["record"])
        manifest = execution.registers[MANIFEST]
        manifest.items.append(Item(self._next(), record))
        return {"register": manifest.name, "count": len(manifest.items), "toolCallRef": record["toolCallRef"]}

    def op_compose(self, args: object) -> Json:
        """Compose the next request; it stays pending until delivered or failed."""
        _, execution, _ = self._execution(args, "compose")
        ordered = sorted(execution.registers.values(), key=lambda r: (r.name.casefold(), r.name))
        sections = [_render(r) for r in ordered if r.classification == "Session" and r.items]
        carried = sorted(
            (
                (item, register)
                for register in execution.registers.values()
                if register.classification == "Consumable"
                for item in register.items
            ),
            key=lambda pair: pair[0].serial,
        )
        inputs = []
        for item, register in carried:
            if isinstance(item.value, dict):
                inputs.append({"type": "tool_call", "register": register.name, "record": item.value, "text": None})
            else:
                inputs.append({"type": "text", "register": register.name, "text": item.value, "record": None})
        execution.pending = {item.serial for item, _ in carried}
        instructions = "\n\n".join(["# Session context", *sections])
        return {"instructions": instructions, "input": inputs, "requestId": str(uuid.uuid4())}

    def op_mark_delivered(self, args: object) -> Json:
        """The pending request reached the LLM: clear the Consumable items it carried."""
        _, execution, _ = self._execution(args, "mark_delivered")
        cleared = remaining = 0
        for register in execution.registers.values():
            if register.classification != "Consumable":
                continue
            kept = [item for item in register.items if item.serial not in (execution.pending or set())]
            cleared += len(register.items) - len(kept)
            register.items = kept
            remaining += len(kept)
        execution.pending = None
        return {"cleared": cleared, "remaining": remaining}

    def op_mark_failed(self, args: object) -> Json:
        """The pending request did not reach the LLM: nothing is cleared."""
        _, execution, _ = self._execution(args, "mark_failed")
        execution.pending = None
        return {"cleared": 0}

    def op_begin_trace(self, args: object) -> Json:
        """Open the trace of the next invocation."""
        _, execution, _ = self._execution(args, "begin_trace")
        if execution.traces and not execution.traces[-1]["ended"]:  # the invocation under way: its trace goes on
            return {"invocation": execution.traces[-1]["invocation"], "startedAt": execution.traces[-1]["startedAt"]}
        trace: Json = {
            "invocation": len(execution.traces) + 1,
            "ended": False,
            "tokens": None,
            "summary": None,
            "steps": [],
            "startedAt": _now(),
            "endedAt": None,
        }
        execution.traces.append(trace)
        return {"invocation": trace["invocation"], "startedAt": trace["startedAt"]}

    def op_add_trace_step(self, args: object) -> Json:
        """Add a step to the open trace."""
        _, execution, fields = self._execution(args, "add_trace_step", "step")
        trace = execution.open_trace()
        step = _value(fields["step"], "step")
        trace["steps"].append(json.loads(json.dumps(step)))
        return {"invocation": trace["invocation"], "steps": len(trace["steps"])}

    def op_end_trace(self, args: object) -> Json:
        """Populate the open trace with its totals and summary, and end it."""
        _, execution, fields = self._execution(args, "end_trace", "tokens", "summary")
        trace = execution.open_trace()
        tokens, summary = _tokens(fields["tokens"]), _object(fields["summary"], "summary")
        summary = {**json.loads(json.dumps(summary)), "stepCount": summary.get("stepCount", len(trace["steps"]))}
        trace.update(ended=True, tokens=tokens, summary=summary, endedAt=_now())
        ended: Json = json.loads(json.dumps(trace))
        return ended

    def op_get_traces(self, args: object) -> Json:
        """The execution's traces, first invocation first."""
        _, execution, _ = self._execution(args, "get_traces")
        return {"traces": json.loads(json.dumps(execution.traces))}

    def op_persist(self, args: object) -> Json:
        """Save the provider under the session id, replacing an earlier save."""
        _, execution, fields = self._execution(args, "persist", "sessionId")
        session_id = _identifier(fields["sessionId"], "sessionId")
        document, saved_at = execution.document(), _now()
        path = self._path(session_id)
        content = json.dumps({"sessionId": session_id, "savedAt": saved_at, "document": document}, ensure_ascii=False)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        Path(temporary).replace(path)
        return {"sessionId": session_id, "provider": document, "savedAt": saved_at}

    def op_rehydrate(self, args: object) -> Json:
        """Give an execution the provider saved under a session id, or a serialized one."""
        if not isinstance(args, dict):
            raise Refusal("INVALID_REQUEST", "rehydrate takes an object")
        source = "provider" if "provider" in args else "sessionId"
        fields = _fields(args, "rehydrate", ("executionId", source))
        execution_id = _identifier(fields["executionId"], "executionId")
        registers: list[Register] | None
        if source == "provider":
            registers = self._from_document(fields["provider"])
        else:
            session_id = _identifier(fields["sessionId"], "sessionId")
            path = self._path(session_id)
            saved = json.loads(path.read_text(encoding="utf-8"))["document"] if path.is_file() else None
            registers = None if saved is None else self._from_document(saved)  # nothing saved: a provider afresh
        existing = self.executions.get(execution_id)
        if existing is None:
            existing = self.executions[execution_id] = self._new_execution(registers)
        return self._answer(execution_id, existing)
