"""Declarations (RULES.md §4.3-4.6) and scoring (§10): §13.4, §13.9-13.11 examples and options."""

from __future__ import annotations

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.cards import parse
from shengji_env.rules.config import Rules
from shengji_env.rules.declare import (
    BJ,
    DECLARE_BASE,
    LEVEL,
    LJ,
    Declaration,
    DeclareState,
    accept,
    action_declaration,
    declaration_actions,
    declaration_from_cards,
    final_trump,
    first_hand_dealer,
    flip_kitty_trump,
    is_accepted,
    legal_declarations,
    num_declare_actions,
)
from shengji_env.rules.order import NT, TrumpContext
from shengji_env.rules.scoring import (
    LevelOutcome,
    apply_level_change,
    hand_rewards,
    kitty_bonus,
    kitty_multiplier,
    level_outcome,
    next_dealer,
    resolve_friend,
    throw_penalty,
)

S, H, C, D = range(4)
R = cards.rank_index  # "10" → 8
NS, EW = 0, 1  # teams {0, 2} and {1, 3}


def frozen(counts):
    """A read-only copy: any write by the code under test raises."""
    a = np.array(counts)
    a.flags.writeable = False
    return a


def lvl(seat, suit, k=1):
    return Declaration(seat, LEVEL, suit, k)


def jok(seat, kind, k=2):
    return Declaration(seat, kind, -1, k)


def run(decls, cfg=None):
    """Offer declarations in order; return the final state and the accept/reject flags."""
    cfg = Rules() if cfg is None else cfg
    state, flags = DeclareState(), []
    for d in decls:
        ok = is_accepted(state, d, cfg)
        flags.append(ok)
        if ok:
            state = accept(state, d, cfg)
    return state, flags


# ---------------------------------------------------------------- §13.4 declarations

def test_DCL_1():
    seq = [lvl(1, C), lvl(3, D), lvl(2, H, 2), lvl(0, S, 2), jok(3, LJ), jok(0, BJ)]
    state, flags = run(seq)
    assert flags == [True, False, True, False, True, True]
    assert final_trump(state) == NT
    assert state.first_declarer == 1
    assert first_hand_dealer(state, Rules()) == 1
    assert first_hand_dealer(state, Rules(first_hand_dealer="FINAL_DECLARER")) == 0
    # after step 1 the trump is clubs, after step 3 hearts
    assert final_trump(run(seq[:1])[0]) == C and final_trump(run(seq[:3])[0]) == H
    # nothing beats a BJ pair with 2 decks
    full = cards.full_deck(2)
    assert all(legal_declarations(full, p, state, "2", Rules()) == [] for p in range(4))


def test_DCL_2():
    state, flags = run([lvl(0, S, 1), lvl(0, S, 2), lvl(1, H, 2), jok(1, LJ)])
    assert flags == [True, True, False, True]
    reinforced, _ = run([lvl(0, S, 1), lvl(0, S, 2)])
    assert reinforced.current == lvl(0, S, 2) and reinforced.current.strength == (2, LEVEL)
    assert state.current == jok(1, LJ) and state.first_declarer == 0
    assert not is_accepted(run([lvl(0, S, 1)])[0], lvl(0, S, 2), Rules(allow_reinforce=False))


def test_DCL_3():
    _, flags = run([lvl(0, S), lvl(1, H, 2), lvl(0, S, 2)])
    assert flags == [True, True, False]


def test_DCL_4():
    state, flags = run([lvl(0, S), lvl(2, D, 2)])
    assert flags == [True, True] and final_trump(state) == D


def test_DCL_5():
    _, flags = run([lvl(0, S), lvl(0, H, 2)])
    assert flags == [True, False]
    state, flags = run([lvl(0, S), lvl(0, H, 2)], Rules(allow_self_overturn=True))
    assert flags == [True, True] and final_trump(state) == H
    # even when allowed, a self-overturn must be strictly stronger
    _, flags = run([lvl(0, S), lvl(0, H, 1)], Rules(allow_self_overturn=True))
    assert flags == [True, False]


