"""Truncation: property tests over generated linear trees for each strategy, and the settings that drive them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxconform.conformance._implementation import Implementation
from ctxconform.conformance.suites.context_assembly.client import (
    Json,
    Outcome,
    assemble,
    ceil4,
    estimate_readings,
    linear_tree,
    require,
    split_messages,
)

requirement = pytest.mark.requirement

APPLIES: Final = "context-assembly/truncation/applies-when-exceeds"
DEFAULT: Final = "context-assembly/truncation/truncate-middle-default"
MIDDLE: Final = "context-assembly/truncation/middle-removes-from-middle"
RECENT: Final = "context-assembly/truncation/middle-keeps-recent"
OVERFLOW: Final = "context-assembly/truncation/recent-nodes-exceed-limit"
MARKER: Final = "context-assembly/truncation/marker-present"
MARKER_FORM: Final = "context-assembly/truncation/marker-form"
MARKER_BUDGET: Final = "context-assembly/truncation/marker-budget"
ROLLING: Final = "context-assembly/truncation/rolling-window-keeps-recent"
ROLLING_UNIT: Final = "context-assembly/truncation/rolling-window-unit"
STOP: Final = "context-assembly/truncation/stop-at-limit-error"
REMEDIES: Final = "context-assembly/truncation/stop-at-limit-user-remedies"
SYSTEM_WHOLE: Final = "context-assembly/guarantees/system-context-never-truncated"
SYSTEM_LONG: Final = "context-assembly/guarantees/system-context-too-long"
SYSTEM_BUDGET: Final = "context-assembly/guarantees/system-alone-budget"
SYSTEM_STOP: Final = "context-assembly/guarantees/system-too-long-under-stop-at-limit"
ONE: Final = "context-assembly/guarantees/at-least-one-message"
FLAG: Final = "context-assembly/guarantees/truncated-flag"
DROPPED: Final = "context-assembly/guarantees/dropped-message-count"
FOUR: Final = "context-assembly/token-estimation/four-chars-per-token"
ROUNDING: Final = "context-assembly/token-estimation/rounding-and-granularity"
RESERVED: Final = "context-assembly/token-estimation/response-buffer-reserved"
MIN_RECENT: Final = "context-assembly/user-preferences/minimum-recent-nodes"
SCOPE: Final = "context-assembly/user-preferences/minimum-recent-nodes-scope"
TOKEN_BUFFER: Final = "context-assembly/user-preferences/token-buffer"  # noqa: S105 - a requirement id
STRATEGY: Final = "context-assembly/user-preferences/truncation-strategy"
LEVELS: Final = "context-assembly/user-preferences/app-level-or-per-tree"
FITS: Final = "context-assembly/dialogue-mode/truncate-only-if-needed"
# Room allowed for a marker whose text is unknown before the call, when deciding whether a refusal is excusable.
MARKER_ALLOWANCE: Final = 16


def node_text(index: int, length: int) -> str:
    """A node's content: unique tags around `length` filler characters (no content holds another)."""
    filler = "".join("abcdefghij"[(index + k) % 10] for k in range(length))
    return f"[n{index}]{filler}[/n{index}]"


@dataclass(frozen=True)
class Scenario:
    """A generated linear dialogue: alternating authors (so nodes and messages coincide) and a limit."""

    texts: list[str]
    system: str
    token_buffer: int
    recent: int | None
    limit: int
    in_tree: bool

    @property
    def budget(self) -> int:
        """The model limit minus the response buffer."""
        return self.limit - self.token_buffer

    @property
    def n_recent(self) -> int:
        """How many recent nodes must be kept (the setting, 4 by default, at least 1)."""
        return max(1, self.recent if self.recent is not None else 4)

    def request(self, strategy: str | None) -> Json:
        """The request, its settings at app or tree level; the strategy only when given."""
        settings: Json = {"tokenBuffer": self.token_buffer}
        if self.recent is not None:
            settings["minimumRecentNodes"] = self.recent
        if strategy is not None:
            settings["truncationStrategy"] = strategy
        return linear_tree(
            self.texts,
            system=self.system or None,
            limit=self.limit,
            settings=None if self.in_tree else settings,
            tree_settings=settings if self.in_tree else None,
        )

    def high(self, texts: list[str]) -> int:
        """The highest estimate reading of the system context and `texts`."""
        return estimate_readings([self.system, *texts])[1]

    def low(self, texts: list[str]) -> int:
        """The lowest estimate reading of the system context and `texts`."""
        return estimate_readings([self.system, *texts])[0]


