"""Find-friends (找朋友, ``partnership="FIND_FRIEND"``): RULES.md §10.6, AMB-16, §13.11 FF-1..5.

The reference ``rules.Game`` and the batched engine agree on every decision (masks,
observations, rewards, levels, next dealers); the observation hides the unrevealed friend.
"""

import numpy as np
import pytest
from test_engine import play_both

from shengji_env import cards
from shengji_env.core import Engine
from shengji_env.core.observe import decode
from shengji_env.rules import Rules, scoring, seats
from shengji_env.rules.actions import Phase, action_layout, describe_action
from shengji_env.rules.game import Game

FF = Rules(partnership="FIND_FRIEND")
H_A = cards.card_id("H", "A")


def hands_with(placement: dict[int, int], card=H_A):
    """``uint8[4, 54]``: seat → copies of ``card`` (other cards irrelevant to the friend rule)."""
    h = np.zeros((4, 54), dtype=np.uint8)
    for seat, n in placement.items():
        h[seat, card] = n
    return h


# ------------------------------------------------------------------------------ §13.11


def test_ff1_dealer_holds_one_the_other_holder_is_the_friend():
    assert scoring.resolve_friend(0, H_A, hands_with({0: 1, 3: 1}), 2) == 3  # {0,3} vs {1,2}


def test_ff2_dealer_holds_none_first_holder_after_him():
    assert scoring.resolve_friend(0, H_A, hands_with({1: 1, 2: 1}), 2) == 1


def test_ff3_dealer_holds_both_plays_alone():
    assert scoring.resolve_friend(0, H_A, hands_with({0: 2}), 2) is None


def test_ff4_kitty_copies_belong_to_nobody():
    assert scoring.resolve_friend(0, H_A, hands_with({0: 1}), 2) is None  # other one buried
    assert scoring.resolve_friend(0, H_A, hands_with({2: 1}), 2) == 2


def test_ff4_three_decks_rule():
    assert scoring.resolve_friend(1, H_A, hands_with({1: 3}), 3) is None
    assert scoring.resolve_friend(1, H_A, hands_with({1: 2, 0: 1}), 3) == 0


def test_ff5_next_dealer_equivalent_formulation():
    hold = scoring.level_outcome(60, FF)
    take = scoring.level_outcome(80, FF)
    assert scoring.next_dealer(0, hold, FF, dealer_side={0, 1}) == 1
    assert scoring.next_dealer(0, take, FF, dealer_side={0, 1}) == 2
    assert scoring.next_dealer(0, hold, FF, dealer_side={0}) == 0  # alone and held: deals again
    assert scoring.next_dealer(0, take, FF, dealer_side={0}) == 1


def test_per_player_levels():
    side = np.array([True, False, False, True])
    levels, won = scoring.apply_seat_level_change((3, 5, 0, 10), side, scoring.level_outcome(30, FF), FF)
    assert levels == (5, 5, 0, 12) and won == frozenset()
    levels, won = scoring.apply_seat_level_change((3, 12, 11, 11), side,
                                                  scoring.level_outcome(200, FF), FF)
    assert levels == (3, 12, 12, 11) and won == {1, 2}
    r = scoring.hand_rewards(scoring.level_outcome(120, FF), 0, dealer_side=[True, False, False, False])
    assert r.tolist() == [-2, 2, 2, 2]  # one against three: each seat gets its side's reward


# ------------------------------------------------------------------------------ the game


def test_friend_phase_after_the_bury_names_any_identity():
    g = Game(FF, 5)
    rng = np.random.default_rng(0)
    while g.phase != Phase.FRIEND:
        g.step(rng.choice(g.legal_actions()))
    lay = action_layout(FF)
    assert lay.friend_base == lay.size - 54 and g.to_act == g.dealer
    assert g.legal_actions() == list(range(lay.friend_base, lay.size))
    assert describe_action(lay.friend_base + H_A, FF) == "friend H:A"
    assert action_layout(Rules()).size == 66  # the default layout is frozen
    g.step(lay.friend_base + H_A)
    assert g.phase == Phase.PLAY and g.friend_card == H_A
    assert g.friend == scoring.resolve_friend(g.dealer, H_A, g.hands, 2)
    assert g.side == ({g.dealer} if g.friend is None else {g.dealer, g.friend})


