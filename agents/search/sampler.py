"""World sampler: deals of the unseen cards consistent with what one seat knows.

A *world* gives every card the seat has not seen a holder: one of the three other seats, or the
kitty when the seat is not the dealer (a dealer knows the kitty he buried). Everything here is
built from the seat's decoded observation (``core.observe.ObservationView``) and the rules —
never from the engine's hidden state — so a world is exactly what the seat could believe.

**Constraints** (``constraints_from_view``), relative seats 1-3 = holders 0-2, kitty = holder 3:

* card conservation: the unseen cards are ``decks`` minus my hand, everything played (finished
  tricks and the current one) and, for the dealer, the kitty;
* hand sizes: seat ``r`` holds ``hand_size`` minus the cards it has played; the kitty holds
  ``kitty_size``;
* voids by effective suit: a seat that failed to follow ``E`` holds no card of ``E`` (RULES.md
  §8.1); the kitty has no voids;
* known cards: a seat holds its ``revealed`` cards (a failed throw, §7.4.1; the engine drops
  them as they are played) and the cards it showed in declarations minus the copies it has
  played since (§4) — for the dealer the shown cards may also have been buried, so they are
  known to be in *the dealer's hand or the kitty*.

**Exactly uniform over deals of physical cards.** With ``d`` decks there are ``d`` distinct
physical copies of each identity, so a count-vector deal is worth its multiplicity — the number
of physical deals it stands for (e.g. both copies of a card to one seat: 1 way; one copy to
each of two seats: 2 ways). ``sample_deals`` draws count-vector deals with exactly these
weights, by a forward filter / backward sampler over *items* of cards:

* a *class* item is every free unseen card (no known-card constraint on its identity) of the
  effective suits with the same set of allowed holders; its ways of putting ``x_h`` cards with
  holder ``h`` are the multinomial ``m! / Π x_h!`` (which copies go where is then a uniform
  shuffle of the class's physical cards);
* an *identity* item is one card identity with a known-card constraint; its splits ``y`` (copies
  per holder) are enumerated with their multiplicities ``u! / Π y_h!``.

``F_i[c]`` = the number of ways (up to one scale per item) to place items ``0..i-1`` using
``c_h`` slots of each holder; it lives on the capacities of all holders but the last (whose
usage is implied by the card count). Sampling walks the items backwards from the full
capacities, drawing each item's split with probability ∝ ways × ``F_i[remaining − split]``:
an exact draw from the uniform distribution (tested against enumeration).

``WorldSampler`` is the interface a learned belief would implement later (``sample(view, n,
rng)``); ``UniformSampler`` is the exact uniform one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from math import lgamma
from typing import Protocol, runtime_checkable

import numpy as np

from shengji_env.rules import TrumpContext

__all__ = ["Constraints", "UniformSampler", "WorldSampler", "constraints_from_view", "consistent",
           "sample_deals"]

KITTY = 3  #: holder index of the kitty (holders 0-2 are relative seats 1-3)


@dataclass
class Constraints:
    """What a seat knows about the unseen cards, as a deal problem over ``H`` holders.

    ``pool``: ``int64[54]`` — unseen copies of each identity; ``group``: ``int64[54]`` — effective
    suit of each identity (0-3, trump 4); ``capacity``: ``int64[H]`` — cards each holder holds;
    ``allowed``: ``bool[H, 5]`` — holder may hold cards of the effective suit (False: void);
    ``known``: list of ``(holders tuple, identity, k)`` — at least ``k`` copies of ``identity``
    are with the holders in ``holders`` (revealed and shown cards). ``holders`` = relative seats
    1-3 then (if unknown) the kitty.
    """

    pool: np.ndarray
    group: np.ndarray
    capacity: np.ndarray
    allowed: np.ndarray
    known: list = field(default_factory=list)

    @property
    def num_holders(self) -> int:
        return int(self.capacity.size)

    def check(self) -> None:
        """``ValueError`` if the counts do not add up (a bug in the caller's bookkeeping)."""
        if int(self.pool.sum()) != int(self.capacity.sum()) or (self.pool < 0).any() \
                or (self.capacity < 0).any():
            raise ValueError(f"unseen cards ({int(self.pool.sum())}, min {int(self.pool.min())}) "
                             f"do not match the holders' capacities {self.capacity.tolist()}")


def constraints_from_view(view, rules) -> Constraints:
    """The deal problem of the seat whose decoded observation is ``view`` (PLAY phase).

    Holders: relative seats 1, 2, 3, and the kitty unless I am the dealer."""
    d = rules.decks
    ctx = TrumpContext.from_rules(view.level, view.trump, rules)
    group = ctx.effective_suits.astype(np.int64)
    played = view.played.astype(np.int64)             # per relative seat, current trick too
    seen = view.hand.astype(np.int64) + played.sum(0)
    dealer_knows_kitty = view.dealer == 0
    if dealer_knows_kitty:
        seen = seen + view.kitty
    pool = d - seen
    H = 3 if dealer_knows_kitty else 4
    capacity = np.array([rules.hand_size - int(played[r].sum()) for r in (1, 2, 3)]
                        + ([] if dealer_knows_kitty else [rules.kitty_size]), dtype=np.int64)
    allowed = np.ones((H, 5), dtype=bool)
    allowed[:3] = ~view.voids[1:]
    known = []
    for r in (1, 2, 3):
        revealed = view.revealed[r].astype(np.int64)
        still_shown = np.maximum(view.shown[r].astype(np.int64) - played[r], 0)
        if r == view.dealer and not dealer_knows_kitty:
            # a dealer may have buried a card he showed: it is in his hand or the kitty
            for c in np.flatnonzero(revealed):
                known.append(((r - 1,), int(c), int(revealed[c])))
            for c in np.flatnonzero(still_shown > revealed):
                known.append(((r - 1, KITTY), int(c), int(still_shown[c])))
        else:
            both = np.maximum(revealed, still_shown)
            for c in np.flatnonzero(both):
                known.append(((r - 1,), int(c), int(both[c])))
    cons = Constraints(pool, group, capacity, allowed, known)
    cons.check()
    return cons


def consistent(cons: Constraints, holders: np.ndarray) -> bool:
    """Does the deal ``holders`` (``int[H, 54]`` copies per holder) satisfy ``cons``?"""
    holders = np.asarray(holders, dtype=np.int64)
    if (holders < 0).any() or not np.array_equal(holders.sum(0), cons.pool):
        return False
    if not np.array_equal(holders.sum(1), cons.capacity):
        return False
    if (holders * ~cons.allowed[:, cons.group]).any():
        return False
    return all(holders[list(hs), c].sum() >= k for hs, c, k in cons.known)


# ------------------------------------------------------------------------------ the items

@dataclass
class _Item:
    """A group of unseen cards placed together. ``splits``: ``int64[T, H]`` ways to place it
    (copies per holder); ``logw``: ``float64[T]`` log of each split's physical multiplicity;
    ``cards``: ``int64[m]`` its physical cards (card ids, repeated by copies)."""

    splits: np.ndarray
    logw: np.ndarray
    cards: np.ndarray
    is_class: bool


def _log_multinomial(m: int, parts: np.ndarray) -> np.ndarray:
    """``float64[T]`` — log of m! / Π parts! for each row of ``parts`` (int[T, H])."""
    lg = np.array([lgamma(k + 1) for k in range(m + 1)])
    return lg[m] - lg[parts].sum(1)


def _class_splits(m: int, allowed_h: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """``int64[T, H]`` — every way to put ``m`` cards with the allowed holders within capacity."""
    H = capacity.size
    ranges = [range(min(m, int(capacity[h])) + 1) if allowed_h[h] else range(1) for h in range(H - 1)]
    grid = np.array(list(itertools.product(*ranges)), dtype=np.int64).reshape(-1, H - 1)
    last = m - grid.sum(1)
    ok = (last >= 0) & (last <= capacity[H - 1]) & ((last == 0) | allowed_h[H - 1])
    return np.concatenate([grid[ok], last[ok, None]], axis=1)


def _items(cons: Constraints) -> list[_Item]:
    """The items of ``cons``: identity items first, then classes, the largest class last (the
    last item needs no filter table, and the largest class would make the biggest one)."""
    H = cons.num_holders
    items = []
    constrained = sorted({c for _, c, _ in cons.known})
    for c in constrained:
        u = int(cons.pool[c])
        ok_h = cons.allowed[:, cons.group[c]]
        rules_c = [(hs, k) for hs, cc, k in cons.known if cc == c]
        splits = [y for y in itertools.product(range(u + 1), repeat=H)
                  if sum(y) == u and all(y[h] == 0 or ok_h[h] for h in range(H))
                  and all(sum(y[h] for h in hs) >= k for hs, k in rules_c)]
        if not splits:
            raise ValueError(f"no holder can take card {c} under the constraints (inconsistent view)")
        sp = np.array(splits, dtype=np.int64)
        items.append(_Item(sp, _log_multinomial(u, sp), np.full(u, c, dtype=np.int64), False))
    free = cons.pool.copy()
    free[constrained] = 0
    classes: dict[bytes, list[int]] = {}
    for e in range(5):
        if free[cons.group == e].sum():
            classes.setdefault(cons.allowed[:, e].tobytes(), []).append(e)
    built = []
    for key, suits in classes.items():
        ids = np.flatnonzero(np.isin(cons.group, suits) & (free > 0))
        cards_ = np.repeat(ids, free[ids])
        allowed_h = np.frombuffer(key, dtype=bool)
        sp = _class_splits(cards_.size, allowed_h, cons.capacity)
        if not sp.size:
            raise ValueError("the unseen cards cannot be dealt within the hand sizes and voids")
        built.append(_Item(sp, _log_multinomial(cards_.size, sp), cards_, True))
    built.sort(key=lambda it: it.cards.size)
    return items + built


def _forward(items: list[_Item], capacity: np.ndarray) -> list[np.ndarray]:
    """``F_0 .. F_{n-1}``: ``float64[cap_0+1, ..., cap_{H-2}+1]`` each (see the module doc);
    each table is scaled to max 1 (only ratios within a table matter)."""
    H = capacity.size
    dims = tuple(int(c) + 1 for c in capacity[:H - 1])
    F = np.zeros(dims)
    F[(0,) * (H - 1)] = 1.0
    # implied usage of the last holder at each cell: total placed − the others' usage
    used_others = np.indices(dims).sum(0)
    tables, placed = [], 0
    for item in items[:-1]:
        tables.append(F)
        G = np.zeros(dims)
        w = np.exp(item.logw - item.logw.max())
        for y, wy in zip(item.splits, w):
            if (y[:H - 1] >= np.array(dims)).any():
                continue
            dst = tuple(slice(int(k), None) for k in y[:H - 1])
            src = tuple(slice(0, n - int(k)) for n, k in zip(dims, y[:H - 1]))
            G[dst] += wy * F[src]
        placed += item.cards.size
        last = placed - used_others
        G[(last < 0) | (last > capacity[H - 1])] = 0.0
        top = G.max()
        if top <= 0:
            raise ValueError("the unseen cards cannot be dealt under the constraints")
        F = G / top
    tables.append(F)
    return tables


def sample_deals(cons: Constraints, n: int, rng: np.random.Generator) -> np.ndarray:
    """``uint8[n, H, 54]`` — ``n`` independent deals of ``cons.pool`` to the holders, exactly
    uniform over the physical deals satisfying ``cons``."""
    cons.check()
    H = cons.num_holders
    out = np.zeros((n, H, 54), dtype=np.uint8)
    if cons.pool.sum() == 0:
        return out
    items = _items(cons)
    tables = _forward(items, cons.capacity)
    remaining = np.tile(cons.capacity, (n, 1))  # int64[n, H] slots still to fill
    rows = np.arange(n)
    for item, F in zip(reversed(items), reversed(tables)):
        before = remaining[:, None, :H - 1] - item.splits[None, :, :H - 1]   # (n, T, H-1)
        ok = (before >= 0).all(2) & (remaining[:, None, H - 1] >= item.splits[None, :, H - 1])
        flat = np.ravel_multi_index(tuple(np.maximum(before, 0).transpose(2, 0, 1)), F.shape,
                                    mode="clip")
        weight = np.where(ok, F.ravel()[flat], 0.0) * np.exp(item.logw - item.logw.max())[None]
        cum = weight.cumsum(1)
        pick = (cum < rng.random(n)[:, None] * cum[:, -1:]).sum(1)
        pick = np.minimum(pick, len(item.splits) - 1)
        split = item.splits[pick]                                            # (n, H)
        remaining -= split
        if item.is_class:  # which physical cards: a uniform shuffle of the class, cut by split
            shuffled = rng.permuted(np.tile(item.cards, (n, 1)), axis=1)
            bounds = split.cumsum(1)
            holder = (np.arange(item.cards.size)[None, :, None] >= bounds[:, None, :]).sum(2)
            # a uint8 one: a Python 1 sends add.at down numpy's casting path (113 vs 25 us for
            # 48 worlds of 40 cards)
            np.add.at(out, (rows[:, None], holder, shuffled), np.uint8(1))
        else:
            out[:, :, item.cards[0]] += split.astype(np.uint8)
    return out


# ------------------------------------------------------------------------------ interface

@runtime_checkable
class WorldSampler(Protocol):
    """Draws worlds for a seat: ``sample(view, n, rng) -> (hands uint8[n, 4, 54], kitty
    uint8[n, 54])`` with relative seats (row 0 = the seat's own hand) and the buried kitty.
    A learned belief (a network over the observation) plugs in here."""

    def sample(self, view, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        ...


class UniformSampler:
    """Exactly uniform over the physical deals consistent with the seat's view."""

    def __init__(self, rules):
        self.rules = rules

    def sample(self, view, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        cons = constraints_from_view(view, self.rules)
        deals = sample_deals(cons, n, rng)
        hands = np.zeros((n, 4, 54), dtype=np.uint8)
        hands[:, 0] = view.hand
        hands[:, 1:] = deals[:, :3]
        kitty = (np.broadcast_to(view.kitty, (n, 54)).copy() if view.dealer == 0
                 else deals[:, KITTY].copy())
        return hands, kitty
