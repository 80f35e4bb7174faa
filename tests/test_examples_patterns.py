"""RULES.md §13.3 pattern recognition (TR-n, the per-level tractor lists, DEC-U-n).

Tractor checks use ``is_tractor``; for a ✓ the decomposition is also checked to be exactly one
unit of the stated shape, for a ✗ where the table says why (same position, not adjacent) the
order indices quoted in the table are checked too.
"""

from __future__ import annotations

import pytest

from shengji_env import cards
from shengji_env.cards import BJ, LJ
from shengji_env.rules.order import TrumpContext, order_index
from shengji_env.rules.patterns import decompose, is_throw, is_tractor

L10S = TrumpContext(level="10", trump="S", decks=2)


def cid(name: str) -> int:
    if name in ("LJ", "BJ"):
        return LJ if name == "LJ" else BJ
    suit, rank = name.split(":")
    return cards.card_id(suit, rank)


def check(text: str, ctx: TrumpContext, tractor: bool, length: int | None = None, k: int = 2):
    counts = cards.parse(text, decks=ctx.decks)
    assert is_tractor(counts, ctx) is tractor, text
    if tractor:
        units = decompose(counts, ctx)
        assert len(units) == 1, units
        assert units[0].k == k
        n = int(counts.sum()) // k if length is None else length
        assert units[0].length == n
        assert cards.format(units[0].counts) == cards.format(counts)


def idx(ctx, *names):
    return [order_index(cid(n), ctx) for n in names]


def shape_list(text, ctx):
    return [(u.k, u.length, u.top, cards.format(u.counts))
            for u in decompose(cards.parse(text, decks=ctx.decks), ctx)]


# ------------------------------------------------------------- level 10, trump S (TR-n)

def test_TR_1():
    check("H:2 2 3 3", L10S, True, 2)


def test_TR_2():
    check("H:9 9 J J", L10S, True, 2)


def test_TR_3():
    check("S:2 2 3 3", L10S, True, 2)


def test_TR_4():
    check("S:9 9 J J", L10S, True, 2)


def test_TR_5():
    assert idx(L10S, "S:A", "D:10") == [11, 12]
    check("S:A A, D:10 10", L10S, True, 2)


def test_TR_6():
    assert idx(L10S, "C:10", "S:10") == [12, 13]
    check("C:10 10, S:10 10", L10S, True, 2)


def test_TR_7():
    assert idx(L10S, "S:10", "LJ") == [13, 14]
    check("S:10 10, Jk:LJ LJ", L10S, True, 2)


def test_TR_8():
    assert idx(L10S, "LJ", "BJ") == [14, 15]
    check("Jk:LJ LJ BJ BJ", L10S, True, 2)


def test_TR_9():
    assert idx(L10S, "S:A", "D:10", "S:10") == [11, 12, 13]
    check("S:A A, D:10 10, S:10 10", L10S, True, 3)
    assert decompose(cards.parse("S:A A, D:10 10, S:10 10"), L10S)[0].top == 13


def test_TR_10():
    assert idx(L10S, "H:10", "S:10", "LJ", "BJ") == [12, 13, 14, 15]
    check("H:10 10, S:10 10, Jk:LJ LJ BJ BJ", L10S, True, 4)


def test_TR_11():
    check("H:9 9 10 10", L10S, False)


def test_TR_12():
    assert idx(L10S, "S:10", "S:J") == [13, 8]
    check("S:10 10 J J", L10S, False)
    units = decompose(cards.parse("S:10 10 J J"), L10S)
    assert [(u.k, u.length) for u in units] == [(2, 1), (2, 1)]


def test_TR_13():
    assert idx(L10S, "D:10", "C:10") == [12, 12]
    check("D:10 10, C:10 10", L10S, False)
    assert [(u.k, u.length) for u in decompose(cards.parse("D:10 10, C:10 10"), L10S)] \
        == [(2, 1), (2, 1)]


