"""The batched engine agrees with the reference ``rules.Game`` and keeps its invariants."""

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.core import Engine
from shengji_env.core.observe import observe_game
from shengji_env.rules import Rules
from shengji_env.rules.actions import END, Phase
from shengji_env.rules.game import Game

OPTION_SETS = [
    {},
    {"decks": 1},
    {"failed_throw_choice": "NEXT_PLAYER"},
    {"failed_throw_choice": "AUTO_FEWEST_CARDS", "throw_penalty": "PER_CARD_10"},
    {"throw_penalty": "FIXED_10", "kitty_multiplier": "LINEAR"},
    {"follow_partial_tractor": True, "always_trump_two": True},
    {"throw_comparison": "ALL_UNITS", "ruff_match": "COUNT_ONLY"},
    {"ruff_match": "COUNT_ONLY"},  # alone: ALL_UNITS sends throws to the scalar rules
    {"first_hand_dealer": "FINAL_DECLARER", "allow_self_overturn": True},
    {"first_hand_no_declaration": "REDEAL", "allow_reinforce": False},
    {"first_hand_no_declaration": "FIRST_DRAWER_FLIP_KITTY", "flip_joker_result": "NEXT_CARD"},
    {"declaration_mode": "FIXED", "fixed_trump": "H"},
    {"kitty_point_cards_allowed": False, "kitty_multiplier": "POWER",
     "kitty_multiplier_basis": "WINNING_PLAY"},
    {"kitty_multiplier": "FLAT2", "tiered_precedence": "LITERAL"},
    {"initial_first_drawer": "RANDOM", "allow_no_trump_declaration": False},
    {"decks": 1, "kitty_point_cards_allowed": False, "kitty_size": 2},
]
LATER_HAND_SETS = [  # options that only matter when the dealer is known before the deal
    {"declaration_mode": "POST_DEAL_PARTNER_FIRST"},
    {"no_declaration_fallback": "FLIP_KITTY"},
    {"no_declaration_fallback": "REDEAL", "dealer_rotation": "STAY_WHILE_HOLDING"},
    {"win_condition": "MUST_DEFEND_A", "dealer_rotation": "ALWAYS_NEXT", "mandatory_levels": ["5", "10"]},
]


def check_invariants(eng, s):
    d = eng.cfg.decks
    live = ~s.done
    total = (s.hands.sum(1, dtype=np.int16) + s.kitty + s.played.sum(1, dtype=np.int16)
             + s.trick.sum(1, dtype=np.int16))
    # during the deal the undealt cards are in the deck, not yet anywhere
    dealing = (s.phase == Phase.DECLARE) & (s.window_seat < 0)
    settled = live & ~dealing
    assert (total[settled] == d).all(), "every card's copies sum to the number of decks"
    mask = eng.legal_mask(s)
    assert mask[live].any(1).all(), "the mask is never empty for a live game"
    held = s.hands[np.arange(s.num_games), np.maximum(s.to_act, 0)].astype(np.int16) - s.selection
    assert not (mask[live, :54] & (held[live] <= 0)).any(), "a selectable card is held"


def structured_pick(rng, row, hand, sel, leading):
    """A random legal action; leaders mostly build tuples (pairs, triples, quads), tractors and
    throws of them, so that the rare paths (tractor and triple leads, failed throws) are
    reached often."""
    legal = np.flatnonzero(row)
    if leading and rng.random() < 0.8:
        cards_ = legal[legal < 54]
        finish = cards_[(sel[cards_] >= 1) & (hand[cards_] > sel[cards_])]
        if finish.size:
            return int(rng.choice(finish))
        if row[END] and (sel != 1).all() and rng.random() < 0.4:
            return END
        start = cards_[hand[cards_] >= 2]
        if start.size:
            return int(rng.choice(start))
    return int(rng.choice(legal))