@st.composite
def scenarios(draw: st.DrawFn, max_nodes: int = 12) -> Scenario:
    """Random lengths, a random system context, buffer, minimumRecentNodes and a limit around the total."""
    lengths = draw(st.lists(st.integers(0, 300), min_size=1, max_size=max_nodes))
    texts = [node_text(i, length) for i, length in enumerate(lengths)]
    system = draw(st.one_of(st.just(""), st.integers(1, 240).map(lambda n: "S" * n)))
    token_buffer = draw(st.integers(0, 40))
    recent = draw(st.one_of(st.none(), st.integers(0, 6)))
    total = estimate_readings([system, *texts])[1]
    limit = token_buffer + draw(st.integers(1, total + 20))
    return Scenario(texts, system, token_buffer, recent, limit, draw(st.booleans()))


def system_checks(outcome: Outcome, scenario: Scenario, strategy: str) -> bool:
    """Check the system-context guarantees; return whether the rest of the result should be checked."""
    tokens = ceil4(len(scenario.system))
    errors = ("systemContextTooLong", "contextExceedsLimit") if strategy == "stopAtLimit" else ("systemContextTooLong",)
    if tokens > scenario.limit:
        outcome.refused(SYSTEM_STOP if strategy == "stopAtLimit" else SYSTEM_LONG, *errors)
        return False
    if tokens > scenario.budget and not outcome.ok:
        outcome.refused(SYSTEM_BUDGET, "systemContextTooLong", "contextExceedsLimit")
        return False
    return True


def common_checks(result: Json, scenario: Scenario, *, allow_cut: bool) -> tuple[list[int], list[int], list[str], list[int]]:
    """Guarantees every strategy keeps; returns (kept, removed, marker texts, cut) node indices."""
    require(
        result.get("systemContext", "") in (scenario.system, None), SYSTEM_WHOLE, f"systemContext {result.get('systemContext')!r}"
    )
    if not scenario.system:
        require(result.get("systemContext") in (None, ""), SYSTEM_WHOLE, f"systemContext {result.get('systemContext')!r}")
    split = split_messages(result["messages"], scenario.texts, allow_cut=allow_cut)
    n = len(scenario.texts)
    require(
        split.kept and split.kept[-1] == n - 1 and n - 1 not in split.cut, ONE, f"the most recent node is not kept whole: {split}"
    )
    require(split.kept == sorted(set(split.kept)), MIDDLE, f"kept nodes out of order or repeated: {split.kept}")
    removed = [i for i in range(n) if i not in split.kept]
    require(
        result["truncated"] is bool(removed or split.cut),
        FLAG,
        f"truncated {result['truncated']}, removed {removed}, cut {split.cut}",
    )
    require(
        result["droppedMessageCount"] == len(removed),
        DROPPED,
        f"droppedMessageCount {result['droppedMessageCount']}, removed {removed}",
    )
    if scenario.high(scenario.texts) <= scenario.budget:
        require(not removed and not split.markers and not split.cut, FITS, f"the context fits, yet {removed} removed")
    if scenario.low(scenario.texts) > scenario.budget and n > scenario.n_recent:
        require(removed or split.cut, FOUR, "the context exceeds the budget under every estimate, yet nothing was removed")
    return split.kept, removed, split.marker_texts, split.cut


def excusable_refusal(outcome: Outcome, scenario: Scenario, requirement_id: str) -> bool:
    """A contextExceedsLimit refusal is a reading of recent-nodes-exceed-limit only when the recent nodes do not fit."""
    if outcome.ok:
        return False
    recent = scenario.texts[-scenario.n_recent :]
    require(
        scenario.high(recent) + MARKER_ALLOWANCE > scenario.budget,
        requirement_id,
        f"refused with {outcome.code} though the last nodes fit",
    )
    outcome.refused(OVERFLOW, "contextExceedsLimit")
    return True


