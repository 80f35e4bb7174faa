"""Units, canonical decomposition and structure matching (RULES.md §6).

A **unit** ``(k, length)`` is ``k`` identical cards at each of ``length`` consecutive positions
of one effective suit: single (1, 1), pair (2, 1), tractor (2, ≥2), triple (3, 1), ...
Positions are the order indices of ``order.py``; a position may hold several identities of equal
strength (the off-suit level cards), and a unit uses one identity per position.

Functions take count vectors ``uint8[54]`` and never write to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .. import cards
from ..cards import NUM_CARDS
from .order import TrumpContext, single_suit


@dataclass(frozen=True)
class Unit:
    """One unit of a play.

    ``k``: copies per position (1 single, 2 pair/tractor, 3 triple/Titanic, ...);
    ``length``: number of consecutive positions (1 for a single, pair, triple);
    ``top``: order index of the highest position; ``counts``: ``uint8[54]`` the unit's cards.
    """

    k: int
    length: int
    top: int
    counts: np.ndarray = field(compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.k, self.length)

    @property
    def size(self) -> int:
        return self.k * self.length

    def __repr__(self) -> str:
        return f"Unit(k={self.k}, length={self.length}, top={self.top}, {cards.format(self.counts)!r})"

    @classmethod
    def _make(cls, k: int, length: int, top: int, counts: np.ndarray) -> Unit:
        """``Unit(k, length, top, counts)`` without the frozen dataclass's ``__init__`` (one
        ``object.__setattr__`` per field): ``decompose`` makes several per call."""
        unit = object.__new__(cls)
        unit.__dict__.update(k=k, length=length, top=top, counts=counts)
        return unit


def suit_layout(suit: int, ctx: TrumpContext) -> tuple[tuple[int, ...], ...]:
    """Identities at each position 0..size-1 of effective suit ``suit`` (low → high), each
    position's in suit order S, H, C, D; cached on the context."""
    layouts = ctx.__dict__.get("_suit_layouts")  # cached on the (frozen) context: built once
    if layouts is None:
        layouts = tuple(tuple(ctx.position_cards.get((e, i), ()) for i in range(int(ctx.suit_size[e])))
                        for e in range(5))
        ctx.__dict__["_suit_layouts"] = layouts
    return layouts[suit]


def decompose(counts: np.ndarray, ctx: TrumpContext) -> list[Unit]:
    """Canonical decomposition of cards of one effective suit into units (RULES.md §6.2).

    Larger tuples first; for each tuple size the longest chain first (ties: higher top; at a
    position with several identities, the first in suit order S, H, C, D). Returned sorted by
    (k desc, length desc, top desc, suit order of the top identity). ``[]`` for no cards;
    ``ValueError`` if the cards mix effective suits.
    """
    counts = np.asarray(counts)
    # Cached per context by the counts' bytes: searches and the heuristic decompose the same
    # holdings over and over. The cached units' arrays are read-only, so no caller can change them.
    return list(ctx.memo("decompose", (counts.dtype.char, counts.tobytes()),
                         lambda: _decompose(counts, ctx)))


def _decompose(counts: np.ndarray, ctx: TrumpContext) -> tuple[Unit, ...]:
    held = np.flatnonzero(counts).tolist()  # the identities present, in id order
    if not held:
        return ()
    eff, order = suit_order_lists(ctx)  # one suit: a card's order index is its position
    if len({eff[c] for c in held}) != 1:
        single_suit(counts, ctx)  # raises: the cards mix effective suits
    # Python ints (element access on arrays is slow); a bool array counts each card once
    rest = (counts if counts.dtype.kind in "iu" else counts.astype(np.int64)).tolist()
    found: list[tuple[int, int, int, tuple[int, ...], int]] = []  # k, length, top, ids, top id
    for k in range(ctx.decks, 1, -1):
        while True:
            # the identity chosen at each position holding one with >= k copies left: the
            # first in suit order (ids run S, H, C, D: the lowest held)
            pick: dict[int, int] = {}
            for c in held:
                if rest[c] >= k:
                    pick.setdefault(order[c], c)
            # the longest run of consecutive positions; ties: the higher top
            best_len, best_top, run, prev = 0, -1, 0, -2
            for p in sorted(pick):
                run = run + 1 if p == prev + 1 else 1
                prev = p
                if run >= best_len:
                    best_len, best_top = run, p
            if best_len < 2:
                break
            ids = tuple(pick[p] for p in range(best_top - best_len + 1, best_top + 1))
            for c in ids:
                rest[c] -= k
            found.append((k, best_len, best_top, ids, pick[best_top]))
        for c in held:
            while rest[c] >= k:
                rest[c] -= k
                found.append((k, 1, order[c], (c,), c))
    for c in held:
        for _ in range(rest[c]):
            found.append((1, 1, order[c], (c,), c))
    # one identity per position: the top identity is the one at the top position
    found.sort(key=lambda u: (-u[0], -u[1], -u[2], u[4]))
    # the units' cards: rows of one read-only array, written as bytes (numpy calls per unit
    # cost more than the rest of the decomposition)
    table = bytearray(len(found) * NUM_CARDS)
    for j, (k, _, _, ids, _) in enumerate(found):
        for c in ids:
            table[j * NUM_CARDS + c] = k
    rows = np.frombuffer(bytes(table), dtype=np.uint8).reshape(len(found), NUM_CARDS)  # read-only
    return tuple(Unit._make(k, length, top, row) for (k, length, top, _, _), row in zip(found, rows))