def test_DCL_6():
    assert declaration_from_cards(0, parse("Jk:LJ"), "2") is None
    assert declaration_from_cards(0, parse("Jk:BJ LJ"), "2") is None
    assert declaration_from_cards(0, parse("Jk:LJ LJ"), "2") == jok(0, LJ)
    assert declaration_from_cards(0, parse("S:2 2"), "2") == lvl(0, S, 2)
    assert declaration_from_cards(0, parse("S:2, H:2"), "2") is None
    assert declaration_from_cards(0, parse("S:3"), "2") is None
    with pytest.raises(ValueError, match="single joker"):
        Declaration(0, LJ, -1, 1)
    # a hand with one LJ and one BJ has no joker declaration
    hand = parse("Jk:BJ LJ, S:3")
    assert legal_declarations(hand, 0, DeclareState(), "2", Rules()) == []


def test_DCL_7():
    cfg = Rules(decks=3)
    ladder = [lvl(0, S, 1), lvl(1, H, 2), jok(2, LJ, 2), jok(3, BJ, 2), lvl(0, C, 3),
              jok(1, LJ, 3), jok(2, BJ, 3)]
    strengths = [d.strength for d in ladder]
    assert strengths == sorted(strengths) and len(set(strengths)) == len(strengths)
    state, flags = run(ladder, cfg)
    assert all(flags) and final_trump(state) == NT
    assert final_trump(run(ladder[:5], cfg)[0]) == C  # trump back to clubs
    assert ladder[4].cards("10")[cards.card_id("C", "10")] == 3


def test_DCL_8():
    assert final_trump(DeclareState()) is None  # caller applies NO_TRUMP: NT, rotation dealer
    cfg = Rules(no_declaration_fallback="FLIP_KITTY")
    kitty = [cards.card_id("D", "7"), cards.LJ, cards.card_id("S", "3")]
    assert flip_kitty_trump(kitty, cfg) == D
    assert flip_kitty_trump([cards.LJ, cards.card_id("S", "3")], cfg) == NT
    nxt = cfg.replace(flip_joker_result="NEXT_CARD")
    assert flip_kitty_trump([cards.LJ, cards.BJ, cards.card_id("C", "2")], nxt) == C
    assert flip_kitty_trump([cards.LJ, cards.BJ], nxt) == NT


def test_DCL_9():
    state = DeclareState()
    assert first_hand_dealer(state, Rules()) is None  # caller: first drawer deals, NT
    assert final_trump(state) is None


def test_DCL_10():
    cfg = Rules(allow_no_trump_declaration=False)
    assert not is_accepted(DeclareState(), jok(0, LJ), cfg)
    with pytest.raises(ValueError, match="allow_no_trump_declaration"):
        accept(DeclareState(), jok(0, LJ), cfg)
    state, _ = run([lvl(0, S, 2)], cfg)
    full = cards.full_deck(2)
    assert all(legal_declarations(full, p, state, "2", cfg) == [] for p in range(4))
    assert num_declare_actions(cfg) == 10  # action space unchanged by the flag


def test_DCL_11():
    cfg = Rules(decks=1)
    state, flags = run([lvl(2, H)], cfg)
    assert flags == [True]
    assert declaration_actions(cfg) == [(LEVEL, s, 1) for s in range(4)]
    full = cards.full_deck(1)
    assert all(legal_declarations(full, p, state, "2", cfg) == [] for p in range(4))
    assert not is_accepted(state, lvl(1, S, 2), cfg)  # only one copy exists


# ---------------------------------------------------------------- declaration helpers