def play_both(cfg, seed, n, check_obs=True, structured=False, stats=None, **kw):
    """Random legal play in the engine and in ``n`` reference games fed the same actions
    (``structured``: leaders prefer tuples and tractors, see ``structured_pick``).

    Find-friends rules (RULES.md §10.6) add their own checks: the friend card, the reveal and
    the sides at every decision; per-seat levels and winners at the end; rewards zero-sum per
    side (a dealer alone against three is not zero-sum per seat). ``stats``, a dict, counts
    their hands there: ``hands``, ``alone`` (no friend), ``shown`` (the friend revealed)."""
    friends = cfg.partnership == "FIND_FRIEND"
    stats = {} if stats is None else stats
    for key in ("hands", "alone", "shown"):
        stats.setdefault(key, 0)
    eng = Engine(cfg, n, seed, **kw)
    s = eng.reset()
    given = {k: kw[k] for k in ("levels", "dealer", "episode", "reward") if k in kw}
    games = [Game(cfg, seed + i, **given) for i in range(n)]
    rng = np.random.default_rng(seed)
    totals = np.zeros((n, 4))
    while not s.done.all():
        check_invariants(eng, s)
        mask = eng.legal_mask(s)
        obs = eng.observe(s) if check_obs else None
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            if g.done:
                assert s.done[i]
                continue
            assert int(s.to_act[i]) == g.to_act
            assert (g.legal_mask() == mask[i]).all(), f"mask differs in game {i}"
            if check_obs:
                assert np.array_equal(observe_game(g), obs[i]), f"observation differs in game {i}"
            if friends:
                assert int(s.friend_card[i]) == (-1 if g.friend_card is None else g.friend_card)
                assert int(s.friend_trick[i]) == (-1 if g.friend_trick is None else g.friend_trick)
                assert set(np.flatnonzero(s.dealer_side[i]).tolist()) == set(g.side)
            if structured:
                seat = int(s.to_act[i])
                leading = s.phase[i] == Phase.PLAY and s.lead_n[i] == 0
                actions[i] = structured_pick(rng, mask[i], s.hands[i, seat], s.selection[i], leading)
            else:
                legal = np.flatnonzero(mask[i])
                actions[i] = legal[rng.integers(legal.size)]
        s, rewards, _ = eng.step(s, actions)
        totals += rewards
        for i, g in enumerate(games):
            if not g.done:
                hands = g.hands_played
                assert np.array_equal(g.step(actions[i]), rewards[i])
                if friends and g.hands_played > hands:
                    _check_friend_hand(g, rewards[i], stats)
    for i, g in enumerate(games):
        assert g.attacker_points == int(s.attacker_points[i])
        assert g.kitty_bonus == int(s.kitty_bonus[i])
        assert g.next_dealer == int(s.next_dealer[i])
        assert (g.played == s.played[i]).all()
        assert g.log == eng.game_log(s, i)
        if friends:
            assert list(g.levels) == s.seat_levels[i].tolist()
            assert set(g.winners) == set(np.flatnonzero(s.winner_seats[i]).tolist())
        else:
            assert list(g.levels) == s.team_levels[i].tolist()
    if not friends:
        assert np.allclose(totals.sum(1), 0), "team rewards are zero-sum"
    return eng, s


def _check_friend_hand(g, rewards, stats):
    """A find-friends hand just ended in ``g``: count it in ``stats``; its rewards are zero-sum
    per side (the dealer side's value is minus the attackers')."""
    stats["hands"] += 1
    stats["alone"] += g.hand_result["friend"] is None
    stats["shown"] += g.friend_shown is not None
    side = np.isin(np.arange(4), list(g.hand_result["dealer_side"]))
    assert len(set(rewards[side])) == 1 and len(set(rewards[~side])) <= 1
    if (~side).any() and rewards.any():
        assert rewards[side][0] == -rewards[~side][0]


def test_agrees_with_reference_default_rules():
    play_both(Rules(), seed=0, n=120)


@pytest.mark.parametrize("options", OPTION_SETS[1:], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_agrees_with_reference_options(options):
    play_both(Rules(**options), seed=100, n=14)


@pytest.mark.parametrize("options", LATER_HAND_SETS, ids=lambda o: ",".join(o))
def test_agrees_with_reference_later_hands(options):
    play_both(Rules(**options), seed=200, n=14, levels=(3, 3), dealer=1)


def test_agrees_in_match_mode():
    play_both(Rules(decks=1), seed=300, n=4, check_obs=False, episode="match", levels=(10, 10))


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "default")
def test_agrees_many_hands(options):
    play_both(Rules(**options), seed=1000, n=200 if options else 3000, check_obs=not options)


def test_same_seed_same_game_at_any_batch_position():
    a_eng = Engine(Rules(), 6, seed=10)
    b_eng = Engine(Rules(), 1, seed=13)
    a, b = a_eng.reset(), b_eng.reset()
    np.random.default_rng(999).random()  # global-ish state must not matter
    rng = np.random.default_rng(1)
    while not b.done.all():
        m = b_eng.legal_mask(b)
        act = int(rng.choice(np.flatnonzero(m[0])))
        am = a_eng.legal_mask(a)
        assert (am[3] == m[0]).all()
        acts = np.array([int(np.flatnonzero(row)[0]) if row.any() else 0 for row in am])
        acts[3] = act
        a, _, _ = a_eng.step(a, acts)
        b, _, _ = b_eng.step(b, np.array([act]))
    assert (a.played[3] == b.played[0]).all()
    assert (Engine(Rules(), 2, seed=5).reset().deck[0] != Engine(Rules(), 2, seed=6).reset().deck[0]).any()