def suit_order_lists(ctx: TrumpContext) -> tuple[list[int], list[int]]:
    """``ctx.effective_suits`` and ``ctx.order_indices`` as lists of Python ints, cached on the
    context."""
    out = ctx.__dict__.get("_suit_order_lists")
    if out is None:
        out = ctx.__dict__["_suit_order_lists"] = (ctx.effective_suits.tolist(),
                                                  ctx.order_indices.tolist())
    return out


def is_tractor(counts: np.ndarray, ctx: TrumpContext) -> bool:
    """True iff the cards form exactly one chain unit: a tractor (or a Titanic, ...). §6.1."""
    try:
        units = decompose(counts, ctx)
    except ValueError:
        return False
    return len(units) == 1 and units[0].k >= 2 and units[0].length >= 2


def is_throw(counts: np.ndarray, ctx: TrumpContext) -> bool:
    """True iff a one-suit lead decomposes into two or more units (RULES.md §6.2)."""
    return len(decompose(counts, ctx)) >= 2


def shapes(units: list[Unit]) -> list[tuple[int, int]]:
    """The (k, length) of each unit, in decomposition order."""
    return [u.shape for u in units]


def primary_shape(units: list[Unit]) -> tuple[int, int]:
    """Type of the primary unit (first of the decomposition): largest k, then longest. §6.2."""
    return units[0].shape


def _placements(rest: np.ndarray, layout, k: int, length: int):
    """Every way to cut a (k, length) unit from ``rest``: yields (top, identities per position)."""
    avail = [[c for c in ids if rest[c] >= k] for ids in layout]
    for top in range(length - 1, len(layout)):
        span = avail[top - length + 1: top + 1]
        if all(span):
            yield from ((top, combo) for combo in _product(span))


def _product(lists):
    if not lists:
        yield ()
        return
    for head in lists[0]:
        for tail in _product(lists[1:]):
            yield (head,) + tail


@lru_cache(maxsize=512)
def _context(level, trump, decks, att) -> TrumpContext:
    return TrumpContext(level, trump, decks, att)  # cached: it caches its own tables


@lru_cache(maxsize=200_000)
def _best(play: tuple, multi: tuple, primary, level, trump, decks, att, suit) -> int | None:
    # None: the remaining shapes cannot be cut from ``play``; else the best primary top (-1: none)
    if not multi:
        return -1  # matched; no primary-shaped part in this branch (caller takes max)
    layout = suit_layout(suit, _context(level, trump, decks, att))
    rest = np.array(play, dtype=np.int64)
    (k, length), others = multi[0], multi[1:]
    best = None
    for top, ids in _placements(rest, layout, k, length):
        cut = rest.copy()
        for c in ids:
            cut[c] -= k
        sub = _best(tuple(int(x) for x in cut), others, primary, level, trump, decks, att, suit)
        if sub is None:
            continue
        here = top if (k, length) == primary else -1
        cand = max(here, sub)
        if best is None or cand > best:
            best = cand
    return best


def match_value(play: np.ndarray, structure: list[tuple[int, int]], ctx: TrumpContext,
                suit: int) -> int | None:
    """``value(X, U)`` (§6.3) or ``None`` if the play does not match the structure."""
    play = np.asarray(play)
    if int(play.sum()) != sum(k * n for k, n in structure):
        return None
    if not play.any() or single_suit(play, ctx) != suit:
        return None
    primary = max(structure)
    if primary == (1, 1):
        return int(ctx.order_indices[play > 0].max())
    multi = tuple(sorted((s for s in structure if s[0] >= 2), reverse=True))
    return _best(tuple(int(x) for x in play), multi, primary, ctx.level, ctx.trump, ctx.decks,
                 ctx.always_trump_two, suit)


def matches(play: np.ndarray, structure: list[tuple[int, int]], ctx: TrumpContext) -> bool:
    """``matches(X, U)`` of §6.3: the play (all of one effective suit) can be partitioned so
    that every non-single unit of the structure gets its own part of exactly its shape."""
    play = np.asarray(play)
    if not play.any():
        return False
    try:
        suit = single_suit(play, ctx)
    except ValueError:
        return False
    return match_value(play, structure, ctx, suit) is not None


def pair_counts(counts: np.ndarray, suit: int, ctx: TrumpContext) -> list[int]:
    """Pairs available at each position of ``suit`` (``sum(count // 2)`` over its identities)."""
    counts = np.asarray(counts)
    return [sum(int(counts[c]) // 2 for c in ids) for ids in suit_layout(suit, ctx)]


def pairs(counts: np.ndarray) -> int:
    """``pairs(Y)`` of §8.2: the maximum number of disjoint identical pairs."""
    return int((np.asarray(counts, dtype=np.int64) // 2).sum())


def tractor_pairs(counts: np.ndarray, suit: int, lengths: list[int], ctx: TrumpContext) -> int:
    """``trac(Y)`` of §8.2: the most pairs in disjoint tractors cut from ``counts`` (cards of
    ``suit``) that can be matched one-to-one to tractors of exactly the given lengths."""
    if not lengths:
        return 0
    return _trac(tuple(pair_counts(counts, suit, ctx)), tuple(sorted(lengths, reverse=True)))


@lru_cache(maxsize=200_000)
def _trac(pc: tuple, lengths: tuple) -> int:
    if not lengths:
        return 0
    m, others = lengths[0], lengths[1:]
    best = _trac(pc, others)  # leave this lead tractor unmatched
    for top in range(m - 1, len(pc)):
        if all(pc[i] > 0 for i in range(top - m + 1, top + 1)):
            cut = list(pc)
            for i in range(top - m + 1, top + 1):
                cut[i] -= 1
            best = max(best, m + _trac(tuple(cut), others))
    return best