def test_action_table_two_decks():
    cfg = Rules()
    table = declaration_actions(cfg)
    assert len(table) == num_declare_actions(cfg) == 10
    assert table[0] == (LEVEL, S, 1) and table[1] == (LEVEL, S, 2) and table[7] == (LEVEL, D, 2)
    assert table[8] == (LJ, -1, 2) and table[9] == (BJ, -1, 2)
    assert DECLARE_BASE + 8 == 64 and action_declaration(65, 3, cfg) == jok(3, BJ)
    assert action_declaration(56 + 1 * 2 + 1, 0, cfg) == lvl(0, H, 2)
    with pytest.raises(ValueError, match="not a DECLARE action"):
        action_declaration(66, 0, cfg)
    four = declaration_actions(Rules(decks=4, min_jokers_for_nt=3))
    assert four[16:] == [(LJ, -1, 3), (BJ, -1, 3), (LJ, -1, 4), (BJ, -1, 4)]


def test_legal_declarations_reads_hand_only():
    cfg = Rules()
    hand = frozen(parse("S:2 2, H:2, Jk:LJ LJ, C:A"))
    assert legal_declarations(hand, 0, DeclareState(), "2", cfg) == [0, 1, 2, 8]
    # after seat 1 shows H:2 2: only the LJ pair beats it
    state, _ = run([lvl(1, H, 2)])
    assert legal_declarations(hand, 0, state, "2", cfg) == [8]
    # reinforcement: seat 0 showed S:2 and may add the second
    state, _ = run([lvl(0, S, 1)])
    assert legal_declarations(hand, 0, state, "2", cfg) == [1]  # no self-overturn to NT
    assert legal_declarations(hand, 0, state, "2", Rules(allow_self_overturn=True)) == [1, 8]


def test_declaration_cards_and_trump():
    assert cards.format(lvl(0, H, 2).cards("10")) == "H:10 10"
    assert cards.format(jok(0, BJ, 2).cards(0)) == "Jk:BJ BJ"
    assert lvl(0, D).trump == D and jok(0, LJ).trump == NT
    with pytest.raises(ValueError, match="suit 0-3"):
        Declaration(0, LEVEL, -1, 1)


# ---------------------------------------------------------------- §13.9 kitty multiplier

KITTY = "D:K, C:5, H:10, S:3, C:4, D:6, H:7, C:8"  # 25 points
OPTIONS = ("FLAT2", "LINEAR", "POWER", "TIERED")


def multipliers(lead, level="10", decks=2):
    ctx = TrumpContext(level=level, trump="S", decks=decks)
    lead = frozen(parse(lead, decks))
    return tuple(kitty_multiplier(lead, ctx, Rules(decks=decks, kitty_multiplier=o))
                 for o in OPTIONS)


def bonus(lead, level="10", decks=2, won=True):
    ctx = TrumpContext(level=level, trump="S", decks=decks)
    kitty = frozen(parse(KITTY, decks))
    assert cards.points(kitty) == 25
    return kitty_bonus(kitty, frozen(parse(lead, decks)), ctx, Rules(decks=decks), won)


def test_KT_1():
    assert multipliers("H:A") == (2, 2, 2, 2) and bonus("H:A") == 50


def test_KT_2():
    assert multipliers("H:Q Q") == (2, 4, 4, 4) and bonus("H:Q Q") == 100
    ruff = Rules(kitty_multiplier_basis="WINNING_PLAY")  # caller passes the ruff S:3 3
    assert kitty_multiplier(parse("S:3 3"), TrumpContext("10", "S"), ruff) == 4


def test_KT_3():
    assert multipliers("H:3 3 4 4") == (2, 8, 16, 8) and bonus("H:3 3 4 4") == 200


def test_KT_4():
    assert multipliers("H:3 3 4 4 5 5") == (2, 12, 64, 16) and bonus("H:3 3 4 4 5 5") == 400


def test_KT_5():
    lead = "H:A K Q J 10 9 8 7 7"
    assert multipliers(lead, level="2") == (2, 4, 4, 4) and bonus(lead, level="2") == 100


def test_KT_6():
    assert multipliers("H:A K Q J", level="2") == (2, 2, 2, 2)
    assert bonus("H:A K Q J", level="2") == 50