def test_observation_hides_other_hands():
    eng = Engine(Rules(), 1, seed=4)
    s = eng.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        m = eng.legal_mask(s)
        s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(m[0]))]))
    obs = eng.observe(s).copy()
    me = int(s.to_act[0])
    others = [x for x in range(4) if x != me]
    # swap hidden cards between two other seats (same number each): nothing observable changes
    t = s.copy()
    a, b = others[0], others[1]
    pool = t.hands[0, a].astype(int) + t.hands[0, b]
    ids = rng.permutation(cards.to_ids(pool))
    na = int(t.hands[0, a].sum())
    t.hands[0, a] = cards.from_ids(ids[:na])
    t.hands[0, b] = cards.from_ids(ids[na:])
    assert np.array_equal(eng.observe(t), obs)


def test_bad_input_raises_and_leaves_state_unchanged():
    eng = Engine(Rules(), 3, seed=0)
    s = eng.reset()
    before = s.copy()
    mask = eng.legal_mask(s)
    illegal = np.array([int(np.flatnonzero(~row)[0]) for row in mask])
    with pytest.raises(ValueError, match="illegal action"):
        eng.step(s, illegal)
    with pytest.raises(ValueError, match="shape"):
        eng.step(s, np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        eng.step(s, np.zeros(3, dtype=np.float32))
    for name in ("hands", "phase", "to_act", "dealt", "selection"):
        assert np.array_equal(getattr(s, name), getattr(before, name))


def test_finished_games_ignore_actions_and_auto_forced_logs_everything():
    eng = Engine(Rules(), 8, seed=3, auto_forced=True)
    s = eng.reset()
    rng = np.random.default_rng(0)
    while not s.done.all():
        m = eng.legal_mask(s)
        acts = np.array([rng.choice(np.flatnonzero(r)) if r.any() else 12345 for r in m])
        s, r, d = eng.step(s, acts)
    for i in range(8):
        g = Game(Rules(), 3 + i)
        for seat, a in eng.game_log(s, i):
            if seat >= 0:
                assert g.to_act == seat
                g.step(a)
        assert g.done and g.attacker_points == int(s.attacker_points[i])


@pytest.mark.parametrize("reward", ["points", "win"])
def test_agrees_on_reward_kinds(reward):
    play_both(Rules(), seed=400, n=10, reward=reward)


def test_agrees_on_match_wins():
    play_both(Rules(decks=1, win_condition="MUST_DEFEND_A"), seed=500, n=3, check_obs=False,
              episode="match", reward="win", levels=(11, 11))


def test_agrees_on_chosen_units_with_per_card_penalty():
    play_both(Rules(failed_throw_choice="NEXT_PLAYER", throw_penalty="PER_CARD_10"), seed=600, n=20)


def test_given_decks_match_the_reference_game():
    rng = np.random.default_rng(8)
    decks = np.stack([rng.permutation(np.repeat(np.arange(54), 2)) for _ in range(3)])
    first = np.array([0, 2, 3])
    eng = Engine(Rules(), 3, seed=0)
    s = eng.reset(decks=decks, first_drawers=first)
    games = [Game(Rules(initial_first_drawer=int(f)), 0, deck=d) for d, f in zip(decks, first)]
    while not s.done.all():
        mask = eng.legal_mask(s)
        acts = np.array([np.flatnonzero(m)[-1] if m.any() else 0 for m in mask])
        for i, g in enumerate(games):
            if not g.done:
                assert (g.legal_mask() == mask[i]).all()
                g.step(acts[i])
        s, _, _ = eng.step(s, acts)
    assert [g.attacker_points for g in games] == s.attacker_points.tolist()
    with pytest.raises(ValueError, match="decks must be"):
        eng.reset(decks=decks[:, :10])


@pytest.mark.parametrize("options", [{}, {"failed_throw_choice": "NEXT_PLAYER"}])
def test_single_game_fast_paths_agree(options):
    """B = 1 takes scalar shortcuts (observation, mask and step: ``core/one_game.py``); it must
    still equal the reference (``test_engine_fastpath.py`` compares it with the batch code)."""
    for seed in range(6):
        play_both(Rules(**options), seed=700 + seed, n=1)
