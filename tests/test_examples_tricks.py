"""RULES.md §13.8 ruffs, overruffs and trick winners (TW-n) as scenario tests.

``L=10, T=S``; seat 0 leads; plays in playing order (index = seat). Where an example names
fewer than four plays the remaining seats play low discards in a suit that is neither led nor
trump (they cannot win); the comment on each test says so.
"""

from __future__ import annotations

from shengji_env import cards
from shengji_env.rules.config import Rules
from shengji_env.rules.order import TrumpContext
from shengji_env.rules.play import trick_winner, validate_throw

CTX = TrumpContext(level="10", trump="S", decks=2)


def win(*plays: str, ctx=CTX, cfg=None) -> int:
    cfg = cfg or Rules(decks=ctx.decks)
    return trick_winner([cards.parse(p, decks=ctx.decks) for p in plays], ctx, cfg)


def test_TW_1():
    assert win("H:Q", "H:K", "H:K", "H:3") == 1   # first K
    assert win("H:Q", "H:K", "H:K", "H:A") == 3


def test_TW_2():
    # ruff S:3 3 (idx 1) / overruff C:10 10 (idx 12) / D:10 10 equal (12) → seat 2
    assert win("H:Q Q", "S:3 3", "C:10 10", "D:10 10") == 2


def test_TW_3():
    assert win("H:Q Q", "S:3 4", "H:A K", "H:2 2") == 0


def test_TW_4():
    # seats 2 and 3 (not given) follow with heart singles that cannot win
    assert win("H:Q Q", "Jk:BJ LJ", "H:5 6", "H:7 2") == 0


def test_TW_5():
    assert win("H:3 3 4 4", "H:A A K K", "H:9 9 J J", "S:6 6 7 7") == 3
    # without seat 3's ruff (seat 3 discards a club tractor instead) → seat 1
    assert win("H:3 3 4 4", "H:A A K K", "H:9 9 J J", "C:4 4 5 5") == 1


def test_TW_6():
    # H:A A 9 9: two pairs, not a tractor; seats 2-3 (not given) cannot qualify either
    assert win("H:3 3 4 4", "H:A A 9 9", "H:5 6 7 8", "C:2 2 3 3") == 0


def test_TW_7():
    # void S:K K 9 9 (Q, J between) is not a tractor → discard; seats 2-3 not given
    assert win("H:3 3 4 4", "S:K K 9 9", "H:2 5 6 7", "D:2 3 4 5") == 0


def test_TW_8():
    assert win("H:3 3 4 4", "S:6 6 7 7", "S:J J Q Q", "S:A A, C:10 10") == 3
    # control: without seat 3's overruff, seat 2's overruff stands
    assert win("H:3 3 4 4", "S:6 6 7 7", "S:J J Q Q", "D:2 3 4 5") == 2


def test_TW_9():
    lead = "H:A K 5 5 4 4"
    # the throw is valid: seat 2, the only other heart holder, has no H:A and no tractor
    res = validate_throw(cards.parse(lead),
                         [cards.parse(h) for h in ("S:9 9 8 8 7 2, C:3",
                                                   "H:Q J 9 8 7 6, D:4",
                                                   "S:K K Q Q 4 3 A 6 5, C:2")],
                         CTX, Rules())
    assert res.ok is True
    assert win(lead, "S:9 9 8 8 7 2", "H:Q J 9 8 7 6", "S:K K Q Q 4 3") == 3
    # seat 3 plays S:A 6 5 4 3 2 (no tractor): a discard → seat 1's ruff wins
    assert win(lead, "S:9 9 8 8 7 2", "H:Q J 9 8 7 6", "S:A 6 5 4 3 2") == 1


def test_TW_10():
    lead = "H:A A 5 5 4 4"
    # seat 2: six hearts without a tractor; seat 1's S:9 9 8 8 7 2 lacks the second pair
    assert win(lead, "S:9 9 8 8 7 2", "H:K Q J 9 7 6", "S:Q Q J J 3 3") == 3
    # without seat 3's ruff (a club discard) → seat 0
    assert win(lead, "S:9 9 8 8 7 2", "H:K Q J 9 7 6", "C:2 3 4 6 7 8") == 0


def test_TW_11():
    assert win("H:5 4 4", "S:9 7 7", "S:8 8 4", "S:A 3 3") == 2


def test_TW_12():
    assert win("H:5 6 7", "S:9 7 7", "S:8 8 4", "S:A 3 2") == 3


def test_TW_13():
    assert win("D:10", "C:10", "S:A", "S:10") == 3
    assert win("D:10", "C:10", "S:A", "H:10") == 0   # equal: first played wins


def test_TW_14():
    assert win("H:A A K", "H:Q Q J", "S:3 3 4", "S:5 5 2") == 3


def test_TW_15():
    # seat 1 holds one heart: H:4 + BJ is a partial follow; seats 2-3 (not given) discard
    assert win("H:Q Q", "H:4, Jk:BJ", "C:3 4", "D:5 6") == 0


def test_TW_16():
    # 3 decks: seat 1 ruffs the triple with S:3 3 3; seat 2's S:4 4 5 is a discard;
    # seat 3 (not given) discards clubs
    ctx = TrumpContext(level="10", trump="S", decks=3)
    assert win("H:7 7 7", "S:3 3 3", "S:4 4 5", "C:2 3 4", ctx=ctx) == 1



def test_TW_17_tuple_beats_chain_on():
    # seat 3 (not given) discards diamonds
    ctx = TrumpContext(level="10", trump="S", decks=4)
    cfg = Rules(decks=4, tuple_beats_chain=True)
    assert win("H:3 3 4 4", "H:7 7 7 7", "H:A A K K", "D:2 3 4 6", ctx=ctx, cfg=cfg) == 1


def test_TW_17_tuple_beats_chain_off():
    ctx = TrumpContext(level="10", trump="S", decks=4)
    cfg = Rules(decks=4, tuple_beats_chain=False)
    assert win("H:3 3 4 4", "H:7 7 7 7", "H:A A K K", "D:2 3 4 6", ctx=ctx, cfg=cfg) == 2