def test_KT_7():
    assert multipliers("H:A A J J") == (2, 4, 4, 4) and bonus("H:A A J J") == 100


def test_KT_8():
    assert multipliers("H:5 5 5", decks=3) == (2, 6, 8, 6) and bonus("H:5 5 5", decks=3) == 150


def test_KT_9():
    lead = "H:4 4 4 5 5 5"
    assert multipliers(lead, decks=3) == (2, 12, 64, 18) and bonus(lead, decks=3) == 450


def test_KT_10():
    assert bonus("H:3 3 4 4 5 5", won=False) == 0


def test_kitty_basis_lead_vs_winning_play():
    # §10.2: singles led, ruffed with S:9 7 7 → LEAD ×2, WINNING_PLAY ×4
    ctx = TrumpContext("10", "S")
    assert kitty_multiplier(parse("H:5 6 7"), ctx, Rules()) == 2
    assert kitty_multiplier(parse("S:9 7 7"), ctx, Rules(kitty_multiplier_basis="WINNING_PLAY")) == 4


def test_tiered_literal_vs_max():
    ctx = TrumpContext("10", "S", decks=3)
    lead = frozen(parse("H:A A A 5 5 4 4", 3))  # triple + 2-pair tractor
    assert kitty_multiplier(lead, ctx, Rules(decks=3)) == 8
    assert kitty_multiplier(lead, ctx, Rules(decks=3, tiered_precedence="LITERAL")) == 6
    # 4 decks, literal order (§10.2): consecutive quads, Titanic, quad, triple, tractor, pair
    ctx4 = TrumpContext("10", "S", decks=4)
    quad_titanic = parse("H:A A A A 5 5 5 4 4 4", 4)  # quad + Titanic: the Titanic comes first
    assert kitty_multiplier(quad_titanic, ctx4, Rules(decks=4)) == 18
    assert kitty_multiplier(quad_titanic, ctx4, Rules(decks=4, tiered_precedence="LITERAL")) == 18
    titanic_tractor = parse("H:A A A K K K 6 6 5 5 4 4 3 3", 4)  # Titanic + 4-pair tractor
    assert kitty_multiplier(titanic_tractor, ctx4, Rules(decks=4)) == 32
    assert kitty_multiplier(titanic_tractor, ctx4, Rules(decks=4, tiered_precedence="LITERAL")) == 18
    quad_tractor = parse("H:A A A A 6 6 5 5 4 4", 4)  # quad + 3-pair tractor: 8 vs 16
    assert kitty_multiplier(quad_tractor, ctx4, Rules(decks=4)) == 16
    assert kitty_multiplier(quad_tractor, ctx4, Rules(decks=4, tiered_precedence="LITERAL")) == 8
    carrier = parse("H:A A A A K K K K Q Q Q Q J J J J", 4)  # 4 consecutive quads: 2·4^4
    for option, m in (("FLAT2", 2), ("LINEAR", 32), ("POWER", 2 ** 16), ("TIERED", 512)):
        assert kitty_multiplier(carrier, ctx4, Rules(decks=4, kitty_multiplier=option)) == m
    with pytest.raises(ValueError, match="empty"):
        kitty_multiplier(cards.empty(), ctx, Rules(decks=3))


# ---------------------------------------------------------------- §13.10 level changes

def test_LV_1():
    out = level_outcome(30, Rules())
    assert out == LevelOutcome(2, False, 0)
    assert apply_level_change((R("2"), R("2")), NS, out, Rules()) == ((R("4"), R("2")), None)
    assert next_dealer(0, out, Rules()) == 2


def test_LV_2():
    out = level_outcome(130, Rules())
    assert out == LevelOutcome(0, True, 1)
    assert apply_level_change((R("4"), R("2")), NS, out, Rules()) == ((R("4"), R("3")), None)
    assert next_dealer(2, out, Rules()) == 3  # next L = EW's level 3


