"""RULES.md §13.7 following (FO-n, FO3-n) as scenario tests.

Each example is checked three ways:
* ``legal_follows`` returns exactly the table's set of plays (compared as ``cards.format``);
* ``is_legal_follow`` agrees on **every** sub-multiset of the hand with the lead's size
  (the listed plays are legal, every other one is illegal);
* ``legal_next_cards`` (the prefix-closed mask, DESIGN §4) agrees with that set of plays for
  every partial selection on the way to a legal play (``test_FO_next_cards``).
Hands are used exactly as the table lists them (a small hand late in a deal).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.rules.config import Rules
from shengji_env.rules.order import TrumpContext
from shengji_env.rules.play import is_legal_follow, legal_follows, legal_next_cards, trick_winner

CTX = TrumpContext(level="10", trump="S", decks=2)
CTX3 = TrumpContext(level="10", trump="S", decks=3)


def P(text: str, decks: int = 2) -> np.ndarray:
    return cards.parse(text, decks=decks)


def norm(text: str, decks: int = 2) -> str:
    return cards.format(P(text, decks))


def subsets(counts: np.ndarray, size: int):
    """Every distinct sub-multiset of ``counts`` with ``size`` cards (test-side enumeration)."""
    ids = [int(c) for c in np.flatnonzero(counts)]
    out = []

    def rec(i, left, acc):
        if left == 0:
            out.append(acc.copy())
            return
        if i == len(ids):
            return
        c = ids[i]
        for m in range(min(int(counts[c]), left), -1, -1):
            acc[c] = m
            rec(i + 1, left - m, acc)
        acc[c] = 0

    rec(0, size, np.zeros(54, dtype=np.uint8))
    return out


def check_follow(hand: str, lead: str, legal: list[str], cfg=None, ctx=CTX):
    d = ctx.decks
    cfg = cfg or Rules(decks=d)
    h, ld = P(hand, d), P(lead, d)
    expected = {norm(x, d) for x in legal}
    assert len(expected) == len(legal), "duplicate in the expected list"
    got = [cards.format(x) for x in legal_follows(h, ld, ctx, cfg)]
    assert len(got) == len(set(got)), f"legal_follows repeats a play: {got}"
    assert set(got) == expected
    for x in subsets(h, int(ld.sum())):
        assert is_legal_follow(h, ld, x, ctx, cfg) is (cards.format(x) in expected), cards.format(x)
    # a listed play with one card swapped for a card not in the hand is never legal
    some = P(legal[0], d).copy()
    some[int(np.flatnonzero(some)[0])] -= 1
    some[int(np.flatnonzero(h == 0)[0])] += 1
    assert is_legal_follow(h, ld, some, ctx, cfg) is False


def pad(n: int, suit: str) -> np.ndarray:
    """n low singles of one suit: a discard in a suit neither led nor trump (cannot win)."""
    return P(f"{suit}:" + " ".join(["2", "3", "4", "6", "7", "8"][:n]))


def winner(lead: str, play: str, ctx=CTX, cfg=None) -> int:
    """Winner of lead (seat 0) / play (seat 1) / two discards (seats 2, 3)."""
    ld = P(lead)
    n = int(ld.sum())
    return trick_winner([ld, P(play), pad(n, "C"), pad(n, "D")], ctx, cfg or Rules())


# ----------------------------------------------------------------------------- 2 decks

def test_FO_1():
    check_follow("H:A 3, S:5", "H:K", ["H:A", "H:3"])


def test_FO_2():
    check_follow("H:9 9 J 3, S:A, C:K", "H:Q Q", ["H:9 9"])


def test_FO_3():
    check_follow("H:J 3, S:A A", "H:Q Q", ["H:J 3"])


def test_FO_4():
    legal = ["H:3, S:A", "H:3, C:K"]
    check_follow("H:3, S:A A, C:K", "H:Q Q", legal)
    for x in legal:
        assert winner("H:Q Q", x) == 0  # cannot win


def test_FO_5():
    check_follow("S:A A 6, C:K K", "H:Q Q",
                 ["S:A A", "S:A 6", "S:A, C:K", "S:6, C:K", "C:K K"])
    assert winner("H:Q Q", "S:A A") == 1          # ruff
    for x in ["S:A 6", "C:K K", "S:A, C:K", "S:6, C:K"]:
        assert winner("H:Q Q", x) == 0, x        # discards


def test_FO_6():
    check_follow("H:J J Q Q 6 5", "H:3 3 4 4", ["H:J J Q Q"])


def test_FO_7():
    check_follow("H:J J 7 7 6", "H:3 3 4 4", ["H:J J 7 7"])


def test_FO_8():
    check_follow("H:K K 8 6 5", "H:3 3 4 4", ["H:K K 8 6", "H:K K 8 5", "H:K K 6 5"])


def test_FO_9():
    check_follow("H:9 9 J J 2", "H:3 3 4 4", ["H:9 9 J J"])


def test_FO_10():
    check_follow("H:K K Q Q A A", "H:3 3 4 4", ["H:K K Q Q", "H:A A K K"])


def test_FO_11():
    check_follow("H:A A K K 7 7 2", "H:3 3 4 4 5 5", ["H:A A K K 7 7"])


def test_FO_12():
    check_follow("H:A A K K 7 6 2", "H:3 3 4 4 5 5",
                 ["H:A A K K 7 6", "H:A A K K 7 2", "H:A A K K 6 2"])


def test_FO_13():
    check_follow("H:J J 8 4", "H:A A K", ["H:J J 8", "H:J J 4"])


def test_FO_14():
    check_follow("H:9 9 8 8 6 6 5", "H:A Q Q J J", ["H:9 9 8 8 6", "H:9 9 8 8 5"])


def test_FO_15():
    check_follow("H:Q Q 3", "H:A K", ["H:Q Q", "H:Q 3"])


def test_FO_16():
    check_follow("S:3, H:10, D:A", "Jk:LJ", ["S:3", "H:10"])


def test_FO_17():
    check_follow("H:10, S:4, C:K", "H:5", ["H:10", "S:4", "C:K"])
    assert winner("H:5", "H:10") == 1   # ruff (H:10 is trump)
    assert winner("H:5", "S:4") == 1    # ruff
    assert winner("H:5", "C:K") == 0    # discard


def test_FO_18():
    check_follow("D:10 10, S:8, Jk:LJ", "S:5 5", ["D:10 10"])
    assert winner("S:5 5", "D:10 10") == 1


def test_FO_19():
    hand, lead = "H:K K Q Q 7 7 2 2", "H:3 3 4 4 5 5"
    check_follow(hand, lead, ["H:K K Q Q 7 7", "H:K K Q Q 2 2", "H:K K 7 7 2 2",
                              "H:Q Q 7 7 2 2"])
    check_follow(hand, lead, ["H:K K Q Q 7 7", "H:K K Q Q 2 2"],
                 Rules(follow_partial_tractor=True))


def test_FO_20():
    lead = "Jk:BJ BJ LJ LJ, S:10 10 A A K K"   # 3-pair tractor BJ-LJ-S:10 + 2-pair S:A-K
    hand = "S:Q Q J J 9 9 7 7 5 5, H:10 10"
    check_follow(hand, lead, ["S:Q Q J J 9 9 7 7 5 5", "S:Q Q J J 9 9 7 7, H:10 10",
                              "S:Q Q J J 9 9 5 5, H:10 10"])
    assert not is_legal_follow(P(hand), P(lead), P("S:Q Q J J 7 7 5 5, H:10 10"), CTX, Rules())


# The two further worked examples of the follow_partial_tractor option in RULES.md §8.2.

def test_FO_partial_tractor_option_8_2_five_pairs():
    ctx = TrumpContext(level="10", trump="S", decks=2)
    hand, lead = "H:2 2 4 4 7 7 8 8 9 9", "H:J J Q Q K K A A"
    pairs = ["2 2", "4 4", "7 7", "8 8", "9 9"]
    default = ["H:" + " ".join(p for j, p in enumerate(pairs) if j != i) for i in range(5)]
    check_follow(hand, lead, default, ctx=ctx)
    check_follow(hand, lead, ["H:7 7 8 8 9 9 2 2", "H:7 7 8 8 9 9 4 4"],
                 Rules(follow_partial_tractor=True), ctx=ctx)


def test_FO_partial_tractor_option_8_2_three_tractors():
    # 4-pair tractor led; the follower holds three non-adjacent 2-pair tractors
    # (9988, 6655, 3322 at level 10) and nothing longer
    hand, lead = "H:9 9 8 8 6 6 5 5 3 3 2 2", "H:J J Q Q K K A A"
    pairs = ["9 9", "8 8", "6 6", "5 5", "3 3", "2 2"]
    default = ["H:" + " ".join(c) for c in combinations(pairs, 4)]
    assert len(default) == 15
    check_follow(hand, lead, default)
    check_follow(hand, lead, ["H:9 9 8 8 6 6 5 5", "H:9 9 8 8 3 3 2 2", "H:6 6 5 5 3 3 2 2"],
                 Rules(follow_partial_tractor=True))


# ------------------------------------------------------------ prefix-closed mask (DESIGN §4)

FO_CASES = {
    "FO-1": ("H:A 3, S:5", "H:K", None),
    "FO-2": ("H:9 9 J 3, S:A, C:K", "H:Q Q", None),
    "FO-3": ("H:J 3, S:A A", "H:Q Q", None),
    "FO-4": ("H:3, S:A A, C:K", "H:Q Q", None),
    "FO-5": ("S:A A 6, C:K K", "H:Q Q", None),
    "FO-6": ("H:J J Q Q 6 5", "H:3 3 4 4", None),
    "FO-7": ("H:J J 7 7 6", "H:3 3 4 4", None),
    "FO-8": ("H:K K 8 6 5", "H:3 3 4 4", None),
    "FO-9": ("H:9 9 J J 2", "H:3 3 4 4", None),
    "FO-10": ("H:K K Q Q A A", "H:3 3 4 4", None),
    "FO-11": ("H:A A K K 7 7 2", "H:3 3 4 4 5 5", None),
    "FO-12": ("H:A A K K 7 6 2", "H:3 3 4 4 5 5", None),
    "FO-13": ("H:J J 8 4", "H:A A K", None),
    "FO-14": ("H:9 9 8 8 6 6 5", "H:A Q Q J J", None),
    "FO-15": ("H:Q Q 3", "H:A K", None),
    "FO-16": ("S:3, H:10, D:A", "Jk:LJ", None),
    "FO-17": ("H:10, S:4, C:K", "H:5", None),
    "FO-18": ("D:10 10, S:8, Jk:LJ", "S:5 5", None),
    "FO-19": ("H:K K Q Q 7 7 2 2", "H:3 3 4 4 5 5", None),
    "FO-19-partial": ("H:K K Q Q 7 7 2 2", "H:3 3 4 4 5 5", {"follow_partial_tractor": True}),
    "FO-20": ("S:Q Q J J 9 9 7 7 5 5, H:10 10", "Jk:BJ BJ LJ LJ, S:10 10 A A K K", None),
}


@pytest.mark.parametrize("case", list(FO_CASES))
def test_FO_next_cards(case):
    hand, lead, opts = FO_CASES[case]
    cfg = Rules(**(opts or {}))
    h, ld = P(hand), P(lead)
    n = int(ld.sum())
    plays = legal_follows(h, ld, CTX, cfg)
    assert plays
    prefixes = {}
    for p in plays:
        for size in range(n):
            for s in subsets(p, size):
                prefixes[cards.format(s)] = s
    for s in prefixes.values():
        mask = np.asarray(legal_next_cards(h, ld, s, CTX, cfg))
        assert mask.shape == (54,) and mask.dtype == bool
        want = np.zeros(54, dtype=bool)
        for p in plays:
            extra = p.astype(int) - s.astype(int)
            if (extra >= 0).all():
                want |= extra > 0
        assert np.array_equal(mask, want), (cards.format(s), cards.format(mask.astype(np.uint8)),
                                            cards.format(want.astype(np.uint8)))
    # a full selection takes no further card
    full = np.asarray(legal_next_cards(h, ld, plays[0], CTX, cfg))
    assert not full.any()


# ----------------------------------------------------------------------------- 3 decks


def test_FO3_1():
    check_follow("H:Q Q Q 3", "H:7 7 7", ["H:Q Q Q"], ctx=CTX3)



def test_FO3_2():
    check_follow("H:Q Q 3 2", "H:7 7 7", ["H:Q Q 3", "H:Q Q 2"], ctx=CTX3)



def test_FO3_3():
    check_follow("H:Q Q J J 3", "H:7 7 7", ["H:Q Q J", "H:Q Q 3", "H:J J Q", "H:J J 3"], ctx=CTX3)



def test_FO3_4():
    check_follow("H:K K K 2", "H:5 5", ["H:K K"], ctx=CTX3)



@pytest.mark.parametrize("order,legal", [
    ("A", ["H:A A A 9 9 9"]),
    ("B", ["H:A A A 9 9 9"]),
    # order C: tractor 6655 + any two of the other hearts {A, A, A, 9, 9, 9}
    ("C", ["H:6 6 5 5 A A", "H:6 6 5 5 A 9", "H:6 6 5 5 9 9"]),
])
def test_FO3_5(order, legal):
    check_follow("H:A A A 9 9 9 6 6 5 5", "H:7 7 7 8 8 8", legal,
                 Rules(decks=3, titanic_follow_order=order), ctx=CTX3)



@pytest.mark.parametrize("order,legal", [
    # order A: triple AAA + a pair (66 or 55) + one more heart
    ("A", ["H:A A A 6 6 5", "H:A A A 6 6 3", "H:A A A 5 5 6", "H:A A A 5 5 3"]),
    # order B/C: tractor 6655 + any two of {A, A, A, 3}
    ("B", ["H:6 6 5 5 A A", "H:6 6 5 5 A 3"]),
    ("C", ["H:6 6 5 5 A A", "H:6 6 5 5 A 3"]),
])
def test_FO3_6(order, legal):
    check_follow("H:A A A 6 6 5 5 3", "H:7 7 7 8 8 8", legal,
                 Rules(decks=3, titanic_follow_order=order), ctx=CTX3)


def test_FO3_7():
    check_follow("H:7 7 7 8 8", "H:3 3 4 4", ["H:7 7 8 8"], ctx=CTX3)