@requirement(
    APPLIES, DEFAULT, MIDDLE, RECENT, OVERFLOW, MARKER, MARKER_FORM, MARKER_BUDGET, SYSTEM_WHOLE, SYSTEM_LONG, SYSTEM_BUDGET,
    ONE, FLAG, DROPPED, FOUR, ROUNDING, MIN_RECENT, TOKEN_BUFFER, STRATEGY, LEVELS, FITS,
)  # fmt: skip
@given(scenario=scenarios(), explicit=st.booleans())
def test_truncate_middle_properties(implementation: Implementation, scenario: Scenario, explicit: bool) -> None:
    """Under truncateMiddle (set or default): fits or an error; one marker at a contiguous gap; last N kept where they fit."""
    outcome = assemble(implementation, scenario.request("truncateMiddle" if explicit else None))
    if not system_checks(outcome, scenario, "truncateMiddle") or excusable_refusal(
        outcome, scenario, APPLIES if explicit else DEFAULT
    ):
        return
    result = outcome.result(APPLIES)
    kept, removed, markers, _ = common_checks(result, scenario, allow_cut=False)
    if removed:
        require(len(markers) == 1, MARKER, f"{len(markers)} marker texts for removed nodes {removed}")
        require(removed == list(range(removed[0], removed[-1] + 1)), MIDDLE, f"removed nodes {removed} are not one run")
        split = split_messages(result["messages"], scenario.texts)
        require(
            split.markers == [removed[0]], MARKER, f"marker after {split.markers} kept nodes; the gap starts at node {removed[0]}"
        )
    else:
        require(not markers, MARKER, f"a marker {markers} though nothing was removed")
    recent = list(range(len(scenario.texts) - scenario.n_recent, len(scenario.texts)))
    if scenario.high([scenario.texts[i] for i in recent if i >= 0] + markers) <= scenario.budget:
        requirement_id = MIN_RECENT if scenario.recent is not None else RECENT
        require(
            all(i in kept for i in recent if i >= 0), requirement_id, f"last {scenario.n_recent} nodes not all kept: kept {kept}"
        )
        require(
            scenario.low([scenario.texts[i] for i in kept]) <= scenario.budget,
            MARKER_BUDGET,
            "the kept messages exceed the budget",
        )


@requirement(ROLLING, ROLLING_UNIT, SYSTEM_WHOLE, ONE, FLAG, DROPPED)
@given(scenario=scenarios())
def test_rolling_window_properties(implementation: Implementation, scenario: Scenario) -> None:
    """Under rollingWindow: a suffix of the messages (the oldest maybe cut), fitting when the recent ones do, maximal."""
    outcome = assemble(implementation, scenario.request("rollingWindow"))
    if not system_checks(outcome, scenario, "rollingWindow") or excusable_refusal(outcome, scenario, ROLLING):
        return
    result = outcome.result(ROLLING)
    kept, _, markers, cut = common_checks(result, scenario, allow_cut=True)
    n = len(scenario.texts)
    require(kept == list(range(n - len(kept), n)), ROLLING, f"kept {kept} is not the most recent run")
    require(not cut or cut == [kept[0]], ROLLING_UNIT, f"cut nodes {cut}: only the oldest kept may be cut")
    kept_texts = [scenario.texts[i] for i in kept if i not in cut]
    kept_texts += [
        m["content"]
        for m in result["messages"]
        if m["content"] not in scenario.texts and any(t.endswith(m["content"]) for t in scenario.texts)
    ]
    if scenario.high(scenario.texts[-scenario.n_recent :]) <= scenario.budget:
        require(scenario.low(kept_texts) <= scenario.budget, ROLLING, f"kept {kept} exceeds the budget")
    if kept[0] > 0 and not cut:
        require(
            scenario.high(scenario.texts[kept[0] - 1 :] + markers) > scenario.budget,
            ROLLING_UNIT,
            f"node {kept[0] - 1} was discarded though it fits with the kept ones",
        )


@requirement(STOP, SYSTEM_STOP)
@given(scenario=scenarios())
def test_stop_at_limit_properties(implementation: Implementation, scenario: Scenario) -> None:
    """Under stopAtLimit: everything, untruncated, or contextExceedsLimit when over the budget; never a partial result."""
    outcome = assemble(implementation, scenario.request("stopAtLimit"))
    if not system_checks(outcome, scenario, "stopAtLimit"):
        return
    if scenario.low(scenario.texts) > scenario.budget:
        outcome.refused(
            STOP, "contextExceedsLimit", *(("systemContextTooLong",) if ceil4(len(scenario.system)) > scenario.budget else ())
        )
        return
    if not outcome.ok and scenario.high(scenario.texts) > scenario.budget:
        outcome.refused(STOP, "contextExceedsLimit")
        return
    result = outcome.result(STOP)
    require([m["content"] for m in result["messages"]] == scenario.texts, STOP, "stopAtLimit changed the messages")
    require(
        result["truncated"] is False and result["droppedMessageCount"] == 0,
        STOP,
        f"flags {result['truncated']}, {result['droppedMessageCount']}",
    )