def test_LV_3():
    out = level_outcome(0, Rules())
    assert out == LevelOutcome(3, False, 0)
    assert apply_level_change((R("2"), R("3")), EW, out, Rules()) == ((R("2"), R("6")), None)
    assert next_dealer(1, out, Rules()) == 3


def test_LV_4():
    out = level_outcome(80, Rules())
    assert out == LevelOutcome(0, True, 0)
    assert apply_level_change((R("5"), R("7")), EW, out, Rules()) == ((R("5"), R("7")), None)
    assert next_dealer(3, out, Rules()) == 0


def test_LV_5():
    got = [level_outcome(p, Rules()) for p in (115, 120, 155, 160, 195, 200, 280)]
    assert all(o.attackers_take_over and o.dealer_side_gain == 0 for o in got)
    assert [o.attackers_gain for o in got] == [0, 1, 1, 2, 2, 3, 5]


def test_LV_6():
    got = [level_outcome(p, Rules()) for p in (40, 75, 35, 5)]
    assert not any(o.attackers_take_over for o in got)
    assert [o.dealer_side_gain for o in got] == [1, 1, 2, 2]


def test_LV_7():
    ctx, kitty = TrumpContext("2", "S"), parse("D:10, H:5, C:5, S:3")
    p = 65 + kitty_bonus(kitty, parse("H:9"), ctx, Rules(), attackers_won_last_trick=False)
    assert p == 65 and level_outcome(p, Rules()) == LevelOutcome(1, False, 0)


def test_LV_8():
    ctx, kitty = TrumpContext("2", "S"), parse("D:10, C:5, S:3, H:4")
    p = 60 + kitty_bonus(kitty, parse("H:9 9"), ctx, Rules())
    assert p == 120 and level_outcome(p, Rules()) == LevelOutcome(0, True, 1)


def test_LV_9():
    out = level_outcome(20, Rules())
    assert apply_level_change((R("K"), R("5")), NS, out, Rules()) == ((R("A"), R("5")), NS)
    defend = Rules(win_condition="MUST_DEFEND_A")
    assert apply_level_change((R("K"), R("5")), NS, out, defend) == ((R("A"), R("5")), None)
    assert next_dealer(0, out, defend) == 2
    # next hand: NS deals at A; holding wins, a take-over does not
    assert apply_level_change((R("A"), R("5")), NS, level_outcome(75, defend), defend)[1] == NS
    assert apply_level_change((R("A"), R("5")), NS, level_outcome(80, defend), defend) == \
        ((R("A"), R("5")), None)


def test_LV_10():
    out = level_outcome(200, Rules())
    assert out == LevelOutcome(0, True, 3)
    assert apply_level_change((R("9"), R("Q")), NS, out, Rules()) == ((R("9"), R("A")), EW)
    defend = Rules(win_condition="MUST_DEFEND_A")
    assert apply_level_change((R("9"), R("Q")), NS, out, defend) == ((R("9"), R("A")), None)
    assert next_dealer(0, out, defend) == 1  # EW become the dealer side


def test_LV_11():
    cfg = Rules(decks=1)
    got = [level_outcome(p, cfg) for p in (0, 15, 20, 40, 60, 80)]
    assert got == [LevelOutcome(3, False, 0), LevelOutcome(2, False, 0), LevelOutcome(1, False, 0),
                   LevelOutcome(0, True, 0), LevelOutcome(0, True, 1), LevelOutcome(0, True, 2)]


def test_LV_12():
    cfg = Rules(decks=3)
    got = [level_outcome(p, cfg) for p in (0, 55, 60, 115, 120, 180, 240)]
    assert [o.dealer_side_gain for o in got[:4]] == [3, 2, 1, 1]
    assert [(o.attackers_take_over, o.attackers_gain) for o in got[4:]] == \
        [(True, 0), (True, 1), (True, 2)]
    assert not any(o.attackers_take_over for o in got[:4])