def play_both_ff(cfg, seed, n, check_obs=True, **kw):
    """``test_engine.play_both`` under find-friends rules (its friend, side, per-seat level and
    per-side zero-sum checks); returns the engine, the state and the counts of its hands."""
    stats = {}
    eng, s = play_both(cfg, seed, n, check_obs=check_obs, stats=stats, **kw)
    return eng, s, stats


def test_agrees_with_reference_default_find_friends():
    _, _, stats = play_both_ff(FF, seed=0, n=32)
    assert stats["hands"] == 32 and stats["shown"] > 0


@pytest.mark.parametrize("options", [{"decks": 1}, {"throw_penalty": "FIXED_10"}])
def test_agrees_with_reference_find_friends_options(options):
    play_both_ff(FF.replace(**options), seed=10, n=6)


def test_agrees_in_match_mode_with_per_player_levels():
    _, s, _ = play_both_ff(FF.replace(decks=1), seed=20, n=3, check_obs=False, episode="match",
                           levels=(9, 10, 11, 12), dealer=0)
    assert s.winner_seats.any(1).all() and (s.winner_team == -1).all()


def test_single_game_fast_path_agrees():
    for seed in range(3):
        play_both_ff(FF, seed=30 + seed, n=1)


@pytest.mark.slow
@pytest.mark.parametrize("decks", [1, 2])
def test_agrees_many_hands(decks):
    _, _, stats = play_both_ff(FF.replace(decks=decks), seed=5000, n=1500)
    assert stats["hands"] == 1500 and stats["alone"] > 0


def _world_with_swapped_hands(s, a, b):
    """A copy of one-game state ``s`` in which seats ``a`` and ``b`` hold each other's hidden
    hands, with the friend (and so the true sides) resolved again for that world."""
    t = s.copy()
    t.hands[0, a], t.hands[0, b] = s.hands[0, b].copy(), s.hands[0, a].copy()
    dealer, card = int(t.dealer[0]), int(t.friend_card[0])
    friend = scoring.resolve_friend(dealer, card, t.hands[0] + t.played[0], 2)
    t.friend[0] = -1 if friend is None else friend
    t.dealer_side[0] = (np.arange(4) == dealer) | (np.arange(4) == t.friend[0])
    return t, friend


def test_observation_hides_the_unrevealed_friend():
    """Exchanging the hidden hands of two other seats so that the friend changes leaves a
    seat's observation unchanged (every seat, at the start of many tricks)."""
    changed = 0
    for seed in range(12):
        eng = Engine(FF, 1, seed=seed)
        s = eng.reset()
        rng = np.random.default_rng(seed)
        while not s.done[0] and changed < 400:
            if (s.phase[0] == Phase.PLAY and s.in_trick[0] == 0 and s.selection[0].sum() == 0
                    and s.friend_trick[0] < 0):
                for me in range(4):
                    for a, b in ((x, y) for x in range(4) for y in range(x + 1, 4) if me not in (x, y)):
                        t, friend = _world_with_swapped_hands(s, a, b)
                        if int(t.friend[0]) == int(s.friend[0]):
                            continue
                        changed += 1
                        seat = np.array([me])
                        assert np.array_equal(eng.observe(t, seats=seat), eng.observe(s, seats=seat)), \
                            f"seat {me} sees the friend move from {int(s.friend[0])} to {friend}"
            m = eng.legal_mask(s)[0]
            s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(m))]))
    assert changed >= 100


