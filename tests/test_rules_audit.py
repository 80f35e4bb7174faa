"""Audit of RULES.md for 1, 3 and 4 decks and find-friends (§6-8, §10, §11): clauses and
combinations that the per-section example files do not reach.

Each case is written from the RULES.md text; where a position can be dealt (small hands through
a custom ``kitty_size``, ``declaration_mode="FIXED"``), the reference ``rules.Game`` and the
batched ``Engine`` play it side by side and must agree on every mask. ``L=10, T=S`` unless
stated.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_engine import check_invariants, structured_pick
from test_engine_decks import _scripted_deck

from shengji_env import cards
from shengji_env.core import Engine
from shengji_env.rules import Rules, TrumpContext, legal_follows, scoring, trick_winner, validate_throw
from shengji_env.rules.actions import END, Phase, action_layout
from shengji_env.rules.game import Game

CTX = {d: TrumpContext(level="10", trump="S", decks=d) for d in (1, 2, 3, 4)}


def P(text: str, decks: int) -> np.ndarray:
    return cards.parse(text, decks=decks)


def F(counts) -> str:
    return cards.format(counts)


# ------------------------------------------------------------------ side-by-side scenarios

class Both:
    """One scripted hand in ``Game`` and a one-game ``Engine``: seat i is dealt ``hands[i]``,
    the rest is the kitty; seat 0 deals at level 10 (trump S, ``declaration_mode="FIXED"``)
    and buries the kitty unchanged. Every step checks that both give the same legal mask."""

    def __init__(self, hands: list[str], decks: int, **options):
        size = len(cards.to_ids(P(hands[0], decks)))
        self.cfg = Rules(decks=decks, kitty_size=54 * decks - 4 * size, declaration_mode="FIXED",
                         fixed_trump="S", **options)
        deck = _scripted_deck(hands, decks)
        self.kitty = np.bincount(deck[4 * size:], minlength=54)
        self.game = Game(self.cfg, 0, deck=deck, levels=("10", "10"), dealer=0)
        self.eng = Engine(self.cfg, 1, 0, levels=("10", "10"), dealer=0)
        self.s = self.eng.reset(decks=deck[None], first_drawers=np.zeros(1, np.int64))
        assert self.game.phase == Phase.BURY
        for c in cards.to_ids(self.kitty):
            self.step(int(c))

    def step(self, action: int):
        mask = self.eng.legal_mask(self.s)[0]
        assert (self.game.legal_mask() == mask).all()
        assert mask[action], action
        self.game.step(action)
        self.s, _, _ = self.eng.step(self.s, np.array([action]))

    def play(self, text: str, end: bool = False):
        """The player to act selects ``text`` card by card (a leader then ends with END)."""
        for c in cards.to_ids(P(text, self.cfg.decks)):
            self.step(int(c))
        if end:
            self.step(END)

    def trick(self, seat: int) -> str:
        """What ``seat`` has put on the current trick, in both (they must agree)."""
        g = F(self.game.trick.get(seat, np.zeros(54, np.uint8)))
        assert F(self.s.trick[0, seat]) == g
        return g

    def finish(self):
        """Everyone plays his first legal action until the hand is over."""
        while not self.game.done:
            self.step(int(np.flatnonzero(self.game.legal_mask())[0]))
        assert self.s.done[0]
        assert self.game.attacker_points == int(self.s.attacker_points[0])
        assert self.game.kitty_bonus == int(self.s.kitty_bonus[0])
        return self.game


# ---------------------------------------------------------------- §7.3-7.4 throws, 3-4 decks

THREE_TENS = ["C:10 10 10, D:10, H:2", "S:10 10 10, H:3 4", "H:5 6 7 8 9", "D:2 3 4 5 6"]


@pytest.mark.parametrize("choice,forced", [("AUTO_LOWEST_RANK", "D:10"),
                                           ("AUTO_FEWEST_CARDS", "D:10")])
def test_failed_throw_ties_on_rank_lead_the_fewer_cards(choice, forced):
    # §7.4.3: triple C:10 10 10 and single D:10 both fail (seat 1 holds S:10 10 10); both tops
    # are the off-suit level position: AUTO_LOWEST_RANK ties → fewer cards; the single
    both = Both(THREE_TENS, 3, failed_throw_choice=choice, throw_penalty="PER_CARD_10")
    both.play("C:10 10 10, D:10", end=True)
    assert both.trick(0) == forced
    assert F(both.game.hands[0]) == F(P("C:10 10 10, H:2", 3))  # §7.4.4: the rest goes back
    # §7.4.5 PER_CARD_10: 3 cards returned by the dealer side → +30 for the attackers
    assert both.game.penalty == int(both.s.penalty[0]) == 30
    both.finish()


def test_failed_throw_next_player_chooses_between_triple_and_single():
    both = Both(THREE_TENS, 3, failed_throw_choice="NEXT_PLAYER", throw_penalty="FIXED_10")
    both.play("C:10 10 10, D:10", end=True)
    assert both.game.phase == Phase.CHOOSE and both.game.to_act == 1
    assert [F(c) for c in both.game.candidates] == ["C:10 10 10", "D:10"]  # §6.2 order
    both.step(action_layout(both.cfg).choose_base)  # seat 1 picks the triple
    assert both.trick(0) == "C:10 10 10"
    assert both.game.penalty == int(both.s.penalty[0]) == 10
    both.finish()


def test_failed_throw_leads_the_smallest_unit_of_the_failing_type():
    # §7.4.2, 3 decks: triples A, 9 and 5 thrown (not consecutive); a K K K beats 9 and 5 → the
    # smallest triple 5 5 5; a pair does not beat a triple
    lead = P("H:A A A 9 9 9 5 5 5", 3)
    res = validate_throw(lead, [P("H:K K K", 3), P("", 3), P("", 3)], CTX[3], Rules(decks=3))
    assert F(res.forced) == "H:5 5 5"
    assert validate_throw(lead, [P("H:K K Q Q", 3), P("H:K", 3), P("", 3)], CTX[3], Rules(decks=3)).ok


@pytest.mark.parametrize("decks,options,lead,holder,fails", [
    # §7.3 tuple_beats_chain: a chain component is beaten by a larger k with the same number of
    # cards, cut from a bigger structure too, whatever its rank
    (4, {}, "H:3 3 4 4 5 5 6 6 A", "H:8 8 8 8 9 9 9 9", "H:3 3 4 4 5 5 6 6"),   # carrier vs 4-pair
    (4, {}, "H:3 3 4 4 5 5 6 6 A", "H:7 7 7 7 8 8 8 8 9 9 9 9", "H:3 3 4 4 5 5 6 6"),
    (4, {}, "H:3 3 4 4 5 5 A", "H:8 8 8 8 9 9 9", "H:3 3 4 4 5 5"),  # Titanic from quad + triple
    (4, {}, "H:3 3 4 4 5 5 A", "H:9 9 9 9", None),                   # a quad: 4 cards, not 6
    (4, {"tuple_beats_chain": False}, "H:3 3 4 4 5 5 6 6 A", "H:8 8 8 8 9 9 9 9", None),
    (3, {"tuple_beats_chain": True}, "H:3 3 4 4 A", "H:9 9 9", None),  # 3 cards, not 4
    (4, {}, "H:2 2 3 3 4 4 5 5 6 6 7 7 A", "H:8 8 8 9 9 9 J J J Q Q Q", "H:2 2 3 3 4 4 5 5 6 6 7 7"),
])
def test_tuple_beats_chain_in_throw_validation(decks, options, lead, holder, fails):
    res = validate_throw(P(lead, decks), [P("", decks), P(holder, decks), P("", decks)], CTX[decks],
                         Rules(decks=decks, **options))
    assert res.ok == (fails is None)
    if fails:
        assert F(res.forced) == F(P(fails, decks))


@pytest.mark.parametrize("options,led", [({}, "H:3 3 4 4"), ({"tuple_beats_chain": False}, "H:3 3 4 4 A")])
def test_partners_quad_breaks_a_thrown_tractor_in_both(options, led):
    # §7.3: the partner counts; 4 decks, the quad is the partner's (seat 2)
    both = Both(["H:3 3 4 4 A", "D:2 3 4 5 6", "H:6 6 6 6, D:7", "C:2 3 4 5 6"], 4, **options)
    both.play("H:3 3 4 4 A", end=True)
    assert both.trick(0) == F(P(led, 4))
    both.finish()


# ----------------------------------------------------------------- §9.3 tuple_beats_chain

@pytest.mark.parametrize("plays,winner", [
    # a simple tractor led: a quad of the led suit beats it and the higher-ranked tractor
    (["H:3 3 4 4", "H:7 7 7 7", "H:A A K K", "D:2 3 4 5"], 1),
    (["H:3 3 4 4", "H:7 7 7 7", "H:9 9 9 9", "D:2 3 4 5"], 2),
    # 6-pair tractor: two ruffs, consecutive quads beat consecutive triples (unit order first)
    (["H:2 2 3 3 4 4 5 5 6 6 7 7", "S:A A A K K K Q Q Q J J J", "S:2 2 2 2 3 3 3 3 4 4 4 4",
      "D:2 3 4 5 6 7 8 9 J Q K A"], 2),
    # a throw is not a simple chain: a quad that follows it is no match
    (["H:3 3 4 4 A", "H:7 7 7 7 2", "D:2 3 4 5 6", "C:2 3 4 5 6"], 0),
    # quad ruffs of equal strength (off-suit level cards): the earlier stays; a higher one wins
    (["H:3 3 4 4", "C:10 10 10 10", "D:10 10 10 10", "S:A A K K"], 1),
    (["H:3 3 4 4", "C:10 10 10 10", "S:10 10 10 10", "S:A A K K"], 2),
    # a quad led is not a chain: a tractor cannot beat it
    (["H:3 3 3 3", "H:A A K K", "D:2 3 4 5", "C:2 3 4 5"], 0),
])
def test_tuple_beats_chain_trick_winner(plays, winner):
    assert trick_winner([P(p, 4) for p in plays], CTX[4], Rules(decks=4)) == winner


def test_quad_follow_wins_the_trick_in_both():
    both = Both(["H:3 3 4 4", "H:7 7 7 7", "H:A A K K", "D:2 3 4 5"], 4)
    both.play("H:3 3 4 4", end=True)
    both.play("H:7 7 7 7")
    both.play("H:A A K K")
    both.play("D:2")  # void in hearts: any four cards
    both.play("D:3 4 5")
    g = both.finish()
    assert g.last_trick[2] == 1  # seat 1 won: tuple_beats_chain is on with 4 decks (§10.7)


# ------------------------------------------------------------------------- §8.3 follows

def follows(hand: str, lead: str, decks: int, **options) -> list[str]:
    plays = legal_follows(P(hand, decks), P(lead, decks), CTX[decks], Rules(decks=decks, **options))
    return sorted(F(x) for x in plays)


def want(*plays: str, decks: int) -> list[str]:
    return sorted(F(P(p, decks)) for p in plays)


@pytest.mark.parametrize("decks,hand,lead,legal", [
    # a throw in 3+ decks: its units in decomposition order, each takes its best shape from what
    # is left (triple + pair thrown, no triple held: the triple takes a pair and a single, the
    # pair unit then a pair: any two pairs and one more heart)
    (3, "H:Q Q J J 9 9 3", "H:A A A K K",
     ["H:Q Q J J 9", "H:Q Q J J 3", "H:Q Q 9 9 J", "H:Q Q 9 9 3", "H:J J 9 9 Q", "H:J J 9 9 3"]),
    # two triples thrown (A and 8 are not adjacent): the first takes Q Q Q, the second its best
    # from J J 9 9 — a pair and a single; three pairs are not a legal answer
    (3, "H:Q Q Q J J 9 9", "H:A A A 8 8 8", ["H:Q Q Q J J 9", "H:Q Q Q 9 9 J"]),
    # a Titanic of three triples, order A generalised: a triple, two pairs (m − triples), and
    # those pairs forming a tractor (K K Q Q, not K K 8 8); a third pair is not required
    (3, "H:A A A K K Q Q 8 8 6", "H:3 3 3 4 4 4 5 5 5",
     ["H:A A A K K Q Q 8 8", "H:A A A K K Q Q 8 6"]),
    # 4 decks: a triple led, a quad held: the triple out of the quad
    (4, "H:K K K K 2", "H:5 5 5", ["H:K K K"]),
    # 4 decks: a triple led, pairs held: pair + single
    (4, "H:K K Q Q 2", "H:5 5 5", ["H:K K Q", "H:K K 2", "H:Q Q K", "H:Q Q 2"]),
    # 4 decks: a 3-pair tractor led, a quad and a pair held (no 3-pair tractor): three pairs
    (4, "H:K K K K Q Q 2", "H:3 3 4 4 5 5", ["H:K K K K Q Q"]),
    # carriers of two quads: quads first, then triples, then pairs
    (4, "H:A A A A Q Q Q Q 9 9", "H:3 3 3 3 4 4 4 4", ["H:A A A A Q Q Q Q"]),
    (4, "H:A A A K K K 9 9 8", "H:3 3 3 3 4 4 4 4", ["H:A A A K K K 9 9"]),
])
def test_follow_obligations_with_triples_and_quads(decks, hand, lead, legal):
    assert follows(hand, lead, decks) == want(*legal, decks=decks)


def test_titanic_order_C_tractor_and_any_two_cards():
    # §8.3 order C: Titanic > tractor + any two cards > two triples > ...
    legal = ["H:Q Q J J Q 6", "H:Q Q J J Q 5", "H:Q Q J J 6 6", "H:Q Q J J 6 5", "H:Q Q J J 5 5",
             "H:6 6 5 5 Q Q", "H:6 6 5 5 Q J", "H:6 6 5 5 J J"]
    assert follows("H:Q Q Q J J 6 6 5 5", "H:7 7 7 8 8 8", 3, titanic_follow_order="C") == \
        want(*legal, decks=3)


def test_partial_tractor_option_with_a_pair_out_of_a_triple():
    # §8.2 option with 3 decks (FO-19's shape): a 3-pair tractor led, no 3-pair tractor held;
    # the pair K K comes out of a triple; default any three of the four pairs, with
    # follow_partial_tractor the tractor K K Q Q and one more pair
    hand, lead = "H:K K K Q Q 7 7 2 2", "H:3 3 4 4 5 5"
    assert follows(hand, lead, 3) == want("H:K K Q Q 7 7", "H:K K Q Q 2 2", "H:K K 7 7 2 2",
                                          "H:Q Q 7 7 2 2", decks=3)
    assert follows(hand, lead, 3, follow_partial_tractor=True) == want(
        "H:K K Q Q 7 7", "H:K K Q Q 2 2", decks=3)


def test_throw_follow_masks_agree_in_both():
    # two triples thrown (A and Q are not adjacent), dealt: the follower's masks in the engine
    # and the game; J J J answers the first triple, so K K 9 9 (two pairs, no triple) is not a
    # legal answer and the second 9 cannot follow K K 9
    both = Both(["H:A A A Q Q Q 2", "H:K K J J J 9 9", "D:2 3 4 5 6 7 8", "C:2 3 4 5 6 7 8"], 3)
    both.play("H:A A A Q Q Q", end=True)
    assert both.trick(0) == F(P("H:A A A Q Q Q", 3))  # seat 1 holds no higher triple
    both.play("H:K K 9")
    assert not both.game.legal_mask()[cards.card_id("H", "9")]
    both.play("H:J J J")
    assert both.trick(1) == F(P("H:K K J J J 9", 3))
    both.finish()


# ------------------------------------------------------------------- §10.2 kitty multiplier

@pytest.mark.parametrize("option,quad,carrier", [("TIERED", 8, 32), ("LINEAR", 8, 16),
                                                 ("POWER", 16, 256), ("FLAT2", 2, 2)])
def test_kitty_multiplier_of_quads_and_carriers(option, quad, carrier):
    cfg = Rules(decks=4, kitty_multiplier=option)
    assert scoring.kitty_multiplier(P("H:5 5 5 5", 4), CTX[4], cfg) == quad
    assert scoring.kitty_multiplier(P("H:5 5 5 5 6 6 6 6", 4), CTX[4], cfg) == carrier


@pytest.mark.parametrize("lead,literal,maximum", [
    ("H:A A A 5 5 4 4", 6, 8),                        # triple + tractor (§10.2 notes)
    ("H:A A A K K K 6 6 5 5 4 4 3 3", 18, 32),        # Titanic + 4-pair tractor
    ("H:A A A A 6 6 6 5 5 5", 18, 18),                # quad + Titanic
    ("H:A A A A 6 6 6", 8, 8),                        # quad + triple
])
def test_tiered_literal_order_with_4_decks(lead, literal, maximum):
    for precedence, m in (("LITERAL", literal), ("MAX", maximum)):
        cfg = Rules(decks=4, tiered_precedence=precedence)
        assert scoring.kitty_multiplier(P(lead, 4), CTX[4], cfg) == m


@pytest.mark.parametrize("option,basis,m", [("TIERED", "LEAD", 8), ("POWER", "LEAD", 16),
                                            ("LINEAR", "WINNING_PLAY", 8)])
def test_attacker_ruffs_a_quad_in_the_last_trick_in_both(option, basis, m):
    # the dealer's quad is the last lead; seat 1 (an attacker, void in hearts) ruffs with a
    # trump quad and digs the kitty: points(kitty) × f(quad)
    hands = ["H:3 3 3 3", "S:4 4 4 4", "H:2 6 7 8", "D:2 3 4 6"]
    both = Both(hands, 4, kitty_multiplier=option, kitty_multiplier_basis=basis)
    both.play("H:3 3 3 3", end=True)
    g = both.finish()
    assert g.last_trick[2] == 1
    assert g.kitty_bonus == cards.points(both.kitty) * m


# ------------------------------------------------------------------------ §10.6 find-friends

@pytest.mark.parametrize("decks,hands,friend", [
    # 3+ decks [GK]: the first player after the dealer holding a copy, however many the
    # dealer holds; alone only if no other player holds one (kitty copies belong to nobody)
    (3, ["H:A, D:2 3", "D:3 4 5", "H:A, D:5 6", "H:A, D:6 7"], 2),
    (3, ["H:A A, D:2", "D:3 4 5", "D:5 6 7", "H:A, D:7 8"], 3),
    (3, ["H:A A, D:2", "D:3 4 5", "D:5 6 7", "D:7 8 9"], None),  # the third H:A is in the kitty
    (4, ["H:A A A, D:2", "H:A, D:3 4 5", "D:5 6 7 8", "D:7 8 9 J"], 1),
    (4, ["H:A A A A", "D:3 4 5 6", "D:7 8 9 J", "C:2 3 4 5"], None),
    (1, ["H:3 4", "D:3 4", "D:5 6", "H:A, D:7"], 3),
    (1, ["H:A, H:3", "D:3 4", "D:5 6", "D:7 8"], None),
])
def test_friend_resolution_in_both(decks, hands, friend):
    both = Both(hands, decks, partnership="FIND_FRIEND")
    assert both.game.phase == Phase.FRIEND
    both.step(action_layout(both.cfg).friend_base + cards.card_id("H", "A"))
    side = {0} if friend is None else {0, friend}
    assert both.game.friend == friend and set(both.game.side) == side
    assert set(np.flatnonzero(both.s.dealer_side[0]).tolist()) == side
    g = both.finish()
    # §10.4 / §10.6: the next dealer is the first seat after the dealer on the next dealer side
    # (the dealer himself when he alone held)
    take = g.outcome.attackers_take_over
    nxt = next((x for x in (1, 2, 3) if (x in side) != take), 0)
    assert g.next_dealer == int(both.s.next_dealer[0]) == nxt


def test_find_friends_level_is_the_dealers_own():
    # §10.6: levels per player; L = the dealer's own level
    cfg = Rules(partnership="FIND_FRIEND", decks=3)
    g = Game(cfg, 1, levels=("3", "5", "7", "9"), dealer=2)
    eng = Engine(cfg, 1, 1, levels=("3", "5", "7", "9"), dealer=2)
    s = eng.reset()
    assert g.level == cards.rank_index("7") == int(s.level[0])


def test_carrier_ruff_beats_a_higher_tractor_ruff_in_both():
    # §9.3 / §10.7, 4 decks: a 4-pair tractor led; seat 1 ruffs with a trump tractor, seat 2
    # with trump consecutive quads of lower rank, which beat it
    both = Both(["H:3 3 4 4 5 5 6 6", "S:A A K K Q Q J J", "S:2 2 2 2 3 3 3 3",
                 "D:2 3 4 5 6 7 8 9"], 4)
    both.play("H:3 3 4 4 5 5 6 6", end=True)
    assert both.finish().last_trick[2] == 2


def test_one_deck_throw_of_singles_in_both():
    # TH-15 dealt (1 deck, L=10 here): H:A Q thrown while seat 3 holds H:K → forced H:Q
    both = Both(["H:A Q, C:2", "D:2 3 4", "D:5 6 7", "H:K, C:3 4"], 1)
    both.play("H:A Q", end=True)
    assert both.trick(0) == "H:Q"
    both.finish()


# ------------------------------------------------------- differential: tuple-rich deals

def clumpy_deck(rng, cfg) -> np.ndarray:
    """A dealing order (first drawer 0) whose hands hold runs of neighbouring identities:
    the pack in suit blocks (ranks in order, all copies together) is cut into chunks of 1-8
    cards, each given whole to one seat with room, so triples, quads, tractors, Titanics and
    carriers are common (random deals rarely make them)."""
    ids = np.repeat(np.arange(54), cfg.decks)
    blocks = [ids[(ids >= 13 * s) & (ids < 13 * s + 13)] for s in range(4)] + [ids[ids >= 52]]
    seq = np.concatenate([blocks[i] for i in rng.permutation(5)])
    seq = np.roll(seq, int(rng.integers(seq.size))).tolist()
    seat = 0
    hands: list[list[int]] = [[], [], [], []]
    kitty: list[int] = []
    left = 0  # cards still to give to the current chunk's seat
    for c in seq:
        room = [i for i in range(4) if len(hands[i]) < cfg.hand_size]
        if not room:
            kitty.append(c)
            continue
        if left == 0 or seat not in room:
            seat, left = int(rng.choice(room)), int(rng.integers(1, 9))
        hands[seat].append(c)
        left -= 1
    for h in hands:
        rng.shuffle(h)
    order = [hands[j % 4][j // 4] for j in range(4 * cfg.hand_size)]
    return np.array(order + kitty, dtype=np.int64)


@pytest.mark.parametrize("decks,options", [
    (3, {"partnership": "FIND_FRIEND", "tuple_beats_chain": True, "throw_penalty": "PER_CARD_10"}),
    (4, {"titanic_follow_order": "C", "failed_throw_choice": "NEXT_PLAYER"}),
    (4, {"partnership": "FIND_FRIEND", "kitty_multiplier": "LINEAR", "tiered_precedence": "LITERAL",
         "follow_partial_tractor": True}),
    (1, {"partnership": "FIND_FRIEND", "kitty_point_cards_allowed": False}),
])
def test_engine_agrees_on_tuple_rich_deals(decks, options):
    """Engine and Game on dealt hands full of tuples and chains (``clumpy_deck``) at a random
    level, leaders building tuples and throws: same masks, rewards, scores and logs."""
    cfg = Rules(decks=decks, **options)
    n, rng = 6, np.random.default_rng(decks)
    deals = np.stack([clumpy_deck(rng, cfg) for _ in range(n)])
    levels = ("7",) * (4 if cfg.partnership == "FIND_FRIEND" else 2)
    eng = Engine(cfg, n, 0, levels=levels)
    s = eng.reset(decks=deals, first_drawers=np.zeros(n, np.int64))
    games = [Game(cfg, i, deck=deals[i], levels=levels) for i in range(n)]
    while not s.done.all():
        check_invariants(eng, s)
        mask = eng.legal_mask(s)
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            if g.done:
                continue
            assert g.to_act == int(s.to_act[i]) and (g.legal_mask() == mask[i]).all()
            seat = int(s.to_act[i])
            leading = s.phase[i] == Phase.PLAY and s.lead_n[i] == 0
            actions[i] = structured_pick(rng, mask[i], s.hands[i, seat], s.selection[i], leading)
        s, rewards, _ = eng.step(s, actions)
        for i, g in enumerate(games):
            if not g.done:
                assert np.array_equal(g.step(int(actions[i])), rewards[i])
    for i, g in enumerate(games):
        assert (g.attacker_points, g.kitty_bonus, g.next_dealer) == (
            int(s.attacker_points[i]), int(s.kitty_bonus[i]), int(s.next_dealer[i]))
        assert g.log == eng.game_log(s, i)