def test_TR_14():
    check("H:5 5 4", L10S, False)


def test_TR_15():
    check("H:5 4 4", L10S, False)


def test_TR_16():
    check("H:5 5 3 3", L10S, False)


def test_TR_17():
    check("H:J J Q", L10S, False)


def test_TR_18():
    check("H:J J 10 10", L10S, False)


def test_TR_19():
    check("H:A A 2 2", L10S, False)


def test_TR_20():
    assert idx(L10S, "S:K", "D:10") == [10, 12]
    check("S:K K, D:10 10", L10S, False)


def test_TR_21():
    assert idx(L10S, "LJ", "D:10") == [14, 12]
    check("Jk:LJ LJ, D:10 10", L10S, False)


def test_TR_22():
    assert idx(L10S, "BJ", "S:10") == [15, 13]
    check("Jk:BJ BJ, S:10 10", L10S, False)


def test_TR_23():
    check("Jk:BJ LJ", L10S, False)
    # not a pair at all: two singles
    assert [(u.k, u.length) for u in decompose(cards.parse("Jk:BJ LJ"), L10S)] == [(1, 1), (1, 1)]


def test_TR_24a():
    check("H:A A K K", L10S, True, 2)


def test_TR_24b():
    check("H:K K Q Q", L10S, True, 2)


def test_TR_25():
    # D:10 + C:10: not identical → two singles (equal strength), not a pair
    units = decompose(cards.parse("D:10, C:10"), L10S)
    assert [(u.k, u.length, u.top) for u in units] == [(1, 1, 12), (1, 1, 12)]
    # §6.2 tie order: C before D
    assert [cards.format(u.counts) for u in units] == ["C:10", "D:10"]
    assert not is_tractor(cards.parse("D:10, C:10"), L10S)


def test_TR_26():
    check("H:5 5 4 4 3 3", L10S, True, 3)


# -------------------------------------------------------------- per-level tractor lists

L5H = TrumpContext(level="5", trump="H", decks=2)
L5NT = TrumpContext(level="5", trump="NT", decks=2)
LAD = TrumpContext(level="A", trump="D", decks=2)
L2C = TrumpContext(level="2", trump="C", decks=2)
LJS = TrumpContext(level="J", trump="S", decks=2)
L10S_T2 = TrumpContext(level="10", trump="S", decks=2, always_trump_two=True)
L5H_3 = TrumpContext(level="5", trump="H", decks=3)
L5NT_3 = TrumpContext(level="5", trump="NT", decks=3)


@pytest.mark.parametrize("text,expected", [
    ("C:3 3 4 4", True),
    ("C:4 4 6 6", True),       # 5 removed
    ("D:5 5, H:5 5", True),
    ("Jk:LJ LJ BJ BJ", True),
    ("H:A A, D:5 5", True),
    ("H:5 5, Jk:LJ LJ", True),
    ("H:4 4 6 6", True),
    ("C:5 5 6 6", False),      # 5s are trump
    ("H:5 5 6 6", False),      # idx 13 vs 3
])
def test_TR_level5_trumpH(text, expected):
    check(text, L5H, expected, 2)


def test_TR_level5_trumpH_indices():
    assert idx(L5H, "H:5", "H:6") == [13, 3]


@pytest.mark.parametrize("text,expected", [
    ("C:5 5, D:5 5", False),   # level cards equal
    ("D:5 5, Jk:LJ LJ", True),  # LJ adjacent to any level pair
    ("Jk:LJ LJ BJ BJ", True),
    ("S:5 5, Jk:BJ BJ", False),
    ("C:4 4 6 6", True),
])
def test_TR_level5_NT(text, expected):
    check(text, L5NT, expected, 2)


@pytest.mark.parametrize("text,expected", [
    ("D:K K, C:A A", True),
    ("C:A A, D:A A", True),
    ("H:Q Q K K", True),
    ("H:K K, H:A A", False),   # H:A is trump
])
def test_TR_levelA_trumpD(text, expected):
    check(text, LAD, expected, 2)