def test_LV_13():
    cfg = Rules(decks=4)
    got = [level_outcome(p, cfg) for p in (0, 75, 80, 155, 160, 240)]
    assert [o.dealer_side_gain for o in got[:4]] == [3, 2, 1, 1]
    assert [(o.attackers_take_over, o.attackers_gain) for o in got[4:]] == [(True, 0), (True, 1)]
    assert not any(o.attackers_take_over for o in got[:4])


def test_LV_14():
    cfg = Rules(throw_penalty="FIXED_10")
    p = 75 + throw_penalty(thrower_is_attacker=False, cards_returned=2, cfg=cfg)
    assert p == 85 and level_outcome(p, cfg) == LevelOutcome(0, True, 0)


def test_LV_15():
    cfg = Rules(throw_penalty="FIXED_10")
    p = 5 + throw_penalty(thrower_is_attacker=True, cards_returned=1, cfg=cfg)
    assert p == -5 and level_outcome(p, cfg) == LevelOutcome(3, False, 0)


# ---------------------------------------------------------------- level options

def test_throw_penalty_options():
    assert throw_penalty(True, 3, Rules()) == 0
    assert throw_penalty(False, 3, Rules(throw_penalty="FIXED_10")) == 10
    assert throw_penalty(True, 3, Rules(throw_penalty="PER_CARD_10")) == -30
    assert throw_penalty(False, 2, Rules(throw_penalty="PER_CARD_10")) == 20
    with pytest.raises(ValueError, match="cards_returned"):
        throw_penalty(True, 0, Rules())


def test_pass_a_on_take_over_plus_zero_does_not_win():
    out = level_outcome(80, Rules())
    assert apply_level_change((R("5"), R("A")), NS, out, Rules()) == ((R("5"), R("A")), None)
    out = level_outcome(120, Rules())
    assert apply_level_change((R("5"), R("A")), NS, out, Rules()) == ((R("5"), R("A")), EW)


def test_mandatory_levels():
    cfg = Rules(mandatory_levels={"5", "10", "K", "A"})
    three = level_outcome(0, cfg)
    assert apply_level_change((R("3"), R("2")), NS, three, cfg) == ((R("5"), R("2")), None)
    # holding at a listed level passes it (and lands exactly on the next one at most)
    assert apply_level_change((R("5"), R("2")), NS, three, cfg) == ((R("8"), R("2")), None)
    assert apply_level_change((R("9"), R("2")), NS, three, cfg) == ((R("10"), R("2")), None)
    # attackers sitting on a listed level keep it when taking over (must play it)
    up2 = level_outcome(160, cfg)
    assert apply_level_change((R("4"), R("5")), NS, up2, cfg) == ((R("4"), R("5")), None)
    # A listed: no jump past A, a win needs a hold at A
    assert apply_level_change((R("Q"), R("2")), NS, three, cfg) == ((R("K"), R("2")), None)
    assert apply_level_change((R("K"), R("2")), NS, three, cfg) == ((R("A"), R("2")), None)
    assert apply_level_change((R("A"), R("2")), NS, level_outcome(60, cfg), cfg)[1] == NS


def test_reset_when_dug_at_A():
    cfg = Rules(reset_when_dug_at_A=True)
    held = level_outcome(60, cfg)
    assert apply_level_change((R("A"), R("7")), NS, held, cfg, attackers_won_last_trick=True) \
        == ((R("2"), R("7")), None)
    assert apply_level_change((R("A"), R("7")), NS, held, cfg) == ((R("A"), R("7")), NS)
    took = level_outcome(120, cfg)
    assert apply_level_change((R("7"), R("A")), EW, took, cfg, attackers_won_last_trick=True) \
        == ((R("8"), R("2")), None)
    assert apply_level_change((R("A"), R("7")), NS, held, Rules(), True) == ((R("A"), R("7")), NS)


def test_apply_level_change_rejects_bad_levels():
    with pytest.raises(ValueError, match="team_levels"):
        apply_level_change((13, 0), NS, level_outcome(0, Rules()), Rules())
    with pytest.raises(ValueError, match="dealer_team"):
        apply_level_change((0, 0), 2, level_outcome(0, Rules()), Rules())


