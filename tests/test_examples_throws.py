"""RULES.md §13.6 throw validation (TH-n) as scenario tests.

The examples list only the hearts of the other players; each hand below adds a few clubs or
diamonds that cannot matter (a heart throw is checked against hearts only), and never a heart
or a trump that would change the example. ``other_hands`` are seats 1, 2, 3 (seat 0 leads).
"""

from __future__ import annotations

import pytest

from shengji_env import cards
from shengji_env.rules.config import Rules
from shengji_env.rules.order import TrumpContext
from shengji_env.rules.play import is_legal_lead, validate_throw

CTX = TrumpContext(level="10", trump="S", decks=2)


def hands(*texts, decks=2):
    return [cards.parse(t, decks=decks) for t in texts]


def norm(text, decks=2) -> str:
    return cards.format(cards.parse(text, decks=decks))


def throw(lead, others, cfg=None, ctx=CTX):
    cfg = cfg or Rules(decks=ctx.decks)
    return validate_throw(cards.parse(lead, decks=ctx.decks), hands(*others, decks=ctx.decks),
                          ctx, cfg)


def assert_ok(res):
    assert res.ok is True
    assert res.forced is None
    assert not res.candidates


def assert_forced(res, forced: str, candidates: list[str] | None = None, decks=2):
    assert res.ok is False
    assert res.forced is not None
    assert cards.format(res.forced) == norm(forced, decks)
    cands = candidates if candidates is not None else [forced]
    assert sorted(cards.format(c) for c in res.candidates) == sorted(norm(c, decks) for c in cands)


def test_TH_1():
    # the other H:K (seat 2) is equal, not higher: nothing beats the single K
    res = throw("H:A A K", ["H:Q J 3, C:4 4", "H:K 2, D:7", "H:Q 5, C:A"])
    assert_ok(res)


def test_TH_2():
    res = throw("H:A K", ["H:Q 3, C:5", "H:A 7, D:9", "H:J, C:2"])
    assert_forced(res, "H:K")


def test_TH_3():
    # seat 1 holds the other H:A and a lower pair: nobody can hold H:A A
    res = throw("H:A K K", ["H:A Q Q, C:3", "H:J 9, D:4", "H:7, D:8 8"])
    assert_ok(res)


def test_TH_4():
    # seat 1 holds the other A and both Ks (no A A K K possible), seat 2 a lower tractor
    res = throw("H:A Q Q J J", ["H:A K K, C:3", "H:9 9 8 8, D:6", "H:2, C:7"])
    assert_ok(res)


TH5 = {
    "a": ["H:J 7 3, C:9", "H:6, D:K", "H:2 2, C:Q"],
    "b": ["H:7 3, C:9", "H:6, D:K", "H:5 5, C:Q"],
    "c": ["H:7 3, C:9", "H:Q Q, D:K", "H:2 2, C:Q"],
}


def test_TH_5a():
    assert_forced(throw("H:9 8 8 4 4", TH5["a"]), "H:9")


def test_TH_5b():
    assert_forced(throw("H:9 8 8 4 4", TH5["b"]), "H:4 4")


@pytest.mark.parametrize("choice,forced", [
    ("AUTO_LOWEST_RANK", "H:4 4"),
    ("AUTO_FEWEST_CARDS", "H:9"),
    ("NEXT_PLAYER", None),
])
def test_TH_5c(choice, forced):
    res = throw("H:9 8 8 4 4", TH5["c"], Rules(failed_throw_choice=choice))
    assert res.ok is False
    assert sorted(cards.format(c) for c in res.candidates) == sorted(["H:9", "H:4 4"])
    if forced is None:  # NEXT_PLAYER: seat 1 picks one of the candidates
        assert res.forced is None
    else:
        assert cards.format(res.forced) == forced


def test_TH_5c_default_is_lowest_rank():
    assert cards.format(throw("H:9 8 8 4 4", TH5["c"]).forced) == "H:4 4"