@requirement(REMEDIES)
def test_stop_at_limit_remedies(implementation: Implementation) -> None:
    """A refused context assembles once nodes are excluded, or once a larger limit is given."""
    texts = hundred_token_path(6)
    request = linear_tree(texts, limit=450, settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": 0})
    assemble(implementation, request).refused(STOP, "contextExceedsLimit")
    for index in (1, 2):
        request["tree"]["nodes"][index]["metadata"] = {"excluded": True}
    result = assemble(implementation, request).result(REMEDIES)
    require(len(result["messages"]) >= 1 and result["truncated"] is False, REMEDIES, f"flags {result['truncated']}")
    request = linear_tree(texts, limit=600, settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": 0})
    result = assemble(implementation, request).result(REMEDIES)
    require([m["content"] for m in result["messages"]] == texts, REMEDIES, "not every message returned under the larger limit")


def hundred_token_path(count: int) -> list[str]:
    """`count` alternating nodes of exactly 100 tokens under both estimate readings."""
    return [node_text(i, 400 - len(node_text(i, 0))) for i in range(count)]


@requirement(RESERVED, TOKEN_BUFFER)
def test_default_response_buffer_is_1024(implementation: Implementation) -> None:
    """Limit L: context of L - 1024 tokens is whole, of L - 1023 is truncated (default buffer)."""
    texts = hundred_token_path(10)  # 1000 tokens
    whole = assemble(implementation, linear_tree(texts, limit=1000 + 1024)).result(RESERVED)
    require(whole["truncated"] is False and len(whole["messages"]) == 10, RESERVED, "truncated at exactly L - 1024")
    cut = assemble(implementation, linear_tree(texts, limit=1000 + 1023)).result(RESERVED)
    require(cut["truncated"] is True, RESERVED, "not truncated at L - 1023")


@requirement(TOKEN_BUFFER, APPLIES)
@pytest.mark.parametrize("token_buffer", [0, 1, 100])
def test_token_buffer_setting(implementation: Implementation, token_buffer: int) -> None:
    """With tokenBuffer B the budget is L - B: equal to the estimate fits, one less truncates."""
    texts = hundred_token_path(6)
    fits = linear_tree(texts, limit=600 + token_buffer, settings={"tokenBuffer": token_buffer})
    require(assemble(implementation, fits).result(TOKEN_BUFFER)["truncated"] is False, APPLIES, "truncated at estimate == budget")
    over = linear_tree(texts, limit=599 + token_buffer, settings={"tokenBuffer": token_buffer})
    require(assemble(implementation, over).result(TOKEN_BUFFER)["truncated"] is True, TOKEN_BUFFER, "not truncated at budget + 1")


@requirement(LEVELS, STRATEGY)
def test_tree_settings_override_app_settings_one_by_one(implementation: Implementation) -> None:
    """The tree's truncationStrategy wins over the app's; the app's tokenBuffer applies where the tree sets none."""
    texts = hundred_token_path(6)
    request = linear_tree(
        texts,
        limit=550 + 50,
        settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": 50},
        tree_settings={"truncationStrategy": "truncateMiddle"},
    )
    result = assemble(implementation, request).result(LEVELS)
    require(result["truncated"] is True, LEVELS, "the app's tokenBuffer (50) was not applied, or the tree's strategy was not")
    request["tree"]["settings"] = {"tokenBuffer": 0}
    result = assemble(implementation, request).result(LEVELS)
    require(result["truncated"] is False, LEVELS, "the tree's tokenBuffer 0 did not override the app's 50")


@requirement(STOP, LEVELS, STRATEGY)
def test_app_strategy_applies_when_tree_sets_none(implementation: Implementation) -> None:
    """App-level stopAtLimit applies when the tree sets another setting only."""
    if "stop_at_limit" not in implementation.features("context-assembly"):
        pytest.skip("stop_at_limit not declared")
    request = linear_tree(
        hundred_token_path(6), limit=500, settings={"truncationStrategy": "stopAtLimit"}, tree_settings={"tokenBuffer": 0}
    )
    assemble(implementation, request).refused(STOP, "contextExceedsLimit")


@requirement(MIN_RECENT, RECENT, "context-assembly/truncation/recent-nodes-unit")
@pytest.mark.parametrize("recent", [None, 0, 1, 2, 6])
def test_minimum_recent_nodes_kept(implementation: Implementation, recent: int | None) -> None:
    """Under truncateMiddle the last N (default 4; 0 keeps one, the guarantee) are kept when they fit, whatever else goes."""
    texts = hundred_token_path(10)
    settings: Json = {"tokenBuffer": 0}
    if recent is not None:
        settings["minimumRecentNodes"] = recent
    n = 4 if recent is None else max(1, recent)
    requirement_id = RECENT if recent is None else MIN_RECENT
    result = assemble(implementation, linear_tree(texts, limit=100 * n + 60, settings=settings)).result(requirement_id)
    split = split_messages(result["messages"], texts)
    require(all(i in split.kept for i in range(10 - n, 10)), requirement_id, f"kept {split.kept}; the last {n} must be")


@requirement("context-assembly/truncation/recent-nodes-unit")
def test_recent_nodes_counted_over_merged_messages(implementation: Implementation) -> None:
    """Merged nodes: the last message(s) holding the last N nodes, or the last N messages, are kept."""
    authors = ["human", "model"] * 3 + ["human", "human", "human", "model"]
    texts = hundred_token_path(10)
    result = assemble(implementation, linear_tree(texts, authors, limit=560, settings={"tokenBuffer": 0})).result(
        "context-assembly/truncation/recent-nodes-unit"
    )
    joined = "\u0000".join(m["content"] for m in result["messages"])
    require(
        all(texts[i] in joined for i in (6, 7, 8, 9)),
        "context-assembly/truncation/recent-nodes-unit",
        "the last nodes were dropped",
    )


@requirement(OVERFLOW)
def test_recent_nodes_that_do_not_fit(implementation: Implementation) -> None:
    """System plus the last message over the budget (system alone fits): any reading keeps system and the last message."""
    texts = hundred_token_path(5)
    outcome = assemble(implementation, linear_tree(texts, system="S" * 200, limit=120, settings={"tokenBuffer": 0}))
    if not outcome.ok:
        outcome.refused(OVERFLOW, "contextExceedsLimit")
        return
    result = outcome.result(OVERFLOW)
    require(result.get("systemContext") == "S" * 200, SYSTEM_WHOLE, "system context changed")
    require(result["messages"][-1]["content"] == texts[-1] and result["truncated"] is True, OVERFLOW, f"{result}")


@requirement("context-assembly/truncation/model-limit-default")
def test_no_model_limit(implementation: Implementation) -> None:
    """Without modelContextLimit: 128,000 tokens (a large context fits) or a spec error, never a crash."""
    small = assemble(implementation, linear_tree(["Hello.", "Hi."]))
    if not small.ok:
        small.refused("context-assembly/truncation/model-limit-default")
        return
    texts = ["x" * 400_000, "y" * 100_000]  # 125,000 tokens: fits 128,000 - 1024
    result = assemble(implementation, linear_tree(texts)).result("context-assembly/truncation/model-limit-default")
    require(result["truncated"] is False, "context-assembly/truncation/model-limit-default", "truncated under a 128,000 limit")
    over = assemble(implementation, linear_tree(["x" * 400_000, "y" * 112_000])).result(
        "context-assembly/truncation/model-limit-default"
    )
    require(over["truncated"] is True, "context-assembly/truncation/model-limit-default", "not truncated over 126,976 tokens")


@requirement(SYSTEM_LONG, SYSTEM_WHOLE)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_system_context_alone_too_long(implementation: Implementation, strategy: str) -> None:
    """A system context over the model limit itself is refused with systemContextTooLong."""
    if strategy == "rollingWindow" and "rolling_window" not in implementation.features("context-assembly"):
        pytest.skip("rolling_window not declared")
    request = linear_tree(
        ["Hi."], agent="A" * 600, system="T" * 600, limit=250, settings={"truncationStrategy": strategy, "tokenBuffer": 10}
    )
    assemble(implementation, request).refused(SYSTEM_LONG, "systemContextTooLong")


@requirement(SCOPE)
@given(scenario=scenarios())
def test_minimum_recent_nodes_scope_under_rolling_window(implementation: Implementation, scenario: Scenario) -> None:
    """Under rollingWindow with minimumRecentNodes: what fits (at least one) or the last N (readings of the scope)."""
    if "rolling_window" not in implementation.features("context-assembly"):
        pytest.skip("rolling_window not declared")
    outcome = assemble(implementation, scenario.request("rollingWindow"))
    if not system_checks(outcome, scenario, "rollingWindow") or excusable_refusal(outcome, scenario, SCOPE):
        return
    result = outcome.result(SCOPE)
    split = split_messages(result["messages"], scenario.texts, allow_cut=True)
    require(split.kept and split.kept[-1] == len(scenario.texts) - 1, SCOPE, f"kept {split.kept}")


def sized_texts(count: int, length: int) -> list[str]:
    """`count` alternating node contents of exactly `length` characters each."""
    return [node_text(i, length - len(node_text(i, 0))) for i in range(count)]


@requirement(FOUR)
@pytest.mark.parametrize(("share", "truncated"), [(0.9, False), (1.1, True)], ids=["90-percent", "110-percent"])
def test_about_four_characters_per_token(implementation: Implementation, share: float, truncated: bool) -> None:
    """A 500-token budget holds 90% of 2,000 characters and not 110% of them."""
    texts = sized_texts(6, round(2000 * share / 6))
    result = assemble(implementation, linear_tree(texts, limit=500, settings={"tokenBuffer": 0})).result(FOUR)
    length = sum(map(len, texts))
    require(result["truncated"] is truncated, FOUR, f"{length} characters in a 500-token budget: truncated {result['truncated']}")


@requirement(DEFAULT)
def test_no_strategy_set_is_truncate_middle(implementation: Implementation) -> None:
    """Without truncationStrategy anywhere, an oversized context is handled exactly as with truncateMiddle set."""
    texts = [node_text(0, 30), *hundred_token_path(8)[1:]]
    default = assemble(implementation, linear_tree(texts, limit=450, settings={"tokenBuffer": 0})).result(DEFAULT)
    chosen = linear_tree(texts, limit=450, settings={"tokenBuffer": 0, "truncationStrategy": "truncateMiddle"})
    require(default == assemble(implementation, chosen).result(DEFAULT), DEFAULT, f"default {default}")


@requirement(STRATEGY, ROLLING)
def test_rolling_window_setting_keeps_only_the_end(implementation: Implementation) -> None:
    """With rollingWindow set, the most recent messages that fit, not the short first one truncateMiddle could keep."""
    if "rolling_window" not in implementation.features("context-assembly"):
        pytest.skip("rolling_window not declared")
    texts = [node_text(0, 30), *hundred_token_path(8)[1:]]  # 10 tokens, then 7 of 100
    request = linear_tree(texts, limit=450, settings={"tokenBuffer": 0, "truncationStrategy": "rollingWindow"})
    result = assemble(implementation, request).result(STRATEGY)
    split = split_messages(result["messages"], texts, allow_cut=True)
    kept = split.kept
    require(kept == list(range(8 - len(kept), 8)), STRATEGY, f"kept nodes {kept} are not the most recent run")
    require(
        kept[:1] == [4] or (kept[:1] == [3] and split.cut == [3]),
        ROLLING,
        f"kept nodes {kept} (cut {split.cut}): the last four fit and five do not",
    )


@requirement(ONE, ROLLING, FLAG)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_last_message_too_big_for_the_budget(implementation: Implementation, strategy: str) -> None:
    """The most recent message alone over the budget: it is still kept (or the call refused), never an empty result."""
    if strategy == "rollingWindow" and "rolling_window" not in implementation.features("context-assembly"):
        pytest.skip("rolling_window not declared")
    texts = hundred_token_path(3)
    outcome = assemble(implementation, linear_tree(texts, limit=60, settings={"tokenBuffer": 0, "truncationStrategy": strategy}))
    if not outcome.ok:
        outcome.refused(OVERFLOW, "contextExceedsLimit")
        return
    result = outcome.result(ONE)
    kept = split_messages(result["messages"], texts, allow_cut=True)
    require(kept.kept[-1:] == [2], ONE, f"the most recent message is missing: {result['messages']}")
    require(result["truncated"] is True, FLAG, "nodes were dropped, yet truncated is false")