@pytest.mark.parametrize("text,expected", [
    ("C:A A, H:2 2", True),
    ("H:2 2, C:2 2", True),
    ("H:3 3 4 4", True),
    ("H:A A 3 3", False),
])
def test_TR_level2_trumpC(text, expected):
    check(text, L2C, expected, 2)


def test_TR_levelJ_trumpS():
    check("H:10 10 Q Q", LJS, True, 2)   # J removed


@pytest.mark.parametrize("text,expected", [
    ("S:A A, D:2 2", True),
    ("D:2 2, S:2 2", True),
    ("S:2 2, C:10 10", True),
    ("H:2 2, D:2 2", False),
    ("H:2 2 3 3", False),       # H:2 is trump
    ("H:3 3 4 4", True),
    ("H:9 9 J J", True),
])
def test_TR_always_trump_two_level10_trumpS(text, expected):
    check(text, L10S_T2, expected, 2)


@pytest.mark.parametrize("text,expected", [
    ("C:3 3 3 4 4 4", True),
    ("C:4 4 4 6 6 6", True),
    ("D:5 5 5, H:5 5 5", True),
    ("Jk:LJ LJ LJ BJ BJ BJ", True),
    ("H:A A A, D:5 5 5", True),
    ("H:5 5 5, Jk:LJ LJ LJ", True),
    ("C:5 5 5 6 6 6", False),
])
def test_TR_3deck_level5_trumpH(text, expected):
    check(text, L5H_3, expected, 2, k=3)


@pytest.mark.parametrize("text,expected", [
    ("C:5 5 5, D:5 5 5", False),
    ("C:3 3 3 4 4", False),
])
def test_TR_3deck_level5_NT(text, expected):
    check(text, L5NT_3, expected)


def test_TR_3deck_level5_NT_decomposition():
    # C:3 3 3 4 4 decomposes as triple + pair (not a Titanic, not tractor + single)
    assert [(u.k, u.length) for u in decompose(cards.parse("C:3 3 3 4 4", decks=3), L5NT_3)] \
        == [(3, 1), (2, 1)]


# ------------------------------------------------------------------------ decomposition

def test_DEC_U_1():
    lead = cards.parse("Jk:LJ LJ, S:10 10, D:10 10, C:10 10")
    assert shape_list("Jk:LJ LJ, S:10 10, D:10 10, C:10 10", L10S) == [
        (2, 3, 14, "S:10 10, C:10 10, Jk:LJ LJ"),
        (2, 1, 12, "D:10 10"),
    ]
    assert is_throw(lead, L10S)
    assert not is_tractor(lead, L10S)


def test_DEC_U_2():
    assert shape_list("S:A A, D:10 10, C:10 10, S:10 10", L10S) == [
        (2, 3, 13, "S:A A 10 10, C:10 10"),
        (2, 1, 12, "D:10 10"),
    ]


def test_DEC_U_3():
    # 3 decks; level/trump not stated: L=10, T=S as in the rest of §13.3 (7 → idx 5, 8 → idx 6)
    ctx = TrumpContext(level="10", trump="S", decks=3)
    assert shape_list("H:7 7 7 8 8", ctx) == [(3, 1, 5, "H:7 7 7"), (2, 1, 6, "H:8 8")]


def test_DEC_U_4():
    units = shape_list("H:A K 5 5 4 4", L10S)
    assert units == [(2, 2, 3, "H:5 5 4 4"), (1, 1, 11, "H:A"), (1, 1, 10, "H:K")]
    assert (units[0][0], units[0][1]) == (2, 2)  # primary = tractor


def test_DEC_U_5():
    assert shape_list("H:A A 5 5 4 4", L10S) == [(2, 2, 3, "H:5 5 4 4"), (2, 1, 11, "H:A A")]
