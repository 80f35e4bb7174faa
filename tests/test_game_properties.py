"""Property tests of the reference ``Game`` (rules/game.py) under seeded random play.

Every decision of every hand is checked (DESIGN.md §7): the mask is non-empty and only offers
cards the acting seat still holds; every card identity is conserved; each seat plays out its
whole hand; the points of all cards add up to 100 per deck; the attackers' score, kitty bonus,
throw penalties, level outcome, rewards and next dealer agree with an independent recount.
The checks are option-aware, so the same harness runs every rule variant below.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.rules import NT, Rules, decompose, scoring, trick_winner
from shengji_env.rules import declare as dec
from shengji_env.rules.actions import DECLARE_BASE, END, PASS, Phase
from shengji_env.rules.game import Game

ACE = 12


# ----------------------------------------------------------------------------------- policies

def random_policy(g: Game, mask: np.ndarray, rng: np.random.Generator) -> int:
    """Uniform over the legal actions."""
    return int(rng.choice(np.flatnonzero(mask)))


def passing_policy(g, mask, rng):
    """Never declares (exercises the no-declaration fallbacks); otherwise random."""
    return PASS if g.phase == Phase.DECLARE else random_policy(g, mask, rng)


def pass_first_deal_policy(g, mask, rng):
    """Passes until one redeal has happened (for REDEAL: always passing would never end)."""
    if g.phase == Phase.DECLARE and (-1, -1) not in g.log:
        return PASS
    return random_policy(g, mask, rng)


# ------------------------------------------------------------------------------- the harness

@dataclass
class HandTrace:
    """What the harness saw of one hand, for the end-of-hand checks."""

    levels: tuple
    first_hand: bool
    first_drawer: int
    declarations: list = field(default_factory=list)  # Declaration objects, in order
    named: int | None = None  # trump named in phase NAME
    dealer: int | None = None
    trump: int | None = None
    picked_up: np.ndarray | None = None  # the kitty as dealt (deck tail)
    flip_cards: list | None = None
    dealer_plain_cards: int = 0  # non-point cards the dealer held when burying
    tricks: list = field(default_factory=list)  # (leader, plays, winner)
    penalty: int = 0  # recomputed from the failed throws seen
    failed_throws: int = 0
    rewards: np.ndarray = field(default_factory=lambda: np.zeros(4))


@dataclass
class Trace:
    hands: list = field(default_factory=list)
    rewards: np.ndarray = field(default_factory=lambda: np.zeros(4))
    steps: int = 0


def check_step(g: Game):
    """Invariants of the state in front of a decision."""
    cfg, seat = g.cfg, g.to_act
    assert seat in (0, 1, 2, 3)
    mask = g.legal_mask()
    assert mask.dtype == bool and mask.shape == (g.layout.size,)
    assert mask.any(), f"empty mask in phase {g.phase.name}"
    assert g.legal_actions() == np.flatnonzero(mask).tolist()
    owner = g.leader if g.phase == Phase.CHOOSE else seat  # CHOOSE: the attempted throw
    free = g.hands[owner].astype(np.int64) - g.selection
    assert (free >= 0).all(), "selection holds a card the seat does not have"
    assert (free[mask[:54]] > 0).all(), "mask offers a card the acting seat does not hold"
    non_card = np.flatnonzero(mask[54:]) + 54
    if g.phase == Phase.DECLARE:
        assert not mask[:54].any() and mask[PASS] and not mask[END]
        # DESIGN §4: a seat is asked only when some declaration is legal for it
        assert (non_card >= DECLARE_BASE).any()
        assert (non_card < DECLARE_BASE + g.layout.num_declare).all()
    elif g.phase == Phase.NAME:
        assert non_card.min() >= g.layout.name_base and not mask[:54].any()
    elif g.phase == Phase.CHOOSE:
        assert non_card.min() >= g.layout.choose_base and not mask[:54].any()
    elif g.phase == Phase.BURY:
        assert non_card.size == 0
    else:  # PLAY
        assert set(non_card.tolist()) <= {END}
        assert mask[END] == (seat == g.leader and bool(g.selection.any()))
        for s, suit in zip(*np.nonzero(g.voids)):  # a seat shown void stays void
            assert not g.hands[s][g.ctx.effective_suits == suit].any()
    # card conservation: every identity exactly `decks` times
    total = (g.hands.astype(np.int64).sum(0) + g.kitty + g.played.sum(0, dtype=np.int64)
             + sum((p.astype(np.int64) for p in g.trick.values()), np.zeros(54, np.int64)))
    if g.phase == Phase.DECLARE and not g.kitty.any():
        total += cards.from_ids(g.deck[g.dealt:], cfg.decks)  # not dealt yet
    elif g.phase in (Phase.DECLARE, Phase.NAME):
        assert g.dealt == 4 * cfg.hand_size
        assert np.array_equal(g.kitty, cards.from_ids(g.deck[g.dealt:], cfg.decks))
    assert (total == cfg.decks).all(), f"cards not conserved in phase {g.phase.name}"
    return mask


def expected_penalty(cfg, thrower_on_dealer_side: bool, returned: int) -> int:
    amount = {"NONE": 0, "FIXED_10": 10, "PER_CARD_10": 10 * returned}[cfg.throw_penalty]
    return amount if thrower_on_dealer_side else -amount


def play(g: Game, rng, policy=random_policy, max_hands: int | None = None) -> Trace:
    """Play ``g`` to the end (or ``max_hands`` hands of a match), checking every step."""
    cfg, trace = g.cfg, Trace()
    hand = HandTrace(tuple(g.levels), g.first_hand, g.first_drawer)
    pending_throw = None  # (thrower, attempted, penalty delta) while phase CHOOSE
    while not g.done and (max_hands is None or g.hands_played < max_hands):
        mask = check_step(g)
        seat, phase, selection = g.to_act, g.phase, g.selection.copy()
        pre_penalty, pre_hands, pre_tricks = g.penalty, g.hands_played, g.tricks_done
        pre_trick = {s: p.copy() for s, p in g.trick.items()}
        pre_leader, pre_ctx, pre_played = g.leader, g.ctx, g.played.copy()
        pre_kitty, pre_captured = g.kitty.copy(), g.captured
        action = policy(g, mask, rng)
        rewards = g.step(action)
        trace.steps += 1
        assert rewards.dtype == np.float32 and rewards.shape == (4,)
        assert abs(float(rewards.sum())) < 1e-6, "rewards are not zero-sum"
        assert rewards[0] == rewards[2] and rewards[1] == rewards[3]
        hand.rewards = hand.rewards + rewards
        trace.rewards = trace.rewards + rewards
        if phase == Phase.DECLARE and action != PASS:
            hand.declarations.append(dec.action_declaration(action, seat, cfg))
        if phase == Phase.NAME:
            hand.named = action - g.layout.name_base
        if g.phase == Phase.BURY and hand.dealer is None:  # bury starts: the trump is fixed
            hand.dealer, hand.trump = g.dealer, g.trump
            tail = g.deck[4 * g.hand_size:]
            hand.picked_up, hand.flip_cards = cards.from_ids(tail, cfg.decks), tail.tolist()
            assert np.array_equal(g.picked_up, hand.picked_up)
            hand.dealer_plain_cards = int(g.hands[g.dealer][cards.POINTS == 0].sum())
        if phase == Phase.BURY and g.phase == Phase.PLAY:
            assert int(g.kitty.sum()) == cfg.kitty_size
            assert (g.hands.sum(1) == g.hand_size).all()
            if not cfg.kitty_point_cards_allowed and hand.dealer_plain_cards >= cfg.kitty_size:
                assert cards.points(g.kitty) == 0, "point cards buried (RULES.md §5.2)"
        if phase == Phase.PLAY and action == END:
            if g.phase == Phase.CHOOSE:  # the penalty waits for the choice
                assert g.penalty == pre_penalty
                pending_throw = (seat, selection)
                assert len(g.candidates) >= 2
            else:
                hand_throw(cfg, g, hand, seat, selection, g.trick[seat], g.penalty - pre_penalty)
        if phase == Phase.CHOOSE:
            thrower, attempted = pending_throw
            hand_throw(cfg, g, hand, thrower, attempted, g.trick[thrower], g.penalty - pre_penalty)
        if g.hands_played > pre_hands or g.done:  # the step ended a hand: rebuild its last trick
            pre_trick[seat] = selection + np.eye(54, dtype=np.uint8)[action]
            order = [(pre_leader + i) % 4 for i in range(4)]
            plays = [pre_trick[s] for s in order]
            hand.tricks.append((pre_leader, plays, order[trick_winner(plays, pre_ctx, cfg)]))
            played = pre_played.astype(np.int64)
            for s, p in zip(order, plays):
                played[s] += p
            check_hand_end(g, hand, played, pre_kitty, pre_captured, pre_ctx)
            trace.hands.append(hand)
            hand = HandTrace(tuple(g.levels), False, g.first_drawer)
        elif g.tricks_done > pre_tricks:
            hand.tricks.append(g.last_trick)
        else:
            assert not rewards.any(), "a reward before the end of a hand"
    return trace


def hand_throw(cfg, g, hand, thrower, attempted, lead, penalty_delta):
    """Check one committed lead; a failed throw leads a single unit of the attempt (§7.4)."""
    assert (lead <= attempted).all()
    if np.array_equal(lead, attempted):
        assert penalty_delta == 0
        return
    assert len(decompose(lead, g.ctx)) == 1, "a failed throw must lead a single unit"
    assert (g.revealed[thrower] >= attempted - lead).all(), "failed throw not revealed"
    returned = int(attempted.sum()) - int(lead.sum())
    expected = expected_penalty(cfg, thrower % 2 == g.dealer % 2, returned)
    assert penalty_delta == expected, (f"throw penalty {penalty_delta}, expected {expected} "
                                       f"({cfg.throw_penalty}, {returned} card(s) returned)")
    hand.penalty += expected
    hand.failed_throws += 1


def check_hand_end(g: Game, hand: HandTrace, played, kitty, captured_before, ctx):
    cfg, res = g.cfg, g.hand_result
    dealer, attackers = res["dealer"], 1 - res["dealer"] % 2
    assert dealer == hand.dealer and res["trump"] == hand.trump
    check_trump_choice(cfg, hand)
    # every seat played its whole hand; tricks hold hand_size cards per seat in total
    assert (played.sum(1) == cfg.hand_size).all()
    assert sum(int(p[0].sum()) for _, p, _ in hand.tricks) == cfg.hand_size
    assert all(len({int(x.sum()) for x in p}) == 1 for _, p, _ in hand.tricks)
    assert int(kitty.sum()) == cfg.kitty_size
    assert cards.points(played.sum(0)) + cards.points(kitty) == cfg.total_points
    assert (played.sum(0) + kitty == cfg.decks).all()
    won = [cards.points(sum(p)) for _, p, w in hand.tricks if w % 2 == attackers]
    captured = sum(won)
    dealer_side = cfg.total_points - captured - cards.points(kitty)
    assert dealer_side >= 0
    last_leader, last_plays, last_winner = hand.tricks[-1]
    if last_winner % 2 == attackers:
        basis = (last_plays[0] if cfg.kitty_multiplier_basis == "LEAD"
                 else last_plays[(last_winner - last_leader) % 4])
        bonus = cards.points(kitty) * scoring.kitty_multiplier(basis, ctx, cfg)
        assert bonus >= 2 * cards.points(kitty)
    else:
        bonus = 0
    assert res["kitty_bonus"] == bonus
    assert res["attacker_points"] == captured + bonus + hand.penalty
    assert res["outcome"] == scoring.level_outcome(res["attacker_points"], cfg)
    o = res["outcome"]
    # rewards (reward="levels"): attackers 1 + gain on a take-over, else -(dealer side gain)
    if g.reward_kind == "levels":
        r = 1 + o.attackers_gain if o.attackers_take_over else -o.dealer_side_gain
        assert hand.rewards[attackers] == r and hand.rewards[dealer % 2] == -r
    # levels never go down (no reset options here); only the gaining team moves
    gainer = attackers if o.attackers_take_over else dealer % 2
    new = tuple(g.levels)
    assert new[1 - gainer] == hand.levels[1 - gainer]
    gain = o.attackers_gain if o.attackers_take_over else o.dealer_side_gain
    assert new[gainer] == min(hand.levels[gainer] + gain, ACE)
    # next dealer (RULES.md §10.4)
    rot, nxt = cfg.dealer_rotation, res["next_dealer"]
    if rot == "ALWAYS_NEXT" or o.attackers_take_over:
        assert nxt == (dealer + 1) % 4
    else:
        assert nxt == (dealer if rot == "STAY_WHILE_HOLDING" else (dealer + 2) % 4)
    if g.episode == "match" and not g.done:
        assert g.dealer == nxt and g.phase in (Phase.DECLARE, Phase.BURY, Phase.NAME)


def check_trump_choice(cfg, hand: HandTrace):
    """Dealer and trump follow from the declarations or the fallback (RULES.md §4.4-4.7)."""
    decls = hand.declarations
    if hand.first_hand and not decls:
        assert hand.dealer == hand.first_drawer
    if cfg.declaration_mode == "FIXED":
        assert not decls and hand.trump == (NT if cfg.fixed_trump == "NT"
                                            else "SHCD".index(cfg.fixed_trump))
        return
    if decls:
        assert hand.trump == decls[-1].trump
        if hand.first_hand:
            who = decls[0] if cfg.first_hand_dealer == "FIRST_DECLARER" else decls[-1]
            assert hand.dealer == who.player
        return
    if hand.named is not None:
        assert hand.trump == hand.named
        return
    fallback = cfg.first_hand_no_declaration if hand.first_hand else cfg.no_declaration_fallback
    if fallback.endswith("FLIP_KITTY"):
        first = hand.flip_cards[0]
        assert hand.trump == (cards.suit_of(first) if first < cards.LJ else NT)
    else:
        assert hand.trump == NT


# ------------------------------------------------------------------------------- default runs

def play_hands(cfg, seeds, policy=random_policy, **game_kw):
    out = []
    for seed in seeds:
        g = Game(cfg, seed, **game_kw)
        trace = play(g, np.random.default_rng(seed + 10_000), policy)
        assert g.done and len(trace.hands) == 1
        assert np.array_equal(trace.rewards, trace.hands[0].rewards)
        out.append((g, trace))
    return out


@pytest.mark.parametrize("decks", [2, 1])
def test_random_hands_keep_every_invariant(decks):
    results = play_hands(Rules(decks=decks), range(200))
    cfg = Rules(decks=decks)
    tricks = [g.tricks_done for g, _ in results]
    assert max(tricks) <= cfg.hand_size
    assert cfg.hand_size in tricks  # all-singles hands do occur ...
    assert min(tricks) < cfg.hand_size  # ... and so do multi-card tricks
    assert sum(t.hands[0].failed_throws for _, t in results) > 0  # throws are exercised


@pytest.mark.slow
@pytest.mark.parametrize("decks, n", [(2, 3000), (1, 1000), (3, 500), (4, 300)])
def test_many_random_hands_keep_every_invariant(decks, n):
    play_hands(Rules(decks=decks), range(1000, 1000 + n))


# ------------------------------------------------------------------ replay and determinism

def test_replaying_the_log_reproduces_the_hand():
    for cfg, policy in [(Rules(), random_policy), (Rules(decks=1), random_policy),
                        (Rules(first_hand_no_declaration="REDEAL"), pass_first_deal_policy),
                        (Rules(failed_throw_choice="NEXT_PLAYER"), random_policy)]:
        for seed in range(5):
            g = Game(cfg, seed)
            play(g, np.random.default_rng(seed), policy)
            h = Game(cfg, seed)
            for seat, action in g.log:
                if seat == -1:  # a redeal marker: the game redeals by itself
                    continue
                assert h.to_act == seat
                h.step(action)
            assert h.done and h.log == g.log
            assert np.array_equal(h.deck, g.deck) and np.array_equal(h.played, g.played)
            assert np.array_equal(h.kitty, g.kitty)
            assert h.outcome == g.outcome and h.attacker_points == g.attacker_points
            assert h.levels == g.levels and h.next_dealer == g.next_dealer


def test_same_seed_same_game_different_seed_different_deck():
    def log(seed):
        g = Game(Rules(), seed)
        rng = np.random.default_rng(7)
        while not g.done:
            np.random.seed(len(g.log))  # noqa: NPY002 — the global RNG must not matter
            g.step(random_policy(g, g.legal_mask(), rng))
        return g.log

    assert log(3) == log(3)
    decks = {Game(Rules(), seed).deck.tobytes() for seed in range(20)}
    assert len(decks) == 20
    assert Game(Rules(initial_first_drawer="RANDOM"), 5).first_drawer == \
        Game(Rules(initial_first_drawer="RANDOM"), 5).first_drawer


def test_illegal_actions_are_rejected_without_changing_the_game():
    g = Game(Rules(), 11)
    rng = np.random.default_rng(11)
    while not g.done:
        mask = g.legal_mask()
        illegal = np.flatnonzero(~mask)
        before = (len(g.log), g.phase, g.to_act, g.hands.copy(), g.selection.copy())
        for bad in (int(rng.choice(illegal)), -1, mask.size):
            with pytest.raises(ValueError, match="illegal action"):
                g.step(bad)
        assert (len(g.log), g.phase, g.to_act) == before[:3]
        assert np.array_equal(g.hands, before[3]) and np.array_equal(g.selection, before[4])
        g.step(random_policy(g, mask, rng))
    with pytest.raises(ValueError, match="over"):
        g.step(PASS)


# ------------------------------------------------------------------------------------ matches

def play_match(cfg, seed, cap=60):
    g = Game(cfg, seed, episode="match")
    trace = play(g, np.random.default_rng(seed), max_hands=cap)
    assert g.done, f"match seed {seed} not over after {cap} hands"
    assert len(trace.hands) == g.hands_played
    assert g.winner_team in (0, 1)
    for a, b in zip(trace.hands, trace.hands[1:]):
        assert all(y >= x for x, y in zip(a.levels, b.levels)), "a team's level went down"
    assert abs(trace.rewards.sum()) < 1e-6
    return g, trace


def test_match_plays_to_a_winner():
    g, trace = play_match(Rules(), 0)
    last = trace.hands[-1]
    o = g.hand_result["outcome"]
    gainer = (1 - g.hand_result["dealer"] % 2) if o.attackers_take_over \
        else g.hand_result["dealer"] % 2
    gain = o.attackers_gain if o.attackers_take_over else o.dealer_side_gain
    assert g.winner_team == gainer and last.levels[gainer] + gain > ACE  # PASS_A
    assert g.levels[g.winner_team] == ACE


def test_match_must_defend_a():
    g, trace = play_match(Rules(win_condition="MUST_DEFEND_A"), 0)
    o, dealer = g.hand_result["outcome"], g.hand_result["dealer"]
    assert not o.attackers_take_over and g.winner_team == dealer % 2
    assert trace.hands[-1].levels[g.winner_team] == ACE  # held while at A


@pytest.mark.parametrize("rotation", ["STANDARD", "STAY_WHILE_HOLDING", "ALWAYS_NEXT"])
def test_dealer_rotation_in_matches(rotation):
    for seed in range(3):
        g = Game(Rules(dealer_rotation=rotation), seed, episode="match")
        trace = play(g, np.random.default_rng(seed), max_hands=6)
        dealers = [h.dealer for h in trace.hands]
        assert len(dealers) == 6 and not g.done
        if rotation == "ALWAYS_NEXT":
            assert all((b - a) % 4 == 1 for a, b in itertools.pairwise(dealers))


# -------------------------------------------------------------------------------- option sets

OPTION_SETS = {
    # id: (Rules options, Game keyword arguments, policy)
    "kitty_FLAT2": ({"kitty_multiplier": "FLAT2"}, {}, random_policy),
    "kitty_LINEAR": ({"kitty_multiplier": "LINEAR"}, {}, random_policy),
    "kitty_POWER": ({"kitty_multiplier": "POWER"}, {}, random_policy),
    "kitty_TIERED_LITERAL": ({"tiered_precedence": "LITERAL"}, {}, random_policy),
    "kitty_basis_WINNING_PLAY": ({"kitty_multiplier_basis": "WINNING_PLAY"}, {}, random_policy),
    "penalty_FIXED_10": ({"throw_penalty": "FIXED_10"}, {}, random_policy),
    "penalty_PER_CARD_10": ({"throw_penalty": "PER_CARD_10"}, {}, random_policy),
    "choice_NEXT_PLAYER": ({"failed_throw_choice": "NEXT_PLAYER"}, {}, random_policy),
    "choice_AUTO_FEWEST_CARDS": ({"failed_throw_choice": "AUTO_FEWEST_CARDS"}, {},
                                 random_policy),
    "first_dealer_FINAL_DECLARER": ({"first_hand_dealer": "FINAL_DECLARER"}, {},
                                    random_policy),
    "first_no_decl_NO_TRUMP": ({}, {}, passing_policy),
    "first_no_decl_FLIP_KITTY": ({"first_hand_no_declaration": "FIRST_DRAWER_FLIP_KITTY"}, {},
                                 passing_policy),
    "first_no_decl_REDEAL": ({"first_hand_no_declaration": "REDEAL"}, {},
                             pass_first_deal_policy),
    "fallback_FLIP_KITTY": ({"no_declaration_fallback": "FLIP_KITTY"}, {"dealer": 1},
                            passing_policy),
    "fallback_REDEAL": ({"no_declaration_fallback": "REDEAL"}, {"dealer": 3},
                        pass_first_deal_policy),
    "post_deal_partner_first": ({"declaration_mode": "POST_DEAL_PARTNER_FIRST"},
                                {"dealer": 1}, random_policy),
    "post_deal_partner_names": ({"declaration_mode": "POST_DEAL_PARTNER_FIRST"},
                                {"dealer": 2}, lambda g, m, r: (
                                    PASS if g.phase == Phase.DECLARE else random_policy(g, m, r))),
    "fixed_trump_H": ({"declaration_mode": "FIXED", "fixed_trump": "H"}, {}, random_policy),
    "fixed_trump_NT_dealer": ({"declaration_mode": "FIXED", "fixed_trump": "NT"}, {"dealer": 2},
                              random_policy),
    "always_trump_two": ({"always_trump_two": True}, {}, random_policy),
    "follow_partial_tractor": ({"follow_partial_tractor": True}, {}, random_policy),
    "ruff_COUNT_ONLY": ({"ruff_match": "COUNT_ONLY"}, {}, random_policy),
    "throw_ALL_UNITS": ({"throw_comparison": "ALL_UNITS"}, {}, random_policy),
    "no_point_kitty": ({"kitty_point_cards_allowed": False}, {}, random_policy),
    "no_point_kitty_1deck": ({"decks": 1, "kitty_point_cards_allowed": False}, {}, random_policy),
    "rotation_STAY": ({"dealer_rotation": "STAY_WHILE_HOLDING"}, {"dealer": 0}, random_policy),
    "rotation_ALWAYS_NEXT": ({"dealer_rotation": "ALWAYS_NEXT"}, {"dealer": 3}, random_policy),
    "self_overturn_no_reinforce": ({"allow_self_overturn": True, "allow_reinforce": False}, {},
                                   random_policy),
    "no_nt_declaration": ({"allow_no_trump_declaration": False}, {}, random_policy),
    "random_first_drawer": ({"initial_first_drawer": "RANDOM"}, {}, random_policy),
    "levels_K_vs_5": ({}, {"levels": ("K", "5"), "dealer": 1}, random_policy),
    "reward_points": ({}, {"reward": "points"}, random_policy),
    "1deck_mix": ({"decks": 1, "kitty_multiplier": "POWER", "throw_penalty": "PER_CARD_10",
                       "failed_throw_choice": "AUTO_FEWEST_CARDS", "ruff_match": "COUNT_ONLY"}, {},
                  random_policy),
}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_option_set_plays_to_completion(name):
    options, game_kw, policy = OPTION_SETS[name]
    cfg = Rules(**options)
    results = play_hands(cfg, range(8), policy, **game_kw)
    hands = [t.hands[0] for _, t in results]
    if policy is passing_policy:
        assert all(not h.declarations for h in hands)
    if name.endswith("REDEAL"):
        assert all(g.log.count((-1, -1)) >= 1 for g, _ in results)
    if name == "post_deal_partner_names":
        assert all(h.named is not None for h in hands)
    if name.startswith("penalty_"):
        assert any(g.penalty for g, _ in results)
    if name.startswith("no_point_kitty"):
        assert all(cards.points(g.kitty) == 0 for g, t in results
                   if t.hands[0].dealer_plain_cards >= cfg.kitty_size)


def test_next_player_choice_is_exercised():
    """NEXT_PLAYER: the leader's next seat picks among the failing units (phase CHOOSE)."""
    cfg = Rules(failed_throw_choice="NEXT_PLAYER")
    chose = 0
    for g, _ in play_hands(cfg, range(30)):
        chose += sum(a >= g.layout.choose_base for s, a in g.log if s >= 0)
    assert chose > 0


def test_per_card_penalty_with_next_player_choice():
    """The penalty counts the cards returned after the next player's choice (§7.4.5)."""
    cfg = Rules(failed_throw_choice="NEXT_PLAYER", throw_penalty="PER_CARD_10")
    play_hands(cfg, range(40))
