"""3 and 4 decks in the rules of record (RULES.md §4.1, §6-10): throws, follows, ruffs,
``tuple_beats_chain``, ``ruff_match="COUNT_ONLY"``, declarations, kitty and level steps.

The §13 examples with 3 or 4 decks (FO3-n, TW-16, TW-17, KT-8/9, DCL-7, LV-12/13, the Titanic
patterns) are in the per-section example files; these are the further cases of issue 12.
``L=10, T=S`` unless stated.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_examples_follow import check_follow

from shengji_env import cards
from shengji_env.rules import Rules, TrumpContext, is_ruff, legal_follows, trick_winner, validate_throw
from shengji_env.rules.declare import Declaration, DeclareState, accept, is_accepted, legal_declarations
from shengji_env.rules.follow_tuples import shape_levels
from shengji_env.rules.play import legal_next_cards

CTX2 = TrumpContext(level="10", trump="S", decks=2)
CTX3 = TrumpContext(level="10", trump="S", decks=3)
CTX4 = TrumpContext(level="10", trump="S", decks=4)


def P(text: str, decks: int) -> np.ndarray:
    return cards.parse(text, decks=decks)


def win(*plays: str, ctx, cfg=None) -> int:
    cfg = cfg or Rules(decks=ctx.decks)
    return trick_winner([P(p, ctx.decks) for p in plays], ctx, cfg)


def throw(lead: str, others: list[str], ctx, cfg=None):
    cfg = cfg or Rules(decks=ctx.decks)
    hands = [P(h, ctx.decks) for h in others]
    return validate_throw(P(lead, ctx.decks), hands, ctx, cfg)


# --------------------------------------------------------------------- ruff_match COUNT_ONLY §9.1

COUNT_ONLY = Rules(ruff_match="COUNT_ONLY")


def test_count_only_is_the_weaker_test():
    # issue 12: both are ruffs under EXACT, so COUNT_ONLY (no fewer tractors, no fewer pairs)
    # must accept them too
    for play, lead in (("S:9 9 8 8", "H:A A J J"),
                       ("S:9 9 8 8 7 7 6 6", "H:A A K K 5 5 4 4")):
        p, ld = P(play, 2), P(lead, 2)
        assert is_ruff(p, ld, CTX2, Rules())
        assert is_ruff(p, ld, CTX2, COUNT_ONLY)


def test_count_only_accepts_other_tractor_lengths():
    # a 3-pair tractor + pair led; two 2-pair tractors: EXACT no, COUNT_ONLY yes
    lead, play = P("H:A A K K Q Q 3 3", 2), P("S:9 9 8 8 5 5 4 4", 2)
    assert not is_ruff(play, lead, CTX2, Rules())
    assert is_ruff(play, lead, CTX2, COUNT_ONLY)
    # fewer tractors or fewer pairs than the lead: a discard under both
    assert not is_ruff(P("S:9 9 8 8 6 6 4 3", 2), lead, CTX2, COUNT_ONLY)
    assert not is_ruff(P("S:9 9 7 7 5 5 3 3", 2), lead, CTX2, COUNT_ONLY)


def test_count_only_overruff_values():
    # pair-led throw: the value is the top trump pair; tractor lead: the top of a trump tractor
    assert win("H:A A J J", "S:9 9 8 8", "S:Q Q 3 3", "D:2 3 4 6", ctx=CTX2, cfg=COUNT_ONLY) == 2
    assert win("H:A A J J", "S:Q Q 3 3", "S:9 9 8 8", "D:2 3 4 6", ctx=CTX2, cfg=COUNT_ONLY) == 1
    lead = "H:A A K K Q Q 3 3"
    assert win(lead, "S:9 9 8 8 5 5 4 4", "S:K K Q Q 3 3 2 2", "D:2 3 4 5 6 7 8 9",
               ctx=CTX2, cfg=COUNT_ONLY) == 2
    assert win(lead, "S:K K Q Q 3 3 2 2", "S:9 9 8 8 5 5 4 4", "D:2 3 4 5 6 7 8 9",
               ctx=CTX2, cfg=COUNT_ONLY) == 1


def test_count_only_with_triples():
    # 3 decks: a triple + pair led; a trump triple + pair ruffs, a Titanic ruffs it too
    cfg = Rules(decks=3, ruff_match="COUNT_ONLY")
    lead = P("H:A A A 5 5", 3)
    assert is_ruff(P("S:3 3 3 9 9", 3), lead, CTX3, cfg)
    assert is_ruff(P("S:3 3 3 4 4", 3), lead, CTX3, cfg)
    assert not is_ruff(P("S:3 3 4 4 9", 3), lead, CTX3, cfg)  # no triple


# ------------------------------------------------------------------------------ throws §7.3-7.4

def test_throw_with_a_triple_3_decks():
    # the triple is beaten by a higher triple; the single by any higher single
    res = throw("H:Q Q Q A", ["H:K K K", "", ""], CTX3)
    assert cards.format(res.forced) == cards.format(P("H:Q Q Q", 3))
    res = throw("H:Q Q Q 9", ["H:K K K", "", ""], CTX3)  # both fail: the lowest top is led
    assert cards.format(res.forced) == cards.format(P("H:9", 3))
    res = throw("H:Q Q Q 9", ["H:K K", "", ""], CTX3)  # a pair does not beat a triple
    assert cards.format(res.forced) == cards.format(P("H:9", 3))
    assert throw("H:Q Q Q A", ["H:K K", "H:A", ""], CTX3).ok  # equal A does not beat


def test_throw_with_a_titanic_3_decks():
    lead = "H:8 8 8 7 7 7 A"
    res = throw(lead, ["H:Q Q Q J J J", "", ""], CTX3)
    assert cards.format(res.forced) == cards.format(P("H:8 8 8 7 7 7", 3))
    assert throw(lead, ["H:K K K Q Q 2", "H:9 9 9", ""], CTX3).ok  # triples, no Titanic


def test_tuple_beats_chain_in_throw_validation():
    # 4 decks (option on by default): a quad breaks a 2-pair tractor, whatever its rank
    lead = "H:3 3 4 4 A"
    res = throw(lead, ["H:6 6 6 6", "", ""], CTX4)
    assert cards.format(res.forced) == cards.format(P("H:3 3 4 4", 4))
    assert throw(lead, ["H:6 6 6 6", "", ""], CTX4, Rules(decks=4, tuple_beats_chain=False)).ok
    # a quad does not break a 3-pair tractor; a 2-triple Titanic does (same number of cards)
    lead = "H:3 3 4 4 5 5 A"
    assert throw(lead, ["H:9 9 9 9", "", ""], CTX4).ok
    res = throw(lead, ["", "H:9 9 9 8 8 8", ""], CTX4)
    assert cards.format(res.forced) == cards.format(P("H:5 5 4 4 3 3", 4))
    # the option works with 3 decks when set: Titanic vs 3-pair tractor
    cfg3 = Rules(decks=3, tuple_beats_chain=True)
    assert not throw(lead, ["", "", "H:9 9 9 8 8 8"], CTX3, cfg3).ok
    assert throw(lead, ["", "", "H:9 9 9 8 8 8"], CTX3).ok


# ------------------------------------------------------------------------------- follows §8.3

def test_quad_lead_follow_order():
    # quad > triple + single > two pairs > pair + two singles > four singles
    check_follow("H:K K K K 2", "H:5 5 5 5", ["H:K K K K"], ctx=CTX4)
    check_follow("H:K K K 9 2", "H:5 5 5 5", ["H:K K K 9", "H:K K K 2"], ctx=CTX4)
    check_follow("H:K K 9 9 2", "H:5 5 5 5", ["H:K K 9 9"], ctx=CTX4)
    check_follow("H:K K 9 3 2", "H:5 5 5 5", ["H:K K 9 3", "H:K K 9 2", "H:K K 3 2"], ctx=CTX4)


def test_quad_gives_two_pairs():
    # a 2-pair tractor led, no tractor held: two pairs, both out of one quad if need be
    check_follow("H:K K K K 9 2", "H:3 3 4 4", ["H:K K K K"], ctx=CTX4)
    check_follow("H:Q Q Q Q 9 9 2", "H:3 3 5 5", ["H:Q Q Q Q", "H:Q Q 9 9"], ctx=CTX4)


def test_carrier_lead_follow_order():
    # carrier of 2 quads: quads first, then triples, then pairs (within the 8 cards)
    lead = "H:5 5 5 5 6 6 6 6"
    check_follow("H:K K K K Q Q Q 3 2", lead, ["H:K K K K Q Q Q 3", "H:K K K K Q Q Q 2"], ctx=CTX4)
    check_follow("H:K K K Q Q Q 9 9 2", lead, ["H:K K K Q Q Q 9 9"], ctx=CTX4)


def test_triple_in_a_throw_takes_its_best_shape():
    # 3 decks: throw H:A A A K (triple + single; stands); follower without a triple must play a
    # pair for the triple and then anything
    check_follow("H:Q Q J J 3", "H:A A A K", ["H:Q Q J J", "H:Q Q J 3", "H:J J Q 3"], ctx=CTX3)
    # triple + pair thrown: a triple for the triple, then a pair from what is left
    check_follow("H:Q Q Q J J 9 9 3", "H:A A A K K", ["H:Q Q Q J J", "H:Q Q Q 9 9"], ctx=CTX3)


def test_titanic_shapes_for_two_triples_are_the_lists_of_8_3():
    names = {((3, 2),): "Titanic", ((3, 1), (3, 1)): "2 triples", ((3, 1), (2, 1)): "triple+pair",
             ((3, 1),): "triple", ((2, 2),): "tractor", ((2, 1), (2, 1)): "2 pairs",
             ((2, 1),): "pair", (): "singles"}
    got = {o: [names[s] for lv in shape_levels(3, 2, o) for s in lv] for o in "ABC"}
    assert got["A"] == ["Titanic", "2 triples", "triple+pair", "triple", "tractor", "2 pairs",
                        "pair", "singles"]
    assert got["B"] == ["Titanic", "2 triples", "tractor", "triple+pair", "triple", "2 pairs",
                        "pair", "singles"]
    assert got["C"] == ["Titanic", "tractor", "2 triples", "triple+pair", "triple", "2 pairs",
                        "pair", "singles"]


def test_next_cards_mask_matches_enumeration_3_decks():
    # the prefix-closed mask agrees with the legal follows on every prefix (FO3-3)
    hand, lead = P("H:Q Q J J 3, S:4", 3), P("H:7 7 7", 3)
    cfg = Rules(decks=3)
    legal = legal_follows(hand, lead, CTX3, cfg)
    sel = np.zeros(54, dtype=np.uint8)
    mask = legal_next_cards(hand, lead, sel, CTX3, cfg)
    assert set(np.flatnonzero(mask)) == {int(c) for x in legal for c in np.flatnonzero(x)}


# ------------------------------------------------------------------------- ruffs, winners §9

def test_triple_ruff_and_overruff():
    # H:7 7 7 / void S:3 3 3 (ruff) / void S:5 5 5 (overruff) / void S:A A 2 (discard)
    assert win("H:7 7 7", "S:3 3 3", "S:5 5 5", "S:A A 2", ctx=CTX3) == 2
    assert win("H:7 7 7", "S:5 5 5", "S:3 3 3", "S:A A A", ctx=CTX3) == 3


def test_titanic_ruff_and_overruff():
    # 9 and J are adjacent at level 10: S:9 9 9 J J J is a Titanic
    lead = "H:7 7 7 8 8 8"
    assert win(lead, "S:3 3 3 4 4 4", "S:9 9 9 J J J", "S:A A A K K 2", ctx=CTX3) == 2
    assert win(lead, "S:3 3 3 4 4 4", "S:A A A K K K", "S:9 9 9 J J J", ctx=CTX3) == 2
    assert win(lead, "S:3 3 3 5 5 5", "D:2 3 4 5 6 7", "C:2 3 4 5 6 7", ctx=CTX3) == 0


def test_tuple_beats_chain_ruffs():
    # 4 decks: a trump quad ruffs a 2-pair tractor and beats a tractor ruff; a ruff still beats
    # a quad in the led suit (reading of §9.3)
    assert win("H:3 3 4 4", "S:2 2 3 3", "S:5 5 5 5", "D:2 3 4 6", ctx=CTX4) == 2
    assert win("H:3 3 4 4", "H:7 7 7 7", "S:2 2 3 3", "D:2 3 4 6", ctx=CTX4) == 2
    assert win("H:3 3 4 4", "S:5 5 5 5", "S:A A K K", "H:9 9 9 9", ctx=CTX4) == 1
    assert win("H:3 3 4 4", "H:7 7 7 7", "H:9 9 9 9", "H:A A K K", ctx=CTX4) == 2
    assert is_ruff(P("S:5 5 5 5", 4), P("H:3 3 4 4", 4), CTX4, Rules(decks=4))
    assert not is_ruff(P("S:5 5 5 5", 4), P("H:3 3 4 4", 4), CTX4,
                       Rules(decks=4, tuple_beats_chain=False))
    # carrier vs Titanic of 4 positions: same 12 cards? (4,3) vs (3,4): consecutive quads win
    lead = "H:2 2 2 3 3 3 4 4 4 5 5 5"
    assert win(lead, "H:6 6 6 6 7 7 7 7 8 8 8 8", "H:K K K Q Q Q J J J 9 9 9",
               "D:2 3 4 5 6 7 8 9 J Q K A", ctx=CTX4) == 1


# ------------------------------------------------------------------- declarations, sizes §4, §10

def test_declarations_up_to_four_of_a_kind():
    cfg = Rules(decks=4)
    state = DeclareState(None, None)
    for decl in (Declaration(0, 0, 1, 3), Declaration(1, 2, -1, 3), Declaration(2, 0, 2, 4),
                 Declaration(3, 1, -1, 4), Declaration(0, 2, -1, 4)):
        assert is_accepted(state, decl, cfg), decl
        state = accept(state, decl, cfg)
    assert not is_accepted(state, Declaration(1, 0, 3, 4), cfg)  # nothing beats 4 BJ
    hand = P("C:10 10 10 10, Jk:LJ LJ LJ", 4)
    assert len(legal_declarations(hand, 0, DeclareState(None, None), "10", cfg)) == 4 + 2  # C×1-4, LJ×2-3


@pytest.mark.parametrize("decks,kitty,step,hand", [(1, 6, 20, 12), (2, 8, 40, 25), (3, 6, 60, 39),
                                                   (4, 8, 80, 52)])
def test_deck_sizes(decks, kitty, step, hand):
    r = Rules(decks=decks)
    assert (r.kitty_size, r.level_step, r.hand_size, r.total_points) == (kitty, step, hand, 100 * decks)
    assert r.tuple_beats_chain is (decks == 4)


@pytest.mark.parametrize("option,value", [("throw_decomposition", "LEADER_DECLARED")])
def test_refused_options_say_why(option, value):
    from shengji_env.core import Engine
    from shengji_env.rules import Game
    from shengji_env.rules.config import REFUSED

    cfg = Rules(**{option: value})  # a valid §11 option ...
    assert REFUSED[option][0] == value
    for make in (lambda: Game(cfg, 0), lambda: Engine(cfg, 2, 0)):
        with pytest.raises(NotImplementedError, match=f"{option}='{value}' is not playable: "):
            make()  # ... that the game refuses, with the reason
