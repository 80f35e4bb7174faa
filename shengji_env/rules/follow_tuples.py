"""The structure obligation with 3 and 4 decks (RULES.md §8.3): shapes, their order, witnesses.

With 3+ decks a lead's unit ``(k, m)`` (pair, triple, quad, tractor, Titanic, carrier) is
followed by the best **shape** the follower can cut from his cards of the led suit ``H_E``. A
shape is a multiset of parts ``(k', len')`` with ``k' >= 2`` cut from ``H_E`` (pairs may come out
of triples and quads, a triple out of a quad, tractors out of triples, ...); the rest of the unit's
cards are singles, i.e. *any* cards. ``shape_levels`` lists a unit's shapes best first, in levels
of equally good shapes:

* single: nothing; pair: pair > two singles; triple: triple > pair + single > singles;
* ``m``-pair tractor (§8.2 per unit): tractor > ``m`` pairs > ``m-1`` pairs > … > singles; with
  ``follow_partial_tractor`` pairs covered by tractors are maximised at each pair count;
* Titanic of ``m`` triples, ``titanic_follow_order`` ``A``: exact Titanic > the number of
  triples (≤ m) > then pairs (≤ m − triples) > then pairs covered by tractors. ``B`` moves the
  ``m``-pair tractor to just after "``m`` triples", ``C`` to just after the exact Titanic (for
  ``m = 2`` these are the lists of §8.3 word for word);
* quad: quad > triple + single > two pairs > pair + two singles > singles;
* carrier of ``m`` quads: exact carrier > quads (≤ m) > then triples > then pairs > then pairs
  covered by tractors, each count bounded by the cards left (``4m``) — the quad list is the case
  ``m = 1``.

A follow is legal iff some **greedy assignment** produces it (§8.3, AMB-13): the lead's units are
taken in decomposition order (§6.2); each takes a best shape that can be cut from the cards not
yet committed (any of several tied shapes and placements), and commits the cards of its parts.
The single cards of every shape are filled last from whatever is left (reading: a single is "any
card", so it never takes a card a later unit needs). The follow ``X`` must contain every committed
part. ``witnesses`` enumerates the committed card sets of all greedy assignments; ``X`` (``|X| = n``,
``X ⊆ H_E``) is legal iff it contains one, and a selection can be completed iff
``Σ max(selection, w) <= n`` for some witness ``w`` (DESIGN §4 prefix-closed masks).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .order import TrumpContext
from .patterns import _context, _placements, decompose, suit_layout

Shape = tuple  # sorted (desc) tuple of parts (k, length), k >= 2


def _pair_partitions(p: int):
    """Every way to group ``p`` pairs into parts: loose pairs (2, 1) and tractors (2, >= 2)."""
    def rec(left, largest):
        if left == 0:
            yield ()
            return
        for size in range(min(left, largest), 0, -1):
            for rest in rec(left - size, size):
                yield ((2, size),) + rest
    yield from rec(p, p)


def _covered(shape: Shape) -> int:
    return sum(n for k, n in shape if k == 2 and n >= 2)


def _pair_levels(p_max: int, prefer_chains: bool, head=()) -> list[list[Shape]]:
    """Levels ``head`` + p pairs for p = p_max..0; with ``prefer_chains`` each p is split by the
    number of pairs covered by tractors (most first)."""
    levels = []
    for p in range(p_max, -1, -1):
        if not prefer_chains or p < 2:
            levels.append([tuple(sorted(head + ((2, 1),) * p, reverse=True))])
            continue
        by_cover: dict[int, list[Shape]] = {}
        for part in _pair_partitions(p):
            by_cover.setdefault(_covered(part), []).append(tuple(sorted(head + part, reverse=True)))
        levels.extend(by_cover[c] for c in sorted(by_cover, reverse=True))
    return levels


@lru_cache(maxsize=256)
def shape_levels(k: int, m: int, titanic_order: str = "A", partial_tractor: bool = False
                 ) -> tuple[tuple[Shape, ...], ...]:
    """The shapes a follower must try for a lead unit ``(k, m)``, best level first (§8.3)."""
    exact: Shape = ((k, m),)
    if k == 1:
        levels = [[()]]
    elif k == 2:  # §8.2 per unit: tractor > m pairs > ... > singles
        levels = [[exact], [()]] if m == 1 else [[exact]] + _pair_levels(m, partial_tractor)
    elif k == 3:
        rest = []
        for t in range(m, -1, -1):
            if t == m and m == 1:
                continue  # the exact triple
            rest += _pair_levels(m - t, m >= 2, ((3, 1),) * t)
        if m >= 2 and titanic_order in ("B", "C"):
            tractor: Shape = ((2, m),)
            rest = [[s for s in level if s != tractor] for level in rest]
            rest = [level for level in rest if level]
            at = 1 if titanic_order == "B" else 0  # B: after "m triples"; C: first
            rest.insert(at, [tractor])
        levels = [[exact]] + rest
    else:  # k == 4: quads, then triples, then pairs, within the unit's 4m cards
        rest = []
        for q in range(m, -1, -1):
            left = 4 * (m - q)
            for t in range(left // 3, -1, -1):
                head = ((4, 1),) * q + ((3, 1),) * t
                if q == m and m == 1:
                    continue
                rest += _pair_levels((left - 3 * t) // 2, m >= 2, head)
        levels = [[exact]] + rest
    seen, out = set(), []
    for level in levels:  # a shape belongs to the first level that lists it
        kept = tuple(s for s in level if s not in seen)
        seen.update(kept)
        if kept:
            out.append(kept)
    return tuple(out)


def _cuts(rest: np.ndarray, shape: Shape, layout):
    """Every distinct way to cut ``shape`` from ``rest`` (``int64[54]``): the cut cards."""
    found = {}

    def rec(i, left, taken):
        if i == len(shape):
            key = tuple(taken.tolist())
            if key not in found:
                found[key] = taken.copy()
            return
        k, length = shape[i]
        for _, ids in _placements(left, layout, k, length):
            part = np.zeros_like(left)
            for c in ids:
                part[c] += k
            rec(i + 1, left - part, taken + part)

    rec(0, rest, np.zeros_like(rest))
    return list(found.values())


def _can_cut(rest, shape, layout) -> bool:
    if not shape:
        return True
    (k, length), others = shape[0], shape[1:]
    for _, ids in _placements(rest, layout, k, length):
        cut = rest.copy()
        for c in ids:
            cut[c] -= k
        if _can_cut(cut, others, layout):
            return True
    return False


def witnesses(in_suit: np.ndarray, lead: np.ndarray, ctx: TrumpContext, cfg,
              within: np.ndarray | None = None) -> list[np.ndarray]:
    """Committed cards (``int64[54]`` each) of every greedy assignment of §8.3 for the lead
    ``lead`` and the follower's cards of the led suit ``in_suit`` (at least ``n`` cards).

    ``within``: only assignments whose parts lie inside these cards (a candidate follow), which
    keeps the search small when checking one play."""
    def key(a):
        return tuple(np.asarray(a).tolist())

    return list(_witnesses(key(in_suit), key(lead), None if within is None else key(within),
                           ctx.level, ctx.trump, ctx.decks, ctx.always_trump_two,
                           cfg.titanic_follow_order, cfg.follow_partial_tractor))


@lru_cache(maxsize=20_000)
def _witnesses(in_suit, lead, within, level, trump, decks, att, order, partial):
    ctx = _context(level, trump, decks, att)
    hand = np.array(in_suit, dtype=np.int64)
    units = decompose(np.array(lead, dtype=np.int64), ctx)
    suit = int(ctx.effective_suits[int(np.flatnonzero(np.array(lead))[0])])
    layout = suit_layout(suit, ctx)
    limit = None if within is None else np.array(within, dtype=np.int64)
    states = {tuple([0] * len(hand)): np.zeros_like(hand)}
    for u in units:
        levels = shape_levels(u.k, u.length, order, partial)
        nxt = {}
        for committed in states.values():
            rest = hand - committed
            for level in levels:
                cuttable = [s for s in level if _can_cut(rest, s, layout)]
                if not cuttable:
                    continue
                room = rest if limit is None else np.minimum(rest, limit - committed)
                for s in cuttable:
                    for cut in _cuts(room, s, layout):
                        w = committed + cut
                        nxt.setdefault(tuple(w.tolist()), w)
                break
        states = nxt
        if not states:
            break
    return tuple(states.values())


def is_legal(in_suit, lead, play, ctx, cfg) -> bool:
    """``play`` (n cards of the led suit, inside ``in_suit``) contains a greedy assignment."""
    return bool(witnesses(in_suit, lead, ctx, cfg, within=play))


def can_complete(in_suit, lead, selection, ctx, cfg) -> bool:
    """``selection`` (cards of the led suit) can be extended within ``in_suit`` to a legal follow
    of ``n`` cards: some witness ``w`` has ``Σ max(selection, w) <= n``."""
    n = int(np.asarray(lead).sum())
    sel = np.asarray(selection, dtype=np.int64)
    return any(int(np.maximum(sel, w).sum()) <= n for w in witnesses(in_suit, lead, ctx, cfg))