def test_side_knowledge_and_reveal_in_the_observation():
    eng = Engine(FF, 1, seed=3)
    s = eng.reset()
    rng = np.random.default_rng(1)
    seen_unknown = seen_shown = False
    while not s.done[0]:
        if s.phase[0] == Phase.PLAY and s.friend_card[0] >= 0:
            for me in range(4):
                v = decode(eng.observe(s, seats=np.array([me]))[0], FF)
                assert v.team_levels is None and v.friend_card == int(s.friend_card[0])
                if me == int(s.dealer[0]):
                    assert v.my_side == seats.KNOWN_DEALER_SIDE
                if v.my_side != seats.SIDE_UNKNOWN:  # what a seat knows is true
                    assert (v.my_side == seats.KNOWN_DEALER_SIDE) == bool(s.dealer_side[0, me])
                seen_unknown |= v.my_side == seats.SIDE_UNKNOWN
                if s.friend_trick[0] >= 0:
                    seen_shown = True
                    assert v.friend_shown == (int(s.friend[0]) - me) % 4
                    assert v.friend_trick == int(s.friend_trick[0])
                    true_points = int(s.captured[0]) + int(s.penalty[0])
                    assert v.attacker_points == pytest.approx(true_points, abs=1e-3)
        m = eng.legal_mask(s)[0]
        s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(m))]))
    assert seen_shown and seen_unknown


# ------------------------------------------------------------------------------ environments


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent")
@pytest.mark.filterwarnings("ignore:.*is not a NumPy array")
def test_pettingzoo_api_and_seed_tests():
    import pettingzoo.test as pzt

    from shengji_env.aec import env, raw_env
    pzt.api_test(env(partnership="FIND_FRIEND"), num_cycles=300)
    pzt.api_test(raw_env(partnership="FIND_FRIEND", decks=1), num_cycles=300)
    pzt.seed_test(lambda **k: env(partnership="FIND_FRIEND", **k), num_cycles=300)
    pzt.render_test(lambda render_mode=None: env(render_mode=render_mode, partnership="FIND_FRIEND"))


def test_aec_episode_infos_render_and_per_side_rewards():
    from shengji_env.aec import raw_env
    e = raw_env(partnership="FIND_FRIEND", render_mode="ansi", info="readable")
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    named = shown = False
    returns = dict.fromkeys(e.possible_agents, 0.0)
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, _, info = e.last()
        returns[agent] += reward
        if term:
            final = final or dict(info)
            e.step(None)
            continue
        if info.get("phase") == "FRIEND":
            named = True
            e.step(e.legal_actions()[0] + cards.card_id("H", "A"))
            assert "friend card: H:A" in e.render()
            continue
        shown |= "friend revealed: seat" in e.render()
        e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
    info = final
    assert named and info["friend_card"] == cards.card_id("H", "A")
    assert set(info) >= {"seat_levels", "dealer_side", "friend", "side_rewards"}
    assert info["side_rewards"]["dealer_side"] == -info["side_rewards"]["attackers"]
    for i, agent in enumerate(e.possible_agents):
        key = "dealer_side" if i in info["dealer_side"] else "attackers"
        assert returns[agent] == info["side_rewards"][key]
    assert shown == (info["friend"] is not None and e.state.friend_trick[0] >= 0)


def test_gymnasium_single_agent_and_vecenv():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from shengji_env import SingleAgentEnv
    from shengji_env.single import ENV_ID
    from shengji_env.vector import VecEnv
    e = gymnasium.make(ENV_ID, partnership="FIND_FRIEND")
    check_env(e.unwrapped)
    with pytest.raises(ValueError, match="one seat"):
        SingleAgentEnv(seats=(0, 2), partnership="FIND_FRIEND")
    venv = VecEnv(8, FF, seed=0)
    obs, mask, to_act, _ = venv.reset()
    rng = np.random.default_rng(0)
    finished = 0
    while finished < 8:
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, to_act, rewards, done, info = venv.step(acts)
        if done.any():
            finished += int(done.sum())
            ep = info["episode"]
            assert ep["seat_levels"].shape == (done.sum(), 4) and "team_levels" not in ep
            for ret, side in zip(ep["return"], ep["dealer_side"]):
                assert len(set(ret[side])) == 1 and len(set(ret[~side])) == 1


def test_one_game_fast_path_equals_the_batch_on_every_state_field():
    from test_engine_fastpath import play_alone_and_batched
    play_alone_and_batched(FF.replace(decks=1), seed=41, episode="match", levels=(11, 12, 11, 12),
                           dealer=2, auto_forced=True)