def test_dealer_rotation_options():
    held, took = level_outcome(50, Rules()), level_outcome(90, Rules())
    stay = Rules(dealer_rotation="STAY_WHILE_HOLDING")
    assert next_dealer(1, held, stay) == 1 and next_dealer(1, took, stay) == 2
    nxt = Rules(dealer_rotation="ALWAYS_NEXT")
    assert next_dealer(3, held, nxt) == 0 and next_dealer(3, took, nxt) == 0
    assert next_dealer(3, held, Rules()) == 1 and next_dealer(3, took, Rules()) == 0


# ---------------------------------------------------------------- §13.11 find-friends

def hands(**holders):
    """uint8[4, 54] with one H:A per seat listed (seat_i=n copies); read-only."""
    out = np.zeros((4, 54), dtype=np.uint8)
    for key, n in holders.items():
        out[int(key[-1]), cards.card_id("H", "A")] = n
    return frozen(out)


HA = cards.card_id("H", "A")


def test_FF_1():
    assert resolve_friend(0, HA, hands(seat0=1, seat3=1), 2) == 3


def test_FF_2():
    assert resolve_friend(0, HA, hands(seat1=1, seat2=1), 2) == 1


def test_FF_3():
    assert resolve_friend(0, HA, hands(seat0=2), 2) is None
    assert next_dealer(0, level_outcome(40, Rules()), Rules(), dealer_side={0}) == 0
    assert next_dealer(0, level_outcome(80, Rules()), Rules(), dealer_side={0}) == 1


def test_FF_4():
    assert resolve_friend(0, HA, hands(seat0=1), 2) is None  # other copy buried
    assert resolve_friend(0, HA, hands(seat2=1), 2) == 2
    assert resolve_friend(1, HA, hands(seat0=1, seat3=1), 2) == 3  # after seat 1: 2, 3, 0


def test_FF_5():
    side = frozenset({0, 1})
    assert next_dealer(0, level_outcome(75, Rules()), Rules(), dealer_side=side) == 1
    assert next_dealer(0, level_outcome(80, Rules()), Rules(), dealer_side=side) == 2
    with pytest.raises(ValueError, match="dealer_side"):
        next_dealer(0, level_outcome(80, Rules()), Rules(), dealer_side={1, 2})


def test_resolve_friend_three_decks_and_errors():
    assert resolve_friend(2, HA, hands(seat2=2, seat1=1), 3) == 1
    assert resolve_friend(2, HA, hands(seat2=3), 3) is None
    with pytest.raises(ValueError, match="only 2 decks"):
        resolve_friend(0, HA, hands(seat1=2, seat2=1), 2)


# ---------------------------------------------------------------- rewards (DESIGN.md §4)

def test_hand_rewards():
    took2 = level_outcome(170, Rules())  # take over +2
    r = hand_rewards(took2, dealer=1)
    assert r.dtype == np.float32 and r.tolist() == [3, -3, 3, -3]
    assert hand_rewards(level_outcome(0, Rules()), dealer=0).tolist() == [3, -3, 3, -3]
    assert hand_rewards(level_outcome(50, Rules()), 2, "win").tolist() == [1, -1, 1, -1]
    pts = [hand_rewards(level_outcome(p, Rules()), 0, "points", p, Rules())[1]
           for p in (-10, 0, 40, 80, 120, 160, 300)]
    assert pts == [-1, -1, -0.5, 0, 0.5, 1, 1]
    for reward in ("levels", "points", "win"):
        assert hand_rewards(took2, 3, reward, 170, Rules()).sum() == 0
    with pytest.raises(ValueError, match="needs attacker_points"):
        hand_rewards(took2, 0, "points")
    with pytest.raises(ValueError, match="reward='score'"):
        hand_rewards(took2, 0, "score")