@pytest.mark.parametrize("choice,forced", [
    ("AUTO_LOWEST_RANK", "H:4 4"),
    ("NEXT_PLAYER", None),
    ("AUTO_FEWEST_CARDS", "H:K"),  # not in the example; follows from §7.4.3
])
def test_TH_6(choice, forced):
    res = throw("H:K 4 4", ["H:3, C:8", "H:A, D:2", "H:6 6, C:J"],
                Rules(failed_throw_choice=choice))
    assert res.ok is False
    assert sorted(cards.format(c) for c in res.candidates) == sorted(["H:K", "H:4 4"])
    if forced is None:
        assert res.forced is None
    else:
        assert cards.format(res.forced) == forced


def test_TH_7():
    # A A J J: two pairs at level 10 (not a tractor); seat 3's K K beats the pair J J only
    assert_forced(throw("H:A A J J", ["H:3, C:8", "H:5, D:2", "H:K K, C:J"]), "H:J J")
    # seat 3 holds only a single K: the throw has no single unit → stands
    assert_ok(throw("H:A A J J", ["H:3, C:8", "H:5, D:2", "H:K, C:J"]))


def test_TH_8():
    assert_forced(throw("H:A 9 9 8 8", ["H:3, C:8", "H:K K Q Q, D:2", "H:2, C:J"]), "H:9 9 8 8")
    # seat 2 holds K K and 6 6 (two pairs, no tractor) → stands
    assert_ok(throw("H:A 9 9 8 8", ["H:3, C:8", "H:K K 6 6, D:2", "H:2, C:J"]))


def test_TH_9():
    # the partner (seat 2) holds the other H:A: fails exactly as TH-2
    assert_forced(throw("H:A K", ["H:4, C:5 5", "H:A, D:9", "H:3, C:2"]), "H:K")
    # the same cards with the A moved to an opponent (control)
    assert_forced(throw("H:A K", ["H:4 A, C:5 5", "D:9", "H:3, C:2"]), "H:K")


def test_TH_10():
    # the other H:A is in the buried kitty: nobody holds it
    assert_ok(throw("H:A K", ["H:Q 3, C:5", "H:7, D:9", "H:J, C:2"]))


def test_TH_11():
    # the other players hold every other high trump except the BJs (both in the lead)
    assert_ok(throw("Jk:BJ BJ LJ", ["Jk:LJ, S:10 10, C:4", "S:A A, H:10, D:6",
                                    "D:10 10, S:K, C:9"]))


@pytest.mark.parametrize("seat,card", [(1, "H:10"), (2, "Jk:LJ"), (3, "S:10"), (1, "D:10")])
def test_TH_12(seat, card):
    others = ["S:3, C:4", "S:K K, D:6", "C:9 8"]
    others[seat - 1] += ", " + card
    assert_forced(throw("Jk:BJ BJ, S:A", others), "S:A")


def test_TH_12_no_ten_no_lj():
    # control: no other player holds a 10 or an LJ → the single S:A is top → stands
    assert_ok(throw("Jk:BJ BJ, S:A", ["S:3, C:4", "S:K K, D:6", "C:9 8"]))


def test_TH_13():
    # seat 1's C:10 and seat 2's H:10 equal the D:10: equal strength never beats
    assert_ok(throw("D:10, Jk:BJ BJ", ["C:10, S:Q, H:4", "H:10, S:A A", "S:K K 9, D:3"]))


def test_TH_14():
    lead = cards.parse("H:A, H:10")
    assert is_legal_lead(lead, CTX) is False
    assert is_legal_lead(cards.parse("H:A K"), CTX) is True
    assert is_legal_lead(cards.parse("H:10, S:A"), CTX) is True  # both trump
    with pytest.raises(ValueError):
        validate_throw(lead, hands("C:2", "C:3", "C:4"), CTX, Rules())


def test_TH_15():
    ctx = TrumpContext(level="2", trump="S", decks=1)
    # every heart that could beat K or Q is in seat 0's hand
    assert_ok(throw("H:A K Q", ["H:J 3, C:4", "H:10 9, D:6", "H:8, C:9"], ctx=ctx))
    assert_forced(throw("H:A Q", ["H:J 3, C:4", "H:10 9, D:6", "H:K, C:9"], ctx=ctx), "H:Q",
                  decks=1)
