"""RULES.md §13.1 (card order, effective suit) and §13.2 (points) as scenario tests.

One test per example id (ORD-n, EFF-n, PTS-n). The EFF examples also state a follow/ruff
consequence; those parts import ``shengji_env.rules.play`` inside the test so that the pure
order tests of this file run without it.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.cards import BJ, LJ
from shengji_env.rules.config import Rules
from shengji_env.rules.order import (
    TRUMP,
    TrumpContext,
    canonical_order,
    effective_suit,
    order_index,
)


def cid(name: str) -> int:
    """Card id from a one-card name: "S:10", "H:A", "LJ", "BJ"."""
    if name in ("LJ", "BJ"):
        return LJ if name == "LJ" else BJ
    suit, rank = name.split(":")
    return cards.card_id(suit, rank)


def suit_cards(suit: str, ranks: str) -> list[str]:
    return [f"{suit}:{r}" for r in ranks.split()]


def assert_idx(ctx: TrumpContext, expected: dict[str, int]):
    got = {c: order_index(cid(c), ctx) for c in expected}
    assert got == expected


def assert_high_to_low(ctx: TrumpContext, groups: list[list[str]], eff: int):
    """``groups`` high → low: every card has effective suit ``eff``; cards inside one group
    share one index; each group is strictly above the next one."""
    for g in groups:
        for c in g:
            assert effective_suit(cid(c), ctx) == eff, c
    idx = [{order_index(cid(c), ctx) for c in g} for g in groups]
    assert all(len(s) == 1 for s in idx), list(zip(groups, idx))
    flat = [s.pop() for s in idx]
    assert all(a > b for a, b in pairwise(flat)), list(zip(groups, flat))


def trump_count(ctx: TrumpContext) -> int:
    """Physical trump cards in the whole pack of ``ctx.decks`` decks."""
    return int((ctx.effective_suits == TRUMP).sum()) * ctx.decks


# ------------------------------------------------------------------------------ §13.1 order

def test_ORD_1():
    ctx = TrumpContext(level="10", trump="S", decks=2)
    trump_groups = ([["BJ"], ["LJ"], ["S:10"], ["H:10", "C:10", "D:10"]]
                    + [[c] for c in suit_cards("S", "A K Q J 9 8 7 6 5 4 3 2")])
    assert_high_to_low(ctx, trump_groups, TRUMP)
    assert_idx(ctx, {"S:2": 0, "S:3": 1, "S:4": 2, "S:5": 3, "S:6": 4, "S:7": 5, "S:8": 6,
                     "S:9": 7, "S:J": 8, "S:Q": 9, "S:K": 10, "S:A": 11,
                     "H:10": 12, "C:10": 12, "D:10": 12, "S:10": 13, "LJ": 14, "BJ": 15})
    hearts = suit_cards("H", "A K Q J 9 8 7 6 5 4 3 2")
    assert_high_to_low(ctx, [[c] for c in hearts], 1)
    assert [order_index(cid(c), ctx) for c in hearts] == list(range(11, -1, -1))
    assert trump_count(ctx) == 36
    # canonical_order (DESIGN §4) ends with the trumps high → low
    co = [int(c) for c in canonical_order("10", "S")]
    assert sorted(co) == list(range(54))
    tail = co[-18:]
    assert {effective_suit(c, ctx) for c in tail} == {TRUMP}
    assert {effective_suit(c, ctx) for c in co[:-18]} == {1, 2, 3}
    tail_idx = [order_index(c, ctx) for c in tail]
    assert tail_idx == sorted(tail_idx, reverse=True)
    assert tail[:3] == [BJ, LJ, cid("S:10")]


def test_ORD_2():
    ctx = TrumpContext(level="10", trump="NT", decks=2)
    assert_idx(ctx, {"BJ": 2, "LJ": 1, "S:10": 0, "H:10": 0, "C:10": 0, "D:10": 0})
    assert_high_to_low(ctx, [["BJ"], ["LJ"], ["S:10", "H:10", "C:10", "D:10"]], TRUMP)
    for s_i, s in enumerate("SHCD"):
        plain = suit_cards(s, "A K Q J 9 8 7 6 5 4 3 2")
        assert_high_to_low(ctx, [[c] for c in plain], s_i)
        assert [order_index(cid(c), ctx) for c in plain] == list(range(11, -1, -1))
    assert trump_count(ctx) == 12


def test_ORD_3():
    ctx = TrumpContext(level="10", trump="S", decks=2, always_trump_two=True)
    assert_idx(ctx, {"BJ": 16, "LJ": 15, "S:10": 14, "H:10": 13, "C:10": 13, "D:10": 13,
                     "S:2": 12, "H:2": 11, "C:2": 11, "D:2": 11, "S:A": 10, "S:3": 0})
    trump_groups = ([["BJ"], ["LJ"], ["S:10"], ["H:10", "C:10", "D:10"], ["S:2"],
                     ["H:2", "C:2", "D:2"]]
                    + [[c] for c in suit_cards("S", "A K Q J 9 8 7 6 5 4 3")])
    assert_high_to_low(ctx, trump_groups, TRUMP)
    assert [order_index(cid(c), ctx) for c in suit_cards("S", "A K Q J 9 8 7 6 5 4 3")] \
        == list(range(10, -1, -1))
    for s_i, s in enumerate("HCD", start=1):
        plain = suit_cards(s, "A K Q J 9 8 7 6 5 4 3")
        assert_high_to_low(ctx, [[c] for c in plain], s_i)
        assert [order_index(cid(c), ctx) for c in plain] == list(range(10, -1, -1))
    assert trump_count(ctx) == 42


def test_ORD_4():
    ctx = TrumpContext(level="2", trump="D", decks=2)
    trump_groups = ([["BJ"], ["LJ"], ["D:2"], ["S:2", "H:2", "C:2"]]
                    + [[c] for c in suit_cards("D", "A K Q J 10 9 8 7 6 5 4 3")])
    assert_high_to_low(ctx, trump_groups, TRUMP)
    for s_i, s in enumerate("SHC"):
        plain = suit_cards(s, "A K Q J 10 9 8 7 6 5 4 3")
        assert_high_to_low(ctx, [[c] for c in plain], s_i)
        assert [order_index(cid(c), ctx) for c in plain] == list(range(11, -1, -1))
    # with always_trump_two the order is unchanged (L = 2)
    ctx2 = TrumpContext(level="2", trump="D", decks=2, always_trump_two=True)
    assert np.array_equal(ctx.effective_suits, ctx2.effective_suits)
    assert np.array_equal(ctx.order_indices, ctx2.order_indices)


def test_ORD_5():
    ctx = TrumpContext(level="A", trump="H", decks=2)
    trump_groups = ([["BJ"], ["LJ"], ["H:A"], ["S:A", "C:A", "D:A"]]
                    + [[c] for c in suit_cards("H", "K Q J 10 9 8 7 6 5 4 3 2")])
    assert_high_to_low(ctx, trump_groups, TRUMP)
    for s_i, s in [(0, "S"), (2, "C"), (3, "D")]:
        plain = suit_cards(s, "K Q J 10 9 8 7 6 5 4 3 2")
        assert_high_to_low(ctx, [[c] for c in plain], s_i)
        # K is the top off-suit card
        assert order_index(cid(f"{s}:K"), ctx) == 11
        assert order_index(cid(f"{s}:2"), ctx) == 0


def test_ORD_6():
    ctx = TrumpContext(level="10", trump="NT", decks=2, always_trump_two=True)
    assert_idx(ctx, {"BJ": 3, "LJ": 2, "S:10": 1, "H:10": 1, "C:10": 1, "D:10": 1,
                     "S:2": 0, "H:2": 0, "C:2": 0, "D:2": 0})
    assert_high_to_low(ctx, [["BJ"], ["LJ"], ["S:10", "H:10", "C:10", "D:10"],
                             ["S:2", "H:2", "C:2", "D:2"]], TRUMP)
    for s_i, s in enumerate("SHCD"):
        plain = suit_cards(s, "A K Q J 9 8 7 6 5 4 3")
        assert_high_to_low(ctx, [[c] for c in plain], s_i)
        assert [order_index(cid(c), ctx) for c in plain] == list(range(10, -1, -1))
    # derived, not stated in the example: 4 tens + 4 twos + 2 jokers, 2 decks
    assert trump_count(ctx) == 20


# -------------------------------------------------------------------- §13.1 effective suit

def _fmt_set(plays) -> set[str]:
    return {cards.format(p) for p in plays}


def test_EFF_1():
    ctx = TrumpContext(level="10", trump="S", decks=2)
    hand = cards.parse("H:10 10, C:4")
    assert effective_suit(cid("H:10"), ctx) == TRUMP
    hearts = hand[ctx.effective_suits == 1]
    assert int(hearts.sum()) == 0  # void in hearts

    from shengji_env.rules.play import legal_follows, trick_winner
    cfg = Rules()
    lead = cards.parse("H:Q Q")
    # void: any two cards
    assert _fmt_set(legal_follows(hand, lead, ctx, cfg)) == {"H:10 10", "H:10, C:4"}
    # ... and H:10 10 is a ruff of the heart pair
    plays = [lead, cards.parse("H:10 10"), cards.parse("H:3 2"), cards.parse("H:5 4")]
    assert trick_winner(plays, ctx, cfg) == 1


def test_EFF_2():
    ctx = TrumpContext(level="10", trump="NT", decks=2)
    assert effective_suit(cid("S:A"), ctx) == 0
    assert effective_suit(cid("S:10"), ctx) == TRUMP

    from shengji_env.rules.play import is_legal_follow, legal_follows
    cfg = Rules()
    hand = cards.parse("S:3 10, H:4")
    lead = cards.parse("S:A")
    # a spade lead must be followed with a spade; S:10 is trump, not a spade
    assert _fmt_set(legal_follows(hand, lead, ctx, cfg)) == {"S:3"}
    assert not is_legal_follow(hand, lead, cards.parse("S:10"), ctx, cfg)
    assert not is_legal_follow(hand, lead, cards.parse("H:4"), ctx, cfg)


def test_EFF_3():
    ctx = TrumpContext(level="5", trump="H", decks=2)
    assert effective_suit(cid("C:5"), ctx) == TRUMP

    from shengji_env.rules.play import is_legal_follow, legal_follows
    cfg = Rules()
    hand = cards.parse("H:2, C:6, D:5")
    lead = cards.parse("C:5")
    # followers must play trump (H:2 or D:5), not the club
    assert _fmt_set(legal_follows(hand, lead, ctx, cfg)) == {"H:2", "D:5"}
    assert not is_legal_follow(hand, lead, cards.parse("C:6"), ctx, cfg)


# ------------------------------------------------------------------------------ §13.2 points

def test_PTS_1():
    trick = ["H:K", "H:5", "S:10", "H:2"]
    assert sum(cards.points(cards.parse(p)) for p in trick) == 25
    assert cards.points(cards.parse("H:K 5 2, S:10")) == 25


@pytest.mark.parametrize("decks,total", [(1, 100), (2, 200), (3, 300), (4, 400)])
def test_PTS_2(decks, total):
    assert cards.points(cards.full_deck(decks)) == total
    assert Rules(decks=decks).total_points == total


def test_PTS_3():
    ctx5 = TrumpContext(level="5", trump="S", decks=2)
    assert effective_suit(cid("D:5"), ctx5) == TRUMP
    assert cards.points(cards.parse("D:5")) == 5
    ctxk = TrumpContext(level="K", trump="S", decks=2)
    for s in "SHCD":
        assert effective_suit(cid(f"{s}:K"), ctxk) == TRUMP
        assert cards.points(cards.parse(f"{s}:K")) == 10
