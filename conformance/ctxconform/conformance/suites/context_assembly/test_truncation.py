"""Truncation: property tests over generated linear trees for each strategy, and the settings that drive them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ctxconform.conformance.suites.context_assembly import requirements as R  # noqa: N812 - the ids read as R.X
from ctxconform.conformance.suites.context_assembly.client import (
    AssemblyClient,
    Json,
    Split,
    ceil4,
    dropped_count,
    estimate_readings,
    linear_tree,
    split_messages,
)
from ctxconform.conformance.testing import Checked, Implementation, check, check_equal, check_in, requirement

APPLIES: Final = R.TRUNCATION_APPLIES_WHEN_EXCEEDS
MODEL_LIMIT: Final = R.TRUNCATION_MODEL_LIMIT_DEFAULT
DEFAULT: Final = R.TRUNCATION_TRUNCATE_MIDDLE_DEFAULT
MIDDLE: Final = R.TRUNCATION_MIDDLE_REMOVES_FROM_MIDDLE
RECENT: Final = R.TRUNCATION_MIDDLE_KEEPS_RECENT
UNIT: Final = R.TRUNCATION_RECENT_NODES_UNIT
OVERFLOW: Final = R.TRUNCATION_RECENT_NODES_EXCEED_LIMIT
MARKER: Final = R.TRUNCATION_MARKER_PRESENT
MARKER_BUDGET: Final = R.TRUNCATION_MARKER_BUDGET
MARKER_FORM: Final = R.TRUNCATION_MARKER_FORM
ROLLING: Final = R.TRUNCATION_ROLLING_WINDOW_KEEPS_RECENT
ROLLING_UNIT: Final = R.TRUNCATION_ROLLING_WINDOW_UNIT
STOP: Final = R.TRUNCATION_STOP_AT_LIMIT_ERROR
REMEDIES: Final = R.TRUNCATION_STOP_AT_LIMIT_USER_REMEDIES
SYSTEM_WHOLE: Final = R.GUARANTEES_SYSTEM_CONTEXT_NEVER_TRUNCATED
SYSTEM_LONG: Final = R.GUARANTEES_SYSTEM_CONTEXT_TOO_LONG
SYSTEM_BUDGET: Final = R.GUARANTEES_SYSTEM_ALONE_BUDGET
SYSTEM_STOP: Final = R.GUARANTEES_SYSTEM_TOO_LONG_UNDER_STOP_AT_LIMIT
ONE: Final = R.GUARANTEES_AT_LEAST_ONE_MESSAGE
FLAG: Final = R.GUARANTEES_TRUNCATED_FLAG
DROPPED: Final = R.GUARANTEES_DROPPED_MESSAGE_COUNT
FOUR: Final = R.TOKEN_ESTIMATION_FOUR_CHARS_PER_TOKEN
ROUNDING: Final = R.TOKEN_ESTIMATION_ROUNDING_AND_GRANULARITY
RESERVED: Final = R.TOKEN_ESTIMATION_RESPONSE_BUFFER_RESERVED
MIN_RECENT: Final = R.USER_PREFERENCES_MINIMUM_RECENT_NODES
SCOPE: Final = R.USER_PREFERENCES_MINIMUM_RECENT_NODES_SCOPE
TOKEN_BUFFER: Final = R.USER_PREFERENCES_TOKEN_BUFFER
STRATEGY: Final = R.USER_PREFERENCES_TRUNCATION_STRATEGY
LEVELS: Final = R.USER_PREFERENCES_APP_LEVEL_OR_PER_TREE
FITS: Final = R.DIALOGUE_MODE_TRUNCATE_ONLY_IF_NEEDED
DEDICATED: Final = R.PROVIDER_HANDLING_DEDICATED_FIELD
TRAVERSE: Final = R.DIALOGUE_MODE_TRAVERSE_ROOT_TO_CURRENT
# A small response buffer for tests whose subject is not the buffer (a tokenBuffer of 0 is token-buffer's own case).
TB: Final = 10
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
    token_buffer = draw(st.integers(1, 40))  # a tokenBuffer of 0 is test_token_buffer_setting's own case
    recent = draw(st.one_of(st.none(), st.integers(0, 6)))
    total = estimate_readings([system, *texts])[1]
    limit = token_buffer + draw(st.integers(1, total + 20))
    return Scenario(texts, system, token_buffer, recent, limit, draw(st.booleans()))


def example_scenario(count: int, length: int, *, system: str = "", recent: int | None = None, budget: int) -> Scenario:
    """A fixed scenario with a small response buffer, its settings at app level."""
    return Scenario([node_text(i, length) for i in range(count)], system, TB, recent, budget + TB, in_tree=False)


# Cases random draws rarely reach: the system context between the budget and the limit or over the limit, the last N fitting a
# truncated context, a context that fits.
SYSTEM_OVER_BUDGET: Final = Scenario([node_text(0, 10)], "S" * 80, 10, None, 25, in_tree=False)
SYSTEM_OVER_LIMIT: Final = Scenario([node_text(0, 10)], "S" * 200, 10, None, 25, in_tree=False)
RECENT_FIT: Final = example_scenario(8, 100, recent=2, budget=120)
FITS_NEARLY: Final = example_scenario(3, 100, system="S" * 40, budget=3 * 28 + 11)
FITS_LOOSELY: Final = example_scenario(3, 100, budget=200)


def effective(client: AssemblyClient, scenario: Scenario, strategy: str | None, serves: str) -> Scenario:
    """The scenario with the system context this implementation makes of it (what it returns without truncation).

    Which texts make the system context is system-context-combination's business; the guarantees are about keeping it.
    """
    roomy = {**scenario.request(strategy), "modelContextLimit": 10**7}
    reply = client.assemble(roomy, serves=serves)
    return replace(scenario, system=str(reply.raw.get("systemContext") or "")) if reply.ok else scenario


def within_four_chars(scenario: Scenario) -> bool:
    """Whether the context is at most 90% of four characters per token of the budget (four-chars-per-token's range)."""
    return sum(map(len, [scenario.system, *scenario.texts])) * 10 <= scenario.budget * 4 * 9


def fit_owner(estimate: int, budget: int, *, within_four: bool) -> str | None:
    """Who owns "context that fits comes back whole": four-chars-per-token well inside, else the fit.

    None exactly at the budget: that case is check_budget's, where the fit is checked just before it.
    """
    if within_four:
        return FOUR
    return None if estimate == budget else FITS


def scenario_request(request: Json, strategy: str) -> Json:
    """The request with `strategy` set where the scenario keeps its settings (app or tree level)."""
    level = "settings" if "settings" in request else None
    if level is not None:
        return {**request, "settings": {**request["settings"], "truncationStrategy": strategy}}
    tree = request["tree"]
    return {**request, "tree": {**tree, "settings": {**tree["settings"], "truncationStrategy": strategy}}}


def check_no_system_message(result: Json, system: object) -> None:
    """The system context is in no message (checked first: a message from no node would read as a marker)."""
    holding = [m for m in result["messages"] if system and str(system) in str(m.get("content"))]
    check(DEDICATED, not holding, "the system context is also a message", received=result["messages"])


def check_kept_order(split: Split) -> None:
    """The kept nodes come in path order, each once (checked first, so that later checks may rely on the order)."""
    check(TRAVERSE, split.kept == sorted(set(split.kept)), "kept nodes out of path order or repeated", received=split.kept)


def system_checks(reply: Checked, scenario: Scenario, strategy: str) -> bool:
    """Check the system-context guarantees; return whether the rest of the result should be checked."""
    tokens = ceil4(len(scenario.system))
    if strategy == "stopAtLimit":
        if tokens > scenario.budget:
            reply.refused(SYSTEM_STOP if tokens > scenario.limit else STOP, "systemContextTooLong", "contextExceedsLimit")
            return False
        return True
    if tokens > scenario.limit:
        reply.refused(SYSTEM_LONG, "systemContextTooLong")
        return False
    if tokens > scenario.budget and not reply.ok:
        reply.refused(SYSTEM_BUDGET, "systemContextTooLong", "contextExceedsLimit")
        return False
    return True


def recent_fit(scenario: Scenario) -> bool:
    """Whether the system context and the most recent nodes fit the budget, with room for a marker."""
    return scenario.high(scenario.texts[-scenario.n_recent :]) + MARKER_ALLOWANCE <= scenario.budget


def refusal_checked(reply: Checked, scenario: Scenario, when_fits: str, refusal: str) -> bool:
    """A contextExceedsLimit refusal is a reading only when the recent nodes do not fit: check it, say if refused."""
    if reply.ok:
        return False
    check(when_fits, not recent_fit(scenario), "refused though the last nodes fit", received=reply.error)
    reply.refused(refusal, "contextExceedsLimit")
    return True


def read_back(result: Json, scenario: Scenario, *, allow_cut: bool) -> tuple[Split, list[int]]:
    """The messages matched to the nodes, and the nodes removed."""
    split = split_messages(result["messages"], scenario.texts, allow_cut=allow_cut)
    return split, [i for i in range(len(scenario.texts)) if i not in split.kept]


def guarantee_checks(result: Json, scenario: Scenario, *, allow_cut: bool, applies: str | None) -> Split:
    """The guarantees every strategy keeps, the flags, and truncation exactly when needed."""
    check_no_system_message(result, scenario.system)
    split, removed = read_back(result, scenario, allow_cut=allow_cut)
    check_kept_order(split)
    system = result.get("systemContext")
    check_equal(SYSTEM_WHOLE, system or "", scenario.system, "the system context (as returned without truncation)")
    n = len(scenario.texts)
    last = bool(split.kept) and split.kept[-1] == n - 1 and n - 1 not in split.cut
    check(ONE, last, "the most recent node is not kept whole", received=result["messages"])
    if scenario.high(scenario.texts) <= scenario.budget:
        fits = fit_owner(scenario.high(scenario.texts), scenario.budget, within_four=within_four_chars(scenario))
        if fits is not None:
            check(fits, not removed and not split.markers and not split.cut, "the context fits, yet changed", received=result)
    if applies is not None and scenario.low(scenario.texts) > scenario.budget and n > scenario.n_recent:
        check(applies, bool(removed or split.cut), "the context exceeds the budget, yet nothing removed", received=result)
    flag = bool(removed or split.cut)
    check_equal(FLAG, result["truncated"], flag, f"truncated (removed {removed}, cut {split.cut})")
    if split.ambiguous:  # a message read as a marker and a cut end may be a marker alone, its node removed
        counts = [len(removed), len(removed) + len(split.ambiguous)]
        check_in(DROPPED, dropped_count(result), counts, f"droppedMessageCount (removed {removed}, maybe {split.ambiguous})")
    else:
        check_equal(DROPPED, dropped_count(result), len(removed), f"droppedMessageCount (removed {removed})")
    return split


@requirement(
    APPLIES, DEFAULT, MIDDLE, RECENT, OVERFLOW, MARKER, MARKER_BUDGET, SYSTEM_WHOLE, SYSTEM_LONG, SYSTEM_BUDGET,
    ONE, FLAG, DROPPED, MIN_RECENT, FITS, FOUR, TRAVERSE, DEDICATED,
)  # fmt: skip
@given(scenario=scenarios(), explicit=st.booleans())
@example(scenario=SYSTEM_OVER_BUDGET, explicit=True)
@example(scenario=SYSTEM_OVER_LIMIT, explicit=False)
@example(scenario=RECENT_FIT, explicit=False)
@example(scenario=FITS_NEARLY, explicit=True)
@example(scenario=FITS_LOOSELY, explicit=False)
def test_truncate_middle_properties(implementation: Implementation, scenario: Scenario, explicit: bool) -> None:
    """Under truncateMiddle (set or default): fits or an error; one marker at a contiguous gap; last N kept where they fit."""
    applies = APPLIES if explicit else DEFAULT
    client = AssemblyClient(implementation)
    strategy = "truncateMiddle" if explicit else None
    request = scenario.request(strategy)
    scenario = effective(client, scenario, strategy, applies)
    reply = client.assemble(request, serves=applies)
    if not system_checks(reply, scenario, "truncateMiddle") or refusal_checked(reply, scenario, applies, OVERFLOW):
        return
    result = reply.expect(applies)
    if not explicit:
        chosen = client.assemble(scenario_request(request, "truncateMiddle"), serves=DEFAULT).raw
        check_equal(DEFAULT, result, chosen, "the result without a strategy (the result with truncateMiddle set)")
    split = guarantee_checks(result, scenario, allow_cut=False, applies=applies)
    removed = [i for i in range(len(scenario.texts)) if i not in split.kept]
    marker_checks(split, removed)
    if removed:
        check(MIDDLE, removed == list(range(removed[0], removed[-1] + 1)), "the removed nodes are not one run", received=removed)
    recent = list(range(max(0, len(scenario.texts) - scenario.n_recent), len(scenario.texts)))
    if not recent_fit(scenario):
        check(OVERFLOW, (result.get("systemContext") or "") == scenario.system and split.kept[-1:] == recent[-1:], "lost")
        return
    if scenario.high([scenario.texts[i] for i in recent] + split.marker_texts) <= scenario.budget:
        kept_all = all(i in split.kept for i in recent)
        owner = MIN_RECENT if scenario.recent is not None else RECENT
        check(owner, kept_all, "the last nodes are not all kept", received=split.kept)
        # The last N are what is always kept; a longer run of recent nodes that exceeds the budget keeps more than N
        # against it (checked before the budget of the whole, whose beginning and marker are the other rules').
        tail = recent_run(split.kept, len(scenario.texts))
        tail_fits = scenario.low([scenario.texts[i] for i in tail]) <= scenario.budget
        check(owner, tail_fits, f"recent nodes beyond the last {scenario.n_recent} kept over the budget", received=tail)
        fits = scenario.low([scenario.texts[i] for i in split.kept]) <= scenario.budget
        check(MARKER_BUDGET, fits, "the kept messages exceed the budget", received=split.kept)


def recent_run(kept: list[int], n: int) -> list[int]:
    """The kept nodes that end the path without a gap (the kept end)."""
    run: list[int] = []
    for index in reversed(kept):
        if index != n - 1 - len(run):
            break
        run.insert(0, index)
    return run


def marker_checks(split: Split, removed: list[int]) -> None:
    """One marker, where the removed run starts; none without removal."""
    if not removed:
        check(MARKER, not split.marker_texts, "a marker though nothing was removed", received=split.marker_texts)
        return
    check(MARKER, len(split.marker_texts) == 1, f"not one marker for removed nodes {removed}", received=split.marker_texts)
    check_equal(MARKER, split.markers, [removed[0]], "the kept nodes before the marker")


@requirement(ROLLING, ROLLING_UNIT)
@given(scenario=scenarios())
def test_rolling_window_properties(implementation: Implementation, scenario: Scenario) -> None:
    """Under rollingWindow: a suffix of the messages (the oldest maybe cut), fitting when the recent ones do, maximal."""
    client = AssemblyClient(implementation)
    request = scenario.request("rollingWindow")
    scenario = effective(client, scenario, "rollingWindow", ROLLING)
    reply = client.assemble(request, serves=ROLLING)
    if ceil4(len(scenario.system)) > scenario.budget and not reply.ok:
        return  # the system context alone is over the budget: the guarantees' business (tested below)
    if refusal_checked(reply, scenario, ROLLING, ROLLING):
        return
    result = reply.expect(ROLLING)
    split, _ = read_back(result, scenario, allow_cut=True)
    n = len(scenario.texts)
    kept = split.kept
    check(ROLLING, bool(kept) and kept == list(range(n - len(kept), n)), "not the most recent run", received=kept)
    check(ROLLING_UNIT, not split.cut or split.cut == [kept[0]], "only the oldest kept may be cut", received=split.cut)
    kept_texts = [scenario.texts[i] for i in kept if i not in split.cut] + split.cut_texts
    if scenario.high(scenario.texts[-1:]) <= scenario.budget:
        check(ROLLING, scenario.low(kept_texts) <= scenario.budget, "the kept messages exceed the budget", received=kept)
    if kept[0] > 0 and not split.cut:
        longer = scenario.high(scenario.texts[kept[0] - 1 :] + split.marker_texts) > scenario.budget
        check(ROLLING_UNIT, longer, f"node {kept[0] - 1} was discarded though it fits", received=kept)


@requirement(SYSTEM_WHOLE, SYSTEM_LONG, SYSTEM_BUDGET, ONE, FLAG, DROPPED, FITS, FOUR, TRAVERSE, DEDICATED)
@given(scenario=scenarios())
@example(scenario=SYSTEM_OVER_BUDGET)
@example(scenario=FITS_NEARLY)
@example(scenario=FITS_LOOSELY)
def test_guarantees_under_rolling_window(implementation: Implementation, scenario: Scenario) -> None:
    """The guarantees hold under rollingWindow too: system context whole or refused, one message, honest flags."""
    client = AssemblyClient(implementation)
    request = scenario.request("rollingWindow")
    scenario = effective(client, scenario, "rollingWindow", ONE)
    reply = client.assemble(request, serves=ONE)
    if not system_checks(reply, scenario, "rollingWindow") or not reply.ok:
        return  # a refusal of the messages is test_rolling_window_properties' business
    # Whether rollingWindow removes enough is rolling-window-keeps-recent's business.
    guarantee_checks(reply.expect(ONE), scenario, allow_cut=True, applies=None)


@requirement(STOP, SYSTEM_STOP)
@given(scenario=scenarios())
def test_stop_at_limit_properties(implementation: Implementation, scenario: Scenario) -> None:
    """Under stopAtLimit: everything, untruncated, or contextExceedsLimit when over the budget; never a partial result."""
    client = AssemblyClient(implementation)
    request = scenario.request("stopAtLimit")
    scenario = effective(client, scenario, "stopAtLimit", STOP)
    reply = client.assemble(request, serves=STOP)
    if not system_checks(reply, scenario, "stopAtLimit"):
        return
    if scenario.low(scenario.texts) > scenario.budget:
        reply.refused(STOP, "contextExceedsLimit")
        return
    if not reply.ok and scenario.high(scenario.texts) > scenario.budget:
        reply.refused(STOP, "contextExceedsLimit")
        return
    result = reply.expect(STOP)
    # Their order and any text besides them are other requirements' business: every node, nothing cut.
    contents = sorted(c for c in (m["content"] for m in result["messages"]) if c in scenario.texts)
    check_equal(STOP, contents, sorted(scenario.texts), "the messages of a context that fits")
    flags = {"truncated": result["truncated"], "droppedMessageCount": dropped_count(result)}
    check_equal(STOP, flags, {"truncated": False, "droppedMessageCount": 0}, "the flags")


def hundred_token_path(count: int) -> list[str]:
    """`count` alternating nodes of exactly 100 tokens under both estimate readings."""
    return [node_text(i, 400 - len(node_text(i, 0))) for i in range(count)]


@requirement(REMEDIES, STOP)
def test_stop_at_limit_remedies(client: AssemblyClient) -> None:
    """A refused context assembles once nodes are excluded, or once a larger limit is given."""
    texts = hundred_token_path(6)
    request = linear_tree(texts, limit=450 + TB, settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": TB})
    client.assemble(request, serves=STOP).refused(STOP, "contextExceedsLimit")
    # Generous remedies: how exactly tokens are counted is token-estimation's business.
    for index in (1, 2, 3):
        request["tree"]["nodes"][index]["metadata"] = {"excluded": True}
    result = client.assemble(request, serves=REMEDIES).result
    check(REMEDIES, bool(result["messages"]) and result["truncated"] is False, "excluding nodes did not help", received=result)
    request = linear_tree(texts, limit=1000 + TB, settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": TB})
    result = client.assemble(request, serves=REMEDIES).result
    check_equal(REMEDIES, sorted(m["content"] for m in result["messages"]), sorted(texts), "the messages under the larger limit")


def check_four_chars(client: AssemblyClient, texts: list[str]) -> None:
    """The texts come back whole in a budget they fill to at most 90% at four characters per token.

    Checked first, so that the exact token counts checked after it may rely on about four characters per token.
    """
    budget = -(-sum(map(len, texts)) * 10 // 36) + 10
    result = client.assemble(linear_tree(texts, limit=budget + TB, settings={"tokenBuffer": TB}), serves=FOUR).result
    check(FOUR, result["truncated"] is False, f"truncated in a {budget}-token budget", received=result["truncated"])


def check_budget(client: AssemblyClient, texts: list[str], budget_of: Callable[[int], Json], owner: str) -> None:
    """Around the budget `budget_of(estimate)` gives the texts' estimate: whole below and at it, truncated above it.

    Well below the budget and just over it `owner` is checked; just below, the fit; exactly at it, that only context
    exceeding the budget is truncated.
    """
    estimate = estimate_readings(texts)[1]
    for offset, truncated, requirement_id in ((20, False, owner), (3, False, FITS), (0, False, APPLIES), (-1, True, owner)):
        result = client.assemble(linear_tree(texts, **budget_of(estimate + offset)), serves=requirement_id).result
        check_equal(requirement_id, result["truncated"], truncated, f"truncated, {offset} tokens under the budget")


@requirement(RESERVED, FOUR, FITS, APPLIES)
def test_default_response_buffer_is_1024(client: AssemblyClient) -> None:
    """Limit L: context of L - 1024 tokens is whole, of L - 1023 is truncated (default buffer)."""
    texts = hundred_token_path(10)  # 1000 tokens
    check_four_chars(client, texts)
    check_budget(client, texts, lambda budget: {"limit": budget + 1024}, RESERVED)


@requirement(TOKEN_BUFFER, FOUR, FITS, APPLIES)
@pytest.mark.parametrize("token_buffer", [0, 1, 100])
def test_token_buffer_setting(client: AssemblyClient, token_buffer: int) -> None:
    """With tokenBuffer B the budget is L - B: equal to the estimate fits, one less truncates."""
    texts = hundred_token_path(6)
    check_four_chars(client, texts)
    check_budget(
        client, texts, lambda budget: {"limit": budget + token_buffer, "settings": {"tokenBuffer": token_buffer}}, TOKEN_BUFFER
    )


@requirement(LEVELS, FOUR)
def test_tree_settings_override_app_settings_one_by_one(client: AssemblyClient) -> None:
    """Per setting: the app's tokenBuffer applies where the tree sets another setting, and the tree's wins over it."""
    texts = hundred_token_path(6)  # 600 tokens, 20 under the budget where it fits
    check_four_chars(client, texts)
    request = linear_tree(texts, limit=670, settings={"tokenBuffer": 50}, tree_settings={"minimumRecentNodes": 4})
    result = client.assemble(request, serves=LEVELS).result
    check(
        LEVELS,
        result["truncated"] is False,
        "the app's tokenBuffer (50) did not apply beside the tree's setting",
        received=result,
    )
    request = linear_tree(texts, limit=620 + TB, settings={"tokenBuffer": 50}, tree_settings={"tokenBuffer": TB})
    result = client.assemble(request, serves=LEVELS).result
    check(LEVELS, result["truncated"] is False, f"the tree's tokenBuffer {TB} did not override the app's 50", received=result)


@requirement(LEVELS)
def test_tree_strategy_overrides_app_strategy(client: AssemblyClient) -> None:
    """The tree's truncationStrategy wins over the app's: an oversized context is truncated, not refused."""
    request = linear_tree(
        hundred_token_path(6),
        limit=550 + TB,
        settings={"truncationStrategy": "stopAtLimit"},
        tree_settings={"truncationStrategy": "truncateMiddle", "tokenBuffer": TB},
    )
    reply = client.assemble(request, serves=LEVELS)
    check(LEVELS, reply.ok, "the tree's truncateMiddle did not override the app's stopAtLimit", received=reply.error)
    check(LEVELS, reply.result["truncated"] is True, "an oversized context was not truncated", received=reply.raw)


@requirement(LEVELS)
def test_app_strategy_applies_when_tree_sets_none(client: AssemblyClient) -> None:
    """App-level stopAtLimit applies when the tree sets another setting only: as if the tree had set it."""
    texts = hundred_token_path(6)
    app_level = linear_tree(
        texts, limit=500 + TB, settings={"truncationStrategy": "stopAtLimit"}, tree_settings={"tokenBuffer": TB}
    )
    tree_level = linear_tree(texts, limit=500 + TB, tree_settings={"truncationStrategy": "stopAtLimit", "tokenBuffer": TB})
    # What stopAtLimit does is stop-at-limit-error's business: both levels must give the same answer.
    answers = [client.assemble(request, serves=LEVELS) for request in (app_level, tree_level)]
    got = [(reply.code, reply.raw) for reply in answers]
    check(LEVELS, got[0] == got[1], "the app's stopAtLimit did not apply beside the tree's tokenBuffer", received=got)


def kept_in_order(result: Json, texts: list[str]) -> list[int]:
    """The nodes the messages hold, checked to be in path order first."""
    split = split_messages(result["messages"], texts, allow_cut=True)
    check_kept_order(split)
    return split.kept


RECENT_SETTINGS: Final = [
    pytest.param(None, id="None", marks=requirement(RECENT)),
    *(pytest.param(n, id=str(n), marks=requirement(MIN_RECENT)) for n in (0, 1, 2, 6)),
]


@requirement(TRAVERSE, FOUR)
@pytest.mark.parametrize("recent", RECENT_SETTINGS)
def test_minimum_recent_nodes_kept(client: AssemblyClient, recent: int | None) -> None:
    """Under truncateMiddle the last N (default 4; 0 keeps one, the guarantee) are kept when they fit, whatever else goes."""
    texts = hundred_token_path(10)
    settings: Json = {"tokenBuffer": TB}
    if recent is not None:
        settings["minimumRecentNodes"] = recent
    n = 4 if recent is None else max(1, recent)
    requirement_id = RECENT if recent is None else MIN_RECENT
    check_four_chars(client, texts)
    result = client.assemble(linear_tree(texts, limit=100 * n + 60 + TB, settings=settings), serves=requirement_id).result
    kept = kept_in_order(result, texts)
    check(requirement_id, all(i in kept for i in range(10 - n, 10)), f"the last {n} are not all kept", received=kept)


@requirement(UNIT, TRAVERSE, FOUR)
def test_recent_nodes_counted_over_merged_messages(client: AssemblyClient) -> None:
    """Merged nodes: the last message(s) holding the last N nodes, or the last N messages, are kept."""
    authors = ["human", "model"] * 3 + ["human", "human", "human", "model"]
    texts = hundred_token_path(10)
    check_four_chars(client, texts)
    result = client.assemble(linear_tree(texts, authors, limit=560 + TB, settings={"tokenBuffer": TB}), serves=UNIT).result
    joined = "\u0000".join(m["content"] for m in result["messages"])
    positions = [joined.find(text) for text in texts if text in joined]
    check(TRAVERSE, positions == sorted(positions), "kept nodes out of path order", received=result["messages"])
    check(UNIT, all(texts[i] in joined for i in (6, 7, 8, 9)), "the last nodes were dropped", received=result["messages"])


def system_context_of(client: AssemblyClient, request: Json, serves: str) -> object:
    """The system context this implementation returns for `request` when nothing needs truncating."""
    return client.assemble({**request, "modelContextLimit": 10**7}, serves=serves).result.get("systemContext")


@requirement(OVERFLOW, TRAVERSE, SYSTEM_WHOLE)
def test_recent_nodes_that_do_not_fit(client: AssemblyClient) -> None:
    """System plus the last message over the budget (system alone fits): any reading keeps system and the last message."""
    texts = hundred_token_path(5)
    request = linear_tree(texts, system="S" * 200, limit=120 + TB, settings={"tokenBuffer": TB})
    system = system_context_of(client, request, OVERFLOW)
    reply = client.assemble(request, serves=OVERFLOW)
    if not reply.ok:
        reply.refused(OVERFLOW, "contextExceedsLimit")
        return
    result = reply.result
    kept_in_order(result, texts)
    check_equal(SYSTEM_WHOLE, result.get("systemContext"), system, "the system context (as returned without truncation)")
    kept = result["messages"][-1]["content"] == texts[-1]
    check(OVERFLOW, kept and result["truncated"] is True, "the system context or the last message is lost", received=result)


@requirement(MODEL_LIMIT, FOUR)
def test_no_model_limit(client: AssemblyClient) -> None:
    """Without modelContextLimit: 128,000 tokens (a large context fits) or a spec error, never a crash."""
    small = client.assemble(linear_tree(["Hello.", "Hi."], limit=None), serves=MODEL_LIMIT)
    if not small.ok:
        small.refused(MODEL_LIMIT)
        return
    texts = ["x" * 400_000, "y" * 100_000]  # 125,000 tokens: fits 128,000 - 1024
    check_four_chars(client, texts)
    # The response buffer is set, so that only the default limit is at stake.
    result = client.assemble(linear_tree(texts, limit=None, settings={"tokenBuffer": 1024}), serves=MODEL_LIMIT).result
    check(MODEL_LIMIT, result["truncated"] is False, "truncated under a 128,000 limit", received=result["truncated"])
    over_limit = linear_tree(["x" * 400_000, "y" * 112_000], limit=None, settings={"tokenBuffer": 1024})
    over = client.assemble(over_limit, serves=MODEL_LIMIT).result
    check(MODEL_LIMIT, over["truncated"] is True, "not truncated over 126,976 tokens", received=over["truncated"])


@requirement(SYSTEM_LONG)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_system_context_alone_too_long(client: AssemblyClient, strategy: str) -> None:
    """A system context over the model limit itself is refused with systemContextTooLong (each of its texts is, alone)."""
    request = linear_tree(
        ["Hi."], agent="A" * 1200, system="T" * 1200, limit=250, settings={"truncationStrategy": strategy, "tokenBuffer": 10}
    )
    client.assemble(request, serves=SYSTEM_LONG).refused(SYSTEM_LONG, "systemContextTooLong")


@requirement(SCOPE)
@given(scenario=scenarios())
def test_minimum_recent_nodes_scope_under_rolling_window(implementation: Implementation, scenario: Scenario) -> None:
    """Under rollingWindow with minimumRecentNodes: what fits (at least one) or the last N (readings of the scope)."""
    client = AssemblyClient(implementation)
    request = scenario.request("rollingWindow")
    scenario = effective(client, scenario, "rollingWindow", SCOPE)
    reply = client.assemble(request, serves=SCOPE)
    if ceil4(len(scenario.system)) > scenario.budget and not reply.ok:
        return  # the system context alone is over the budget: the guarantees' business
    if refusal_checked(reply, scenario, SCOPE, SCOPE):
        return
    kept = split_messages(reply.expect(SCOPE)["messages"], scenario.texts, allow_cut=True).kept
    check(SCOPE, kept[-1:] == [len(scenario.texts) - 1], "the most recent node is not kept", received=kept)


def sized_texts(count: int, length: int) -> list[str]:
    """`count` alternating node contents of exactly `length` characters each."""
    return [node_text(i, length - len(node_text(i, 0))) for i in range(count)]


@requirement(FOUR)
@pytest.mark.parametrize(("share", "truncated"), [(0.9, False), (1.1, True)], ids=["90-percent", "110-percent"])
def test_about_four_characters_per_token(client: AssemblyClient, share: float, truncated: bool) -> None:
    """A 500-token budget holds 90% of 2,000 characters and not 110% of them."""
    texts = sized_texts(6, round(2000 * share / 6))
    result = client.assemble(linear_tree(texts, limit=500 + TB, settings={"tokenBuffer": TB}), serves=FOUR).result
    length = sum(map(len, texts))
    check_equal(FOUR, result["truncated"], truncated, f"truncated, for {length} characters in a 500-token budget")


@requirement(DEFAULT)
def test_no_strategy_set_is_truncate_middle(client: AssemblyClient) -> None:
    """Without truncationStrategy anywhere, an oversized context is handled exactly as with truncateMiddle set."""
    texts = [node_text(0, 30), *hundred_token_path(8)[1:]]
    default = client.assemble(linear_tree(texts, limit=450 + TB, settings={"tokenBuffer": TB}), serves=DEFAULT).result
    chosen = linear_tree(texts, limit=450 + TB, settings={"tokenBuffer": TB, "truncationStrategy": "truncateMiddle"})
    check_equal(DEFAULT, default, client.assemble(chosen, serves=DEFAULT).result, "the result without a strategy")


@requirement(STRATEGY, TRAVERSE)
def test_rolling_window_setting_keeps_only_the_end(client: AssemblyClient) -> None:
    """With rollingWindow set, the most recent messages, not the short first one truncateMiddle could keep."""
    texts = [node_text(0, 30), *hundred_token_path(8)[1:]]  # 10 tokens, then 7 of 100
    request = linear_tree(texts, limit=450 + TB, settings={"tokenBuffer": TB, "truncationStrategy": "rollingWindow"})
    kept = kept_in_order(client.assemble(request, serves=STRATEGY).result, texts)
    check(STRATEGY, bool(kept) and kept == list(range(8 - len(kept), 8)), "not the most recent run", received=kept)


@requirement(ROLLING, ROLLING_UNIT)
def test_rolling_window_keeps_what_fits(client: AssemblyClient) -> None:
    """Under rollingWindow the last four 100-token messages fit a 450-token budget and five do not."""
    texts = [node_text(0, 30), *hundred_token_path(8)[1:]]  # 10 tokens, then 7 of 100
    request = linear_tree(texts, limit=450 + TB, settings={"tokenBuffer": TB, "truncationStrategy": "rollingWindow"})
    split = split_messages(client.assemble(request, serves=ROLLING).result["messages"], texts, allow_cut=True)
    whole = [texts[i] for i in split.kept if i not in split.cut]
    shown = {"kept": split.kept, "cut": split.cut}
    check(ROLLING, estimate_readings(whole)[0] <= 450, "the kept messages exceed the budget", received=shown)
    # Both readings of the unit: the last four whole, or the fifth from the end cut to fill the budget.
    fills = split.kept[:1] == [4] or (split.kept[:1] == [3] and split.cut == [3])
    check(ROLLING_UNIT, fills, "fewer recent messages than fit", received=shown)


@requirement(ONE, FLAG, TRAVERSE)
@pytest.mark.parametrize("strategy", ["truncateMiddle", "rollingWindow"])
def test_last_message_too_big_for_the_budget(client: AssemblyClient, strategy: str) -> None:
    """The most recent message alone over the budget: it is still kept (or the call refused), never an empty result."""
    texts = hundred_token_path(3)
    # One message cannot show its order: the path order is checked on the whole context first.
    roomy = linear_tree(texts, limit=10**6, settings={"tokenBuffer": TB, "truncationStrategy": strategy})
    kept_in_order(client.assemble(roomy, serves=TRAVERSE).result, texts)
    request = linear_tree(texts, limit=60 + TB, settings={"tokenBuffer": TB, "truncationStrategy": strategy})
    reply = client.assemble(request, serves=ONE)
    if not reply.ok:
        reply.refused(ONE, "contextExceedsLimit")
        return
    result = reply.result
    kept = kept_in_order(result, texts)
    check(ONE, kept[-1:] == [2], "the most recent message is missing", received=result["messages"])
    check(FLAG, result["truncated"] is True, "nodes were dropped, yet truncated is false", received=result)


@requirement(MARKER_FORM, SYSTEM_WHOLE, DEDICATED, DROPPED)
def test_marker_is_a_message_or_inside_a_neighbour(client: AssemblyClient) -> None:
    """The marker is a message of its own (user or assistant) or text in a kept message: never system, never counted."""
    texts = hundred_token_path(10)
    request = linear_tree(texts, system="Keep notes.", limit=700 + TB, settings={"tokenBuffer": TB})
    system = system_context_of(client, request, MARKER_FORM)
    result = client.assemble(request, serves=MARKER_FORM).result
    check_equal(SYSTEM_WHOLE, result.get("systemContext"), system, "the system context (as returned without truncation)")
    check_no_system_message(result, system)
    split = split_messages(result["messages"], texts)
    in_system = [marker for marker in split.marker_texts if marker.strip() in str(system or "")]
    check(MARKER_FORM, not in_system, "the marker is in the system context", received=result)
    removed = [i for i in range(len(texts)) if i not in split.kept]
    count = dropped_count(result)
    check(MARKER_FORM, count != len(removed) + 1, "droppedMessageCount counts the marker", received=count, expected=len(removed))
    check_equal(DROPPED, count, len(removed), "droppedMessageCount")
    own = [m for m in result["messages"] if not any(text in m["content"] for text in texts)]
    check(MARKER_FORM, all(m["role"] in ("user", "assistant") for m in own), "a marker message's role", received=own)
    check_equal(MARKER_FORM, len(result["messages"]), len(split.kept) + len(own), "messages besides nodes and markers")


# 2,211 characters: 561 tokens by ceil per text, 553 by ceil of the total, 552 rounded down.
ROUNDING_TEXTS: Final = sized_texts(11, 201)


@requirement(FOUR, ROUNDING)
def test_estimate_rounds_up_without_overhead(client: AssemblyClient) -> None:
    """Eleven 201-character texts: over a 552-token budget (no rounding down), within 570 (no per-message token)."""
    check_four_chars(client, ROUNDING_TEXTS)
    # 570 leaves room for a marker beyond the 561 tokens, and less than the 572 a token per message would take.
    for limit, truncated in ((552, True), (570, False)):
        request = linear_tree(ROUNDING_TEXTS, limit=limit + TB, settings={"tokenBuffer": TB, "minimumRecentNodes": 1})
        result = client.assemble(request, serves=ROUNDING).result
        check_equal(ROUNDING, result["truncated"], truncated, f"truncated, for 2,211 characters in a {limit}-token budget")
