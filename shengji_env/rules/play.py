"""Leading, throws, following, ruffs and the trick winner (RULES.md §7-9).

Every function takes count vectors ``uint8[54]`` and never writes to them. ``ctx`` is a
``TrumpContext``; ``cfg`` a ``Rules``. Following: §8.1-8.2 here for 1 and 2 decks; the 3- and
4-deck structure obligation (§8.3: triples, Titanics, quads, carriers) is ``follow_tuples``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

import numpy as np

from .. import cards
from ..cards import NUM_CARDS
from . import follow_tuples
from .order import TRUMP, TrumpContext, single_suit, suits_present
from .patterns import (
    Unit,
    _placements,
    decompose,
    match_value,
    pair_counts,
    pairs,
    suit_layout,
    tractor_pairs,
)


def _u8(x) -> np.ndarray:
    a = np.asarray(x)
    if a.shape != (NUM_CARDS,):
        raise ValueError(f"expected a count vector of shape (54,), got shape {a.shape}")
    return a.astype(np.int64)


# ---------------------------------------------------------------------------------- leads §7

def is_legal_lead(lead: np.ndarray, ctx: TrumpContext) -> bool:
    """A lead is legal to attempt iff it is non-empty and of one effective suit (§7.2)."""
    return len(suits_present(lead, ctx)) == 1


@dataclass(frozen=True)
class ThrowResult:
    """Outcome of validating a lead (§7.3-7.4).

    ``ok``: the lead stands as attempted. Otherwise ``candidates`` holds the forced unit of each
    failing unit type (``uint8[54]`` each, in decomposition order) and ``forced`` is the one led,
    chosen by ``failed_throw_choice`` — ``None`` under ``NEXT_PLAYER`` when there are several
    candidates (the leader's next player picks one).
    """

    ok: bool
    forced: np.ndarray | None = None
    candidates: list = field(default_factory=list)


def beats_unit(hand: np.ndarray, unit: Unit, suit: int, ctx: TrumpContext,
               tuple_beats_chain: bool = False) -> bool:
    """True iff ``hand`` holds, in ``suit``, a unit of the same (k, length) with a strictly
    higher top — possibly cut out of a bigger structure (§7.3). With ``tuple_beats_chain`` a
    chain unit (length >= 2) is also beaten by any unit of larger k with the same number of
    cards, whatever its rank (a quad beats a 2-pair tractor, a 2-triple Titanic a 3-pair tractor;
    a quad does not break a 3-pair tractor)."""
    most = _position_most(_ints(hand), suit, ctx)
    return _beats(most, unit, ctx.decks, tuple_beats_chain)


def _ints(counts) -> list[int]:
    """A count vector (``[54]``, any integer dtype) as a list of Python ints."""
    a = np.asarray(counts)
    if a.shape != (NUM_CARDS,):
        raise ValueError(f"expected a count vector of shape (54,), got shape {a.shape}")
    return (a if a.dtype.kind in "iu" else a.astype(np.int64)).tolist()


def _int_rows(hands) -> list[list[int]]:
    """Count vectors (a sequence of ``[54]``, or one ``[h, 54]`` array) as lists of Python
    ints: one conversion for all of them."""
    a = np.asarray(hands)
    if a.ndim != 2 or a.shape[1] != NUM_CARDS:
        raise ValueError(f"expected count vectors of shape (54,), got shape {a.shape[1:]}")
    return (a if a.dtype.kind in "iu" else a.astype(np.int64)).tolist()


def _position_most(hand: list, suit: int, ctx: TrumpContext) -> list[int]:
    """The most copies of one identity ``hand`` (Python ints) holds at each position of
    effective suit ``suit``: what every run test reads (one pass over the hand for all units)."""
    first, shared = _position_reader(suit, ctx)
    most = [hand[c] for c in first]
    for i, ids in shared:  # positions of several identities (the off-suit level cards)
        most[i] = max([hand[c] for c in ids], default=0)
    return most


def _position_reader(suit: int, ctx: TrumpContext):
    """For ``_position_most``: the first identity at each position of ``suit``, and the
    positions holding several identities (or none) with their identities; cached on the
    context."""
    def build():
        layout = suit_layout(suit, ctx)
        return ([ids[0] if ids else 0 for ids in layout],
                [(i, ids) for i, ids in enumerate(layout) if len(ids) != 1])
    return ctx.memo("position_reader", suit, build)


def _beats(most: list, unit: Unit, decks: int, tuple_beats_chain: bool) -> bool:
    """``beats_unit`` on a hand given as its ``_position_most`` in the unit's suit."""
    return (_has_run(most, unit.k, unit.length, unit.top + 1)
            or (tuple_beats_chain and _beats_by_larger(most, unit, decks)))


def _beats_by_larger(most: list, unit: Unit, decks: int) -> bool:
    """``tuple_beats_chain``: a chain ``unit`` (length >= 2) is beaten by any unit of larger k
    with the same number of cards, whatever its rank."""
    if unit.length >= 2:
        for k in range(unit.k + 1, decks + 1):
            if unit.size % k == 0 and _has_run(most, k, unit.size // k, 0):
                return True
    return False


def _has_run(most: list, k: int, length: int, min_top: int) -> bool:
    """Can a (k, length) unit with top >= ``min_top`` be cut from a hand (``most``: its
    ``_position_most``): ``length`` consecutive positions each holding some identity ``k``
    times (§6.1)? Such a run lies at or after position ``min_top - length + 1``: the scan
    starts there."""
    run = 0
    for m in most[max(0, min_top - length + 1):]:
        run = run + 1 if m >= k else 0
        if run >= length:
            return True
    return False


def validate_throw(lead: np.ndarray, other_hands, ctx: TrumpContext, cfg) -> ThrowResult:
    """Validate a lead against the three other hands (in playing order after the leader).

    A simple lead (one unit) always stands. A throw fails if any unit is beaten by a strictly
    higher unit of the same type in any other hand (the partner's included; the kitty belongs to
    nobody), §7.3. On failure, per failing type the smallest unit of that type is a candidate
    (§7.4.2); the forced lead is chosen per ``cfg.failed_throw_choice`` (§7.4.3).
    """
    return judge_throw(lead, other_hands, ctx, cfg, find_beater=False)[0]


def judge_throw(lead: np.ndarray, other_hands, ctx: TrumpContext, cfg, find_beater: bool = True
                ) -> tuple[ThrowResult, int | None]:
    """``validate_throw``, and (``find_beater``) the first of ``other_hands`` (index 0-2) holding a
    unit of the same type that beats a unit of the throw (``None``: no hand does, or not asked;
    with ``tuple_beats_chain`` a throw can fail through a larger tuple only). Each hand is read
    once (as Python ints) for both answers."""
    lead = _u8(lead)
    suit = single_suit(lead, ctx)
    units = decompose(lead, ctx)
    if len(units) <= 1:
        return ThrowResult(ok=True), None
    if len(other_hands) != 3:
        raise ValueError(f"other_hands must hold the 3 other seats' hands, got {len(other_hands)}")
    decks, tbc = ctx.decks, cfg.tuple_beats_chain
    hands = [_position_most(h, suit, ctx) for h in _int_rows(other_hands)]
    # A hand that beats a unit of a type beats every unit of that type with a lower (or the
    # same) top: a type fails iff its lowest unit is beaten, and that unit is its candidate
    # (§7.4.2; decompose() orders equal tops by suit S, H, C, D: the first of the lowest).
    lowest: dict[tuple[int, int], Unit] = {}
    for u in units:
        if u.shape not in lowest or u.top < lowest[u.shape].top:
            lowest[u.shape] = u
    types = list(lowest.values())  # in decomposition order
    # own[k][t]: hand k beats type t by a unit of that type
    own = [[_has_run(h, u.k, u.length, u.top + 1) for u in types] for h in hands]
    candidates = [u for t, u in enumerate(types) if any(row[t] for row in own)
                  or (tbc and any(_beats_by_larger(h, u, decks) for h in hands))]
    # the first hand beating a unit by its own type (with tuple_beats_chain a hand can beat
    # by a larger tuple only)
    beater = next((k for k, row in enumerate(own) if any(row)), None) if find_beater else None
    if not candidates:
        return ThrowResult(ok=True), beater
    if len(candidates) == 1:
        forced = candidates[0]
    elif cfg.failed_throw_choice == "NEXT_PLAYER":
        return ThrowResult(ok=False, forced=None, candidates=[u.counts for u in candidates]), beater
    elif cfg.failed_throw_choice == "AUTO_LOWEST_RANK":
        forced = min(candidates, key=lambda u: (u.top, u.size))
    else:  # AUTO_FEWEST_CARDS
        forced = min(candidates, key=lambda u: (u.size, u.top))
    return (ThrowResult(ok=False, forced=forced.counts.copy(), candidates=[u.counts for u in candidates]),
            beater)


# ------------------------------------------------------------------------------- follows §8

def lead_requirements(lead: np.ndarray, ctx: TrumpContext) -> tuple[int, list[int]]:
    """(pL, tL) of §8.2: pairs in the lead (a tractor of length m counts m) and the lengths of
    its tractors."""
    units = decompose(lead, ctx)
    p_lead = sum(u.length for u in units if u.k == 2)
    t_lead = [u.length for u in units if u.k == 2 and u.length >= 2]
    return p_lead, t_lead


def _suit_cards(hand: np.ndarray, suit: int, ctx: TrumpContext) -> np.ndarray:
    return np.where(ctx.effective_suits == suit, hand, 0)


def is_legal_follow(hand: np.ndarray, lead: np.ndarray, play: np.ndarray, ctx: TrumpContext,
                    cfg) -> bool:
    """Is ``play`` a legal follow to ``lead`` from ``hand`` (the follower's cards before playing)?

    §8.1 suit obligation; §8.2 structure obligation (2 decks): ``trac(X) = trac(H_E)`` and
    ``min(pairs(X), pL) = min(pairs(H_E), pL)``; with ``follow_partial_tractor`` the play must
    also maximise the pairs covered by tractors (capped at the lead's tractor pairs). 3 and 4
    decks: the per-unit shapes of §8.3 (``follow_tuples``).
    """
    hand, lead, play = _u8(hand), _u8(lead), _u8(play)
    n = int(lead.sum())
    if int(play.sum()) != n or (play > hand).any():
        return False
    suit = single_suit(lead, ctx)
    in_suit = _suit_cards(hand, suit, ctx)
    have = int(in_suit.sum())
    if have == 0:
        return True
    if have < n:
        return bool((play >= in_suit).all())  # all of H_E plus anything
    if (play != _suit_cards(play, suit, ctx)).any():
        return False
    return _structure_ok(in_suit, lead, play, suit, ctx, cfg)


def _structure_ok(in_suit, lead, play, suit, ctx, cfg) -> bool:
    if ctx.decks == 1:
        return True
    if ctx.decks >= 3:
        return follow_tuples.is_legal(in_suit, lead, play, ctx, cfg)
    p_lead, t_lead = lead_requirements(lead, ctx)
    if tractor_pairs(play, suit, t_lead, ctx) != tractor_pairs(in_suit, suit, t_lead, ctx):
        return False
    if min(pairs(play), p_lead) != min(pairs(in_suit), p_lead):
        return False
    if cfg.follow_partial_tractor and t_lead:
        return _covered(play, suit, ctx, sum(t_lead)) == _partial_follows(
            _key(in_suit), _key(lead), suit, ctx)[1]
    return True


def _covered(play, suit, ctx, cap: int) -> int:
    """Pairs of ``play`` coverable by disjoint tractors of length >= 2, at most ``cap`` (§8.2)."""
    return min(cap, _cover(tuple(pair_counts(play, suit, ctx))))


@lru_cache(maxsize=100_000)
def _cover(pc: tuple) -> int:
    first = next((i for i, c in enumerate(pc) if c), None)
    if first is None:
        return 0
    rest = list(pc)
    rest[first] -= 1
    best = _cover(tuple(rest))  # this pair stays outside any tractor
    end = first
    while end + 1 < len(pc) and pc[end + 1] > 0:
        end += 1
        cut = list(pc)
        for i in range(first, end + 1):
            cut[i] -= 1
        best = max(best, end - first + 1 + _cover(tuple(cut)))
    return best


def _key(counts) -> bytes:
    """The bytes of ``counts`` as ``int64[54]``: a cache key for a hand's suit or a lead."""
    return np.asarray(counts, dtype=np.int64).tobytes()


@lru_cache(maxsize=256)
def _partial_follows(in_suit_key: bytes, lead_key: bytes, suit: int,
                     ctx: TrumpContext) -> tuple[np.ndarray, int]:
    """``follow_partial_tractor`` with 2 decks and a lead holding a tractor: every legal follow
    from H_E (``in_suit``, at least as many cards as the lead), ``uint8[m, 54]``, and the most
    pairs a follow meeting the two §8.2 conditions covers by tractors (the option's third
    condition is to reach it). Enumerated once per (H_E, lead): the follower's mask asks about
    every card of every prefix of its play, each a question about this same set."""
    in_suit = np.frombuffer(in_suit_key, dtype=np.int64)
    lead = np.frombuffer(lead_key, dtype=np.int64)
    n = int(lead.sum())
    p_lead, t_lead = lead_requirements(lead, ctx)
    want_t = tractor_pairs(in_suit, suit, t_lead, ctx)
    want_p = min(pairs(in_suit), p_lead)
    meeting, covered = [], []
    for x in submultisets(in_suit, n):
        if tractor_pairs(x, suit, t_lead, ctx) == want_t and min(pairs(x), p_lead) == want_p:
            meeting.append(x)
            covered.append(_covered(x, suit, ctx, sum(t_lead)))
    best = max(covered, default=0)
    legal = np.array([x for x, c in zip(meeting, covered) if c == best], dtype=np.uint8)
    legal = legal.reshape(-1, NUM_CARDS)
    legal.flags.writeable = False  # cached: shared by every caller
    return legal, best


def submultisets(counts: np.ndarray, size: int):
    """Every distinct sub-multiset of ``counts`` with ``size`` cards (``int64[54]`` each)."""
    counts = np.asarray(counts, dtype=np.int64)
    ids = [int(c) for c in np.flatnonzero(counts)]
    caps = [int(counts[c]) for c in ids]
    suffix = np.cumsum(caps[::-1])[::-1].tolist() + [0]

    def rec(i, left, chosen):
        if left == 0:
            out = np.zeros(NUM_CARDS, dtype=np.int64)
            for c, m in chosen:
                out[c] = m
            yield out
            return
        if i == len(ids) or suffix[i] < left:
            return
        for m in range(min(caps[i], left), -1, -1):
            yield from rec(i + 1, left - m, chosen + [(ids[i], m)] if m else chosen)

    yield from rec(0, size, [])


def legal_follows(hand: np.ndarray, lead: np.ndarray, ctx: TrumpContext, cfg) -> list[np.ndarray]:
    """All distinct legal follows (``uint8[54]`` each) by enumeration — for small cases/tests."""
    hand, lead = _u8(hand), _u8(lead)
    n = int(lead.sum())
    suit = single_suit(lead, ctx)
    in_suit = _suit_cards(hand, suit, ctx)
    have = int(in_suit.sum())
    if have >= n:
        pool, base, size = in_suit, np.zeros(NUM_CARDS, dtype=np.int64), n
    elif have > 0:
        pool, base, size = hand - in_suit, in_suit, n - have
    else:
        pool, base, size = hand, np.zeros(NUM_CARDS, dtype=np.int64), n
    out = []
    for x in submultisets(pool, size):
        play = base + x
        if have < n or _structure_ok(in_suit, lead, play, suit, ctx, cfg):
            out.append(play.astype(np.uint8))
    return out


def legal_next_cards(hand: np.ndarray, lead: np.ndarray | None, selection: np.ndarray,
                     ctx: TrumpContext, cfg) -> np.ndarray:
    """``bool[54]`` — cards that may be added to ``selection`` (DESIGN §4, prefix-closed).

    ``hand``: the player's cards including the selection; ``lead``: the trick's lead, or
    ``None`` when this player is leading. A card is legal iff selection + card can still be
    completed to a legal play: a lead (any cards of one effective suit, §7.2) or a follow (§8).
    """
    hand, sel = _u8(hand), _u8(selection)
    if (sel > hand).any():
        raise ValueError("the selection holds cards that are not in the hand")
    free = hand - sel > 0
    if lead is None:
        if not sel.any():
            return free
        return free & (ctx.effective_suits == single_suit(sel, ctx))
    lead = _u8(lead)
    n = int(lead.sum())
    if int(sel.sum()) >= n:
        return np.zeros(NUM_CARDS, dtype=bool)
    lead_key = lead.tobytes()  # the facts of a lead, once per lead (every follower, every card)
    suit = _lead_suit(lead_key, ctx)
    in_suit = _suit_cards(hand, suit, ctx)
    have = int(in_suit.sum())
    is_suit = ctx.effective_suits == suit
    if have == 0:
        return free
    if have < n:
        # every card of H_E must be played; the other slots take anything
        others_left = (n - have) - int(sel[~is_suit].sum())
        return free & (is_suit | (others_left > 0))
    out = np.zeros(NUM_CARDS, dtype=bool)
    if ctx.decks >= 3 and n == 1:
        return free & is_suit
    if ctx.decks >= 3:  # §8.3: the greedy assignments' committed cards, once per call
        # adding one copy of c to the selection costs one more card of witness w iff w[c] <= sel[c]
        ws = np.array(follow_tuples.witnesses(in_suit, lead, ctx, cfg), dtype=np.int64)
        if not ws.size:
            return out
        base = np.maximum(sel, ws).sum(1)  # (w,)
        cost = base[:, None] + (ws <= sel)  # (w, 54)
        return free & is_suit & (cost <= n).any(0)
    req = _lead_req(lead_key, ctx)
    if ctx.decks == 2 and cfg.follow_partial_tractor and req[1]:
        # a card may be added iff some legal follow holds the selection and one more copy of it
        legal = _partial_follows(in_suit.tobytes(), lead_key, suit, ctx)[0]  # both int64
        holding = legal[(legal >= sel).all(1)]
        return free & is_suit & (holding > sel).any(0)
    if ctx.decks == 2:
        # what depends only on the hand's suit and the lead: once per (H_E, lead)
        if (sel > in_suit).any():  # a selection outside H_E completes to no follow
            return out
        fits = _witness_fits_of(in_suit.tobytes(), n, suit, ctx, req)
        sel_list = sel.tolist()
        size = sum(sel_list) + 1  # <= n (checked above); each trial stays inside H_E
        for c in np.flatnonzero(free & is_suit).tolist():
            trial = list(sel_list)
            trial[c] += 1
            out[c] = fits(trial, size)
        return out
    for c in np.flatnonzero(free & is_suit):
        trial = sel.copy()
        trial[c] += 1
        out[c] = can_complete_follow(in_suit, lead, trial, suit, ctx, cfg, req)
    return out


def can_complete_follow(in_suit, lead, selection, suit, ctx, cfg, req=None) -> bool:
    """Can ``selection`` (cards of H_E) be extended within ``in_suit`` (H_E, at least n cards)
    to a legal follow? ``req``: ``lead_requirements(lead, ctx)`` if known (1-2 decks).

    2 decks: a follow X is legal iff it contains a *witness*: disjoint tractors achieving
    ``trac(H_E)`` plus further pairs up to ``min(pairs(H_E), pL)`` (both conditions of §8.2
    only grow with X). So the selection can be completed iff for some tractor choice the
    cheapest witness fits: ``|selection ∪ witness| <= n`` (extra pairs taken cheapest first:
    pairs already selected cost 0, half-selected 1, untouched 2).
    """
    n = int(lead.sum())
    if int(selection.sum()) > n or (selection > in_suit).any():
        return False
    if ctx.decks == 1:
        return True
    if ctx.decks >= 3:
        return follow_tuples.can_complete(in_suit, lead, selection, ctx, cfg)
    p_lead, t_lead = req if req is not None else lead_requirements(lead, ctx)
    if cfg.follow_partial_tractor and t_lead:
        # the option's third condition is global: test the selection against every legal follow
        legal = _partial_follows(_key(in_suit), _key(lead), suit, ctx)[0]
        return bool((legal >= np.asarray(selection)).all(1).any())
    return _witness_check(in_suit, n, suit, ctx, (p_lead, t_lead))(np.asarray(selection).tolist())


def _witness_check(in_suit, n: int, suit, ctx, req):
    """``can_complete_follow`` with 2 decks (no partial-tractor option), for one ``in_suit``
    and lead (``n`` cards, requirements ``req``), as a function of the selection (a list of 54
    ints): the witnesses' tractor choices are found once."""
    hand = np.asarray(in_suit).tolist()
    fits = _witness_fits(in_suit, n, suit, ctx, req)

    def check(selection) -> bool:
        size = sum(selection)
        if size > n or any(x > h for x, h in zip(selection, hand)):
            return False
        return fits(selection, size)

    return check


@lru_cache(maxsize=1024)
def _lead_suit(lead_key: bytes, ctx: TrumpContext) -> int:
    """``single_suit`` of a lead given as the bytes of its ``int64[54]`` counts."""
    return single_suit(np.frombuffer(lead_key, dtype=np.int64), ctx)


@lru_cache(maxsize=1024)
def _lead_req(lead_key: bytes, ctx: TrumpContext) -> tuple[int, tuple[int, ...]]:
    """``lead_requirements`` of a lead given as the bytes of its ``int64[54]`` counts."""
    p_lead, t_lead = lead_requirements(np.frombuffer(lead_key, dtype=np.int64), ctx)
    return p_lead, tuple(t_lead)


@lru_cache(maxsize=1024)
def _witness_fits_of(in_suit_key: bytes, n: int, suit: int, ctx: TrumpContext, req):
    """``_witness_fits`` of an ``in_suit`` given as the bytes of its ``int64[54]`` counts: a
    follower adds the cards of a follow one by one, each a new mask on the same H_E and lead."""
    return _witness_fits(np.frombuffer(in_suit_key, dtype=np.int64), n, suit, ctx, req)


def _witness_fits(in_suit, n: int, suit, ctx, req):
    """The part of ``_witness_check`` after its bounds test: ``fits(selection, size)`` for a
    selection inside ``in_suit`` of ``size <= n`` cards."""
    p_lead, t_lead = req
    hand = np.asarray(in_suit).tolist()
    want_t = tractor_pairs(in_suit, suit, t_lead, ctx)
    want_p = min(pairs(in_suit), p_lead)
    choices = _tractor_choices(in_suit, suit, tuple(sorted(t_lead, reverse=True)), want_t, ctx)
    pair_ids = [c for c in range(NUM_CARDS) if hand[c] >= 2]

    def fits(selection, size) -> bool:
        for used in choices:
            cost = sum(2 - selection[c] for c in used)
            spare = [2 - selection[c] for c in pair_ids if c not in used]
            need = want_p - len(used)
            if need > len(spare):
                continue
            cost += sum(sorted(spare)[:need])
            if size + cost <= n:
                return True
        return False

    return fits


def _tractor_choices(in_suit, suit, lengths: tuple, want: int, ctx):
    """Sets of pair identities forming disjoint tractors (one per matched lead tractor length)
    that total ``want`` pairs."""
    layout = suit_layout(suit, ctx)
    found = []

    def rec(k, used: frozenset, total):
        if total == want:
            found.append(used)
            return
        if k == len(lengths):
            return
        rec(k + 1, used, total)  # leave this lead tractor unmatched
        m = lengths[k]
        avail = [[c for c in ids if in_suit[c] >= 2 and c not in used] for ids in layout]
        for top in range(m - 1, len(layout)):
            span = avail[top - m + 1: top + 1]
            if all(span):
                for combo in product(*span):
                    rec(k + 1, used | frozenset(combo), total + m)

    rec(0, frozenset(), 0)
    return set(found)


# -------------------------------------------------------------------------- tricks §9

def is_ruff(play: np.ndarray, lead: np.ndarray, ctx: TrumpContext, cfg) -> bool:
    """§9.1: off-suit lead, every card of the play trump, and the lead's structure reproduced
    (``EXACT``) or at least as many tuples and chains as the lead (``COUNT_ONLY``, see
    ``_count_only_value``); with ``tuple_beats_chain`` a chain lead is also ruffed by one trump
    unit of larger k with as many cards (§9.3, §10.7). A legal all-trump follow to an off-suit
    lead implies the player was void in the led suit."""
    play, lead = _u8(play), _u8(lead)
    if single_suit(lead, ctx) == TRUMP or suits_present(play, ctx) != {TRUMP}:
        return False
    units = decompose(lead, ctx)
    return _ruff_value(play, lead, ctx, cfg) is not None or _tuple_key(play, units, ctx, cfg) is not None


def _ruff_value(play, lead, ctx, cfg):
    units = decompose(lead, ctx)
    if cfg.ruff_match == "EXACT":
        return match_value(play, [u.shape for u in units], ctx, TRUMP)
    return _count_only_value(play, units, ctx)


def _count_only_value(play, units, ctx):
    """``ruff_match = COUNT_ONLY`` (§9.1, AMB-11): the value of a ruff, or ``None`` if it is none.

    Reading of seed D's "no fewer tractors and no fewer pairs than the lead", for every tuple
    size ``k`` from 2 to ``decks``:

    * tuples: ``Σ count // k`` over the play's identities ≥ the lead's ``k``-tuples, where a lead
      unit ``(k_u, len)`` with ``k_u >= k`` holds ``len · (k_u // k)`` of them (2 decks: the
      play's pairs ≥ pL, pairs inside tractors counted);
    * chains: the most disjoint chains (length >= 2) of ``k``-tuples that can be cut from the play
      ≥ the number of the lead's chain units with ``k_u >= k`` (2 decks: no fewer tractors, of any
      lengths).

    Tractor lengths are not compared, so every ruff ``EXACT`` accepts is accepted (``EXACT``'s
    parts supply these tuples and chains), and some more: ``S:9 9 8 8`` ruffs ``H:A A J J``,
    ``S:9 9 8 8 7 7 6 6`` ruffs ``H:A A K K 5 5 4 4``, ``S:9 9 8 8 5 5 4 4`` ruffs
    ``H:A A K K Q Q 3 3``.

    **Overruff value** (§9.2 with the structure counted, not matched): with ``(k*, len*)`` the
    type of the lead's primary unit, the highest top among the ``k*``-tuples of the play if
    ``len* = 1``, or among the tops of its chains of ``k*``-tuples (two or more consecutive
    positions) if ``len* >= 2``; the highest card for all-singles leads. A later ruff beats the
    winning one iff its value is strictly higher, as under ``EXACT``.
    """
    play = np.asarray(play, dtype=np.int64)
    pos = _tuple_positions(play, ctx)  # pos[k][i]: k-tuples at position i of the trump suit
    for k in range(2, ctx.decks + 1):
        want_t = sum(u.length * (u.k // k) for u in units if u.k >= k)
        want_c = sum(1 for u in units if u.k >= k and u.length >= 2)
        if sum(pos[k]) < want_t or (want_c and _max_chains(tuple(pos[k])) < want_c):
            return None
    k_star, len_star = units[0].shape
    if k_star == 1:
        return int(ctx.order_indices[play > 0].max())
    have = pos[k_star]
    if len_star == 1:
        tops = [i for i, c in enumerate(have) if c]
    else:
        tops = [i for i in range(1, len(have)) if have[i] and have[i - 1]]
    return max(tops) if tops else None


def _tuple_positions(play, ctx) -> dict[int, list[int]]:
    """k → ``k``-tuples of ``play`` (trump cards) at each trump position, ``Σ count // k``."""
    layout = suit_layout(TRUMP, ctx)
    return {k: [sum(int(play[c]) // k for c in ids) for ids in layout]
            for k in range(2, ctx.decks + 1)}


@lru_cache(maxsize=100_000)
def _max_chains(pc: tuple) -> int:
    """Most disjoint chains (two or more consecutive positions, one tuple each) in ``pc``;
    chains of two positions suffice for counting."""
    first = next((i for i, c in enumerate(pc) if c), None)
    if first is None:
        return 0
    rest = list(pc)
    rest[first] -= 1
    best = _max_chains(tuple(rest))  # this tuple is in no chain
    if first + 1 < len(pc) and pc[first + 1]:
        rest[first + 1] -= 1
        best = max(best, 1 + _max_chains(tuple(rest)))
    return best


def _tuple_key(play, units, ctx, cfg):
    """``tuple_beats_chain`` (§9.3, §10.7): ``(k, length, top)`` when the lead is one chain unit
    and ``play`` is one unit of larger ``k`` with the same number of cards, else ``None``."""
    if not cfg.tuple_beats_chain or len(units) != 1 or units[0].length < 2:
        return None
    try:
        mine = decompose(play, ctx)
    except ValueError:
        return None
    if len(mine) != 1 or mine[0].k <= units[0].k or mine[0].size != units[0].size:
        return None
    return mine[0].shape + (mine[0].top,)


def _splits(play, structure, ctx, suit):
    """All ways to cut the lead's structure from ``play``: a sorted tuple of tops per shape."""
    multi = sorted((s for s in structure if s[0] >= 2), reverse=True)
    layout = suit_layout(suit, ctx)
    out = set()

    def rec(rest, i, tops):
        if i == len(multi):
            singles = tuple(sorted((int(ctx.order_indices[c]) for c in np.flatnonzero(rest)
                                    for _ in range(int(rest[c]))), reverse=True))
            key = {}
            for shape, top in tops:
                key.setdefault(shape, []).append(top)
            out.add(tuple(sorted((s, tuple(sorted(t, reverse=True))) for s, t in key.items()))
                    + (((1, 1), singles),))
            return
        k, length = multi[i]
        for top, ids in _placements(rest, layout, k, length):
            cut = rest.copy()
            for c in ids:
                cut[c] -= k
            rec(cut, i + 1, tops + [((k, length), top)])

    rec(np.asarray(play, dtype=np.int64), 0, [])
    return out


def _dominates(a, b) -> bool:
    """Every unit of split ``a`` is strictly higher than its partner in ``b`` (same shapes)."""
    for (sa, ta), (sb, tb) in zip(a, b):
        if sa != sb or any(x <= y for x, y in zip(ta, tb)):
            return False
    return True


def _beats_all_units(x, x_suit, best, best_suit, structure, ctx) -> bool:
    """``throw_comparison = ALL_UNITS`` (§9.2): some split of ``x`` dominates every split of
    the current winner (each side uses its own most favourable split)."""
    theirs = _splits(best, structure, ctx, best_suit)
    return any(all(_dominates(mine, t) for t in theirs)
               for mine in _splits(x, structure, ctx, x_suit))


def trick_winner(plays, ctx: TrumpContext, cfg) -> int:
    """Index (0 = leader) of the play that wins the trick (§9.3).

    ``plays``: the plays in playing order, each ``uint8[54]``. A follow wins only in the led
    suit with the lead's structure and a strictly higher value; a ruff beats the led suit and
    is beaten only by a strictly higher ruff; equal plays: the earlier wins.

    ``tuple_beats_chain`` (§9.3, §10.7): when the lead is one chain unit, a play of one unit of
    larger k with as many cards (a quad against a 2-pair tractor, ...) beats every play of its
    kind that does not have that form — in the led suit, or as a ruff — whatever the rank;
    such plays compare by (k, length), then top, and the earlier wins ties. A ruff still beats
    every play in the led suit (reading: the option ranks plays inside the led suit and inside
    the ruffs, it does not let a led-suit quad stand against a ruff).
    """
    plays = [_u8(p) for p in plays]
    lead = plays[0]
    suit = single_suit(lead, ctx)
    units = decompose(lead, ctx)
    structure = [u.shape for u in units]
    all_units = cfg.throw_comparison == "ALL_UNITS" and len(units) > 1
    winner, best, best_suit = 0, match_value(lead, structure, ctx, suit), suit
    ruffed = False
    tuple_best = None  # (k, length, top) of the winning play when it won by tuple_beats_chain
    for i, x in enumerate(plays[1:], start=1):
        if int(x.sum()) != int(lead.sum()):
            raise ValueError(f"play {i} has {int(x.sum())} cards; the lead has {int(lead.sum())}")
        present = suits_present(x, ctx)
        in_suit = present == {suit} and not ruffed
        ruff = suit != TRUMP and present == {TRUMP}
        if not (in_suit or ruff):
            continue
        key = _tuple_key(x, units, ctx, cfg)
        if key is not None:
            if (ruff and not ruffed) or tuple_best is None or key > tuple_best:
                winner, tuple_best, best_suit = i, key, (TRUMP if ruff else suit)
                ruffed = ruffed or ruff
            continue
        if in_suit:
            val = match_value(x, structure, ctx, suit)
            if val is None or tuple_best is not None:
                continue
            better = (_beats_all_units(x, suit, plays[winner], best_suit, structure, ctx)
                      if all_units else val > best)
            if better:
                winner, best = i, val
        else:
            val = _ruff_value(x, lead, ctx, cfg)
            if val is None:
                continue
            if not ruffed:
                better = True
            elif tuple_best is not None:
                better = False
            elif all_units and cfg.ruff_match == "EXACT":
                better = _beats_all_units(x, TRUMP, plays[winner], TRUMP, structure, ctx)
            else:
                better = val > best
            if better:
                winner, best, best_suit, ruffed = i, val, TRUMP, True
                tuple_best = None
    return winner


def trick_points(plays) -> int:
    """Points in all cards of a trick (§3.5)."""
    return sum(cards.points(p) for p in plays)