@pytest.mark.slow
def test_one_game_fast_path_equals_the_batch_two_decks():
    from test_engine_fastpath import play_alone_and_batched
    play_alone_and_batched(FF, seed=40)


# ------------------------------------------------------------------------------ agents


def test_heuristic_names_the_big_joker_else_an_ace_it_lacks_in_its_longest_off_suit():
    from agents.baselines.heuristic import name_friend_card
    from shengji_env.rules import TrumpContext
    ctx = TrumpContext.from_rules(0, 0, FF)  # level 2, spades trump
    hand = cards.parse("H:K K Q 9 8 7 6, C:A 3, D:5 4, S:A K Q, Jk:BJ")

    class View:  # the fields name_friend_card reads
        pass
    view = View()
    view.hand, view.kitty = hand, cards.parse("C:A")
    view.shown = np.zeros((4, 54), dtype=np.uint8)  # nobody else declared
    assert name_friend_card(view, ctx, 2) == cards.BJ  # one big joker held: the other's holder
    view.hand = hand + cards.parse("Jk:BJ")  # both held: naming it would leave me alone
    assert name_friend_card(view, ctx, 2) == cards.card_id("H", "A")
    view.kitty = cards.parse("H:A A")  # both buried: naming it would leave me alone
    assert name_friend_card(view, ctx, 2) == cards.card_id("D", "A")


@pytest.mark.slow
def test_heuristic_seat_hand_win_share_against_random():
    """The find-friends strength metric (``agents.eval.arena.friend_win_share``): HeuristicAgent
    in one seat, RandomAgent in the other three, each deal rotated through the four seats."""
    from agents.baselines.heuristic import HeuristicAgent
    from agents.baselines.random import RandomAgent
    from agents.eval.arena import Deals, friend_win_share
    deals = Deals.generate(100, FF, seed=7)
    share = friend_win_share((HeuristicAgent(FF), RandomAgent()), deals, FF, seed=0)
    assert share.a_seat_hands == 400
    assert share.a_share >= 0.70 and share.a_share > share.b_share + 0.25


@pytest.mark.parametrize("decks", [3, 4])
def test_agrees_with_reference_with_three_and_four_decks(decks):
    """Find-friends and 3-4 decks together (RULES.md §10.6's 3+-deck friend rule)."""
    play_both_ff(FF.replace(decks=decks), seed=300 + decks, n=6)


@pytest.mark.slow
@pytest.mark.parametrize("decks", [3, 4])
def test_agrees_many_hands_three_and_four_decks(decks):
    _, _, stats = play_both_ff(FF.replace(decks=decks), seed=7000, n=300)
    assert stats["hands"] == 300


def test_training_evaluation_scores_find_friends_by_seat_hands():
    """train.py's evaluation under find-friends rules is the find-friends metric (seat-hands on
    the winning side, seats rotated), not a seat-parity "team" that does not exist there."""
    from types import SimpleNamespace

    from agents import HeuristicAgent, RandomAgent
    from agents.eval import Deals
    from agents.eval.arena import friend_win_share
    from agents.learners import runs

    deals = Deals.generate(4, FF, seed=3)
    heur, rand = HeuristicAgent(FF), RandomAgent(FF)
    got = runs.evaluate_against(heur, {"random": rand}, {"random": deals}, FF, seed=5)["random"]
    share = friend_win_share((heur, rand), deals, FF, seed=5)
    assert got["hands"] == 16 == share.a_seat_hands
    assert got["win_rate"] == share.a_share and got["win_rate_ci"] == list(share.a_ci)
    assert share.a_rewards.shape == (16,) and got["wins"] == int((share.a_rewards > 0).sum())
    assert got["mean_reward"] == pytest.approx(share.a_rewards.mean())
    cfg = SimpleNamespace(rules={"partnership": "FIND_FRIEND"},
                          eval=SimpleNamespace(sample=False, final_deals=4))
    assert "seat-hands" in runs.format_table({"random": got}, cfg, "run")
