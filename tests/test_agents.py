"""Agents: the Policy protocol and adapter, RandomAgent, HeuristicAgent (legality, statelessness,
and the obvious right play in hand-written positions)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import BasePolicy, Policy, policy_from_fn
from agents.baselines import RandomAgent
from agents.baselines.heuristic import HeuristicAgent, plan_bury, trump_strength
from shengji_env import Rules, cards
from shengji_env.core.observe import observe_game
from shengji_env.rules import TrumpContext
from shengji_env.rules.actions import END, PASS, Phase
from shengji_env.rules.declare import DECLARE_BASE, DeclareState
from shengji_env.rules.game import Game

A = 66  # actions with the default rules
N = observe_game(Game(Rules(), seed=0)).size


def random_batch(rng, b=8):
    obs = rng.random((b, N)).astype(np.float32)
    mask = rng.random((b, A)) < 0.2
    mask[np.arange(b), rng.integers(0, A, b)] = True
    return obs, mask


# ------------------------------------------------------------------------ protocol, adapter

def test_builtin_agents_are_policies():
    assert isinstance(RandomAgent(), Policy)
    assert isinstance(HeuristicAgent(Rules()), Policy)
    assert isinstance(policy_from_fn(lambda obs: 0), Policy)


def test_base_policy_needs_one_method():
    with pytest.raises(TypeError, match="act"):
        class Empty(BasePolicy):
            pass


def test_base_policy_derives_the_other_method():
    class First(BasePolicy):
        def act(self, obs, rng):
            return int(np.flatnonzero(obs["action_mask"])[0])

    class FirstBatched(BasePolicy):
        def act_batch(self, obs, mask, rng):
            return np.asarray(mask).argmax(axis=1)

    rng = np.random.default_rng(0)
    obs, mask = random_batch(rng)
    want = mask.argmax(axis=1)
    assert (First().act_batch(obs, mask, rng) == want).all()
    assert FirstBatched().act({"observation": obs[0], "action_mask": mask[0].astype(np.int8)},
                              rng) == want[0]


def test_random_agent_is_uniform_over_legal_actions():
    rng = np.random.default_rng(1)
    mask = np.zeros((20000, A), dtype=bool)
    mask[:, [3, 10, 54]] = True
    acts = RandomAgent().act_batch(np.zeros((20000, N), np.float32), mask, rng)
    counts = np.bincount(acts, minlength=A)
    assert set(np.flatnonzero(counts)) == {3, 10, 54}
    assert np.allclose(counts[[3, 10, 54]] / 20000, 1 / 3, atol=0.02)


def test_batch_errors_teach():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="allows no action"):
        RandomAgent().act({"observation": np.zeros(N, np.float32),
                           "action_mask": np.zeros(A, np.int8)}, rng)
    with pytest.raises(ValueError, match=r"float32\[B, N\]"):
        RandomAgent().act_batch(np.zeros(N, np.float32), np.ones(A, bool), rng)
    with pytest.raises(ValueError, match="one mask row per observation"):
        RandomAgent().act_batch(np.zeros((3, N), np.float32), np.ones((2, A), bool), rng)


@pytest.mark.parametrize("agent", [
    RandomAgent(), HeuristicAgent(Rules(), strict=True),
    policy_from_fn(lambda o: int(np.flatnonzero(o["action_mask"])[0]))])
def test_finished_games_in_a_batch_get_action_zero(agent):
    """The batched engine keeps finished games (all-False mask rows) until they are reset."""
    rng = np.random.default_rng(0)
    obs = observe_game(Game(Rules(), seed=0))
    mask = np.zeros((2, A), bool)
    mask[1, PASS] = True
    acts = agent.act_batch(np.stack([obs, obs]), mask, rng)
    assert acts[0] == 0 and acts[1] == PASS


def test_policy_from_plain_functions():
    rng = np.random.default_rng(0)
    obs, mask = random_batch(rng)
    first = policy_from_fn(lambda o: int(np.flatnonzero(o["action_mask"])[0]), name="first")
    assert first.name == "first"
    assert (first.act_batch(obs, mask, rng) == mask.argmax(axis=1)).all()
    # scores over the actions: masked argmax, illegal entries never chosen
    scores = policy_from_fn(lambda o, r: np.arange(A, dtype=float))
    assert (scores.act_batch(obs, mask, rng) == A - 1 - mask[:, ::-1].argmax(axis=1)).all()
    batched = policy_from_fn(lambda o, m: m.argmax(axis=1), batched=True)
    assert (batched.act_batch(obs, mask, rng) == mask.argmax(axis=1)).all()
    assert batched.act({"observation": obs[0], "action_mask": mask[0]}, rng) == mask[0].argmax()
    bad = policy_from_fn(lambda o: 65 if not o["action_mask"][65] else 64, name="bad")
    m = np.zeros(A, bool)
    m[3] = True
    with pytest.raises(ValueError, match="illegal action 65"):
        bad.act({"observation": obs[0], "action_mask": m}, rng)


def test_policy_from_torch_module():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Linear(N, A)
    rng = np.random.default_rng(0)
    obs, mask = random_batch(rng, 16)
    greedy = policy_from_fn(net)
    acts = greedy.act_batch(obs, mask, rng)
    assert mask[np.arange(16), acts].all()
    with torch.no_grad():
        logits = net(torch.as_tensor(obs)).numpy()
    assert (acts == np.where(mask, logits, -np.inf).argmax(axis=1)).all()
    sampler = policy_from_fn(net, sample=True)
    a1 = sampler.act_batch(obs, mask, np.random.default_rng(5))
    a2 = sampler.act_batch(obs, mask, np.random.default_rng(5))
    assert (a1 == a2).all() and mask[np.arange(16), a1].all()


# -------------------------------------------------------------------- heuristic legality

def play_random_hands(n_hands, rules, seed, layouts=("HRHR", "RHRH", "HHHH")):
    """Play hands with the heuristic (strict: internal errors raise) in mixed seatings; return
    the number of heuristic decisions. Game.step rejects any illegal action."""
    decisions = 0
    for k in range(n_hands):
        h = HeuristicAgent(rules, strict=True)
        r = RandomAgent()
        layout = layouts[k % len(layouts)]
        game = Game(rules, seed=seed + k)
        rng = np.random.default_rng(seed + k)
        while not game.done:
            seat = game.to_act
            mask = game.legal_mask()
            agent = h if layout[seat] == "H" else r
            a = agent.act({"observation": observe_game(game), "action_mask": mask.astype(np.int8)},
                          rng)
            assert mask[a]
            decisions += agent is h
            game.step(a)
        assert h.fallbacks == 0
    return decisions


def test_heuristic_always_legal_100_hands():
    assert play_random_hands(100, Rules(), seed=1000) > 100 * 50


@pytest.mark.slow
def test_heuristic_always_legal_1000_hands():
    play_random_hands(1000, Rules(), seed=50_000)


@pytest.mark.parametrize("options", [
    {"decks": 1},
    {"failed_throw_choice": "NEXT_PLAYER"},
    {"follow_partial_tractor": True, "ruff_match": "COUNT_ONLY", "throw_comparison": "ALL_UNITS"},
    {"declaration_mode": "FIXED", "fixed_trump": "NT"},
    {"always_trump_two": True, "kitty_point_cards_allowed": False,
     "initial_first_drawer": "RANDOM"},
])
def test_heuristic_legal_under_rule_variants(options):
    play_random_hands(6, Rules(**options), seed=7)


def test_heuristic_legal_in_a_match():
    """Later hands (levels above 2, a fixed dealer) through a short match."""
    rules = Rules(declaration_mode="POST_DEAL_PARTNER_FIRST")
    h = HeuristicAgent(rules, strict=True)
    game = Game(rules, seed=3, episode="match")
    rng = np.random.default_rng(3)
    while not game.done and game.hands_played < 3:
        mask = game.legal_mask()
        a = h.act({"observation": observe_game(game), "action_mask": mask.astype(np.int8)}, rng)
        assert mask[a]
        game.step(a)
    assert game.hands_played == 3


def test_heuristic_is_a_function_of_the_observation():
    """Stateless: a fresh agent picks the same action at every decision of a game, including
    in the middle of a multi-card play (the plan is re-derived from hand and selection)."""
    rules = Rules()
    h = HeuristicAgent(rules, strict=True)
    game = Game(rules, seed=11)
    rng = np.random.default_rng(0)
    checked = 0
    while not game.done:
        obs = {"observation": observe_game(game), "action_mask": game.legal_mask().astype(np.int8)}
        a = h.act(obs, rng)
        if game.selection.any() or checked % 7 == 0:
            assert HeuristicAgent(rules, strict=True).act(obs, rng) == a
        checked += 1
        game.step(a)


# ----------------------------------------------------------------------- scenario positions

def position(hands: dict, trick=(), leader=0, trump="S", level="2", dealer=0, phase=Phase.PLAY,
             voids=None, played=None, rules=None) -> Game:
    """A reference ``Game`` put into a hand-written position (state set directly).

    ``hands``: seat → cards in RULES.md §1.2 notation; ``trick``: the plays so far, in order
    from ``leader``; ``voids``: seat → effective suits (0-3, 4 = trump) known void.
    """
    rules = rules or Rules()
    g = Game(rules, seed=0, deck=np.repeat(np.arange(54), rules.decks))
    g.phase = phase
    g.level = cards.rank_index(level)
    g.levels = [g.level, g.level]
    g.trump = "SHCD".index(trump) if trump != "NT" else 4
    g.ctx = TrumpContext.from_rules(g.level, g.trump, rules)
    g.dealer = dealer
    g.declare_state = DeclareState(None, None)
    g.dealt = 4 * rules.hand_size
    g.hands[:] = 0
    for seat, text in hands.items():
        g.hands[seat] = cards.parse(text)
    g.selection = np.zeros(54, np.uint8)
    g.played = np.zeros((4, 54), np.uint8)
    for seat, text in (played or {}).items():
        g.played[seat] = cards.parse(text)
    g.voids = np.zeros((4, 5), bool)
    for seat, suits in (voids or {}).items():
        g.voids[seat, list(suits)] = True
    g.kitty = np.zeros(54, np.uint8)
    g.picked_up = np.zeros(54, np.uint8)
    g.trick = {}
    g.leader = leader
    for i, text in enumerate(trick):
        g.trick[(leader + i) % 4] = cards.parse(text)
    g.lead = g.trick[leader] if trick else None
    g.to_act = dealer if phase == Phase.BURY else (leader + len(trick)) % 4
    return g


def heuristic_play(g: Game) -> str:
    """Let the heuristic act for the seat to act until its play (or bury) is made."""
    seat, h = g.to_act, HeuristicAgent(g.cfg, strict=True)
    rng = np.random.default_rng(0)
    if g.phase == Phase.BURY:
        before = g.hands[seat].copy()
        while g.phase == Phase.BURY:
            g.step(h.act({"observation": observe_game(g),
                          "action_mask": g.legal_mask().astype(np.int8)}, rng))
        return cards.format(before - g.hands[seat])
    done = g.tricks_done
    while seat not in g.trick and g.tricks_done == done:
        g.step(h.act({"observation": observe_game(g),
                      "action_mask": g.legal_mask().astype(np.int8)}, rng))
    if g.tricks_done > done:  # my play completed the trick
        leader, plays, _ = g.last_trick
        return cards.format(plays[(seat - leader) % 4])
    return cards.format(g.trick[seat])


def test_gives_points_to_a_winning_partner():
    # seat 0 leads the top heart; seat 2 (partner) follows with the 10, not a low heart
    g = position({2: "H:10 6 4, C:9 8 7, D:5 3", 0: "H:3", 1: "H:2", 3: "H:5"},
                 trick=["H:A", "H:8"], leader=0, trump="S")
    assert heuristic_play(g) == "H:10"
    # void in the led suit: discard a point card of a side suit, not a trump or a low card
    g = position({2: "S:6 4, C:K 9 8 7, D:3", 0: "H:3", 1: "H:2", 3: "H:5"},
                 trick=["H:A", "H:8"], leader=0, trump="S")
    assert heuristic_play(g) == "C:K"
    # but an opponent winning the trick gets the cheapest card, not the points
    g = position({2: "H:10 6 4, C:9 8 7, D:5 3", 0: "H:3", 1: "H:2", 3: "H:5"},
                 trick=["H:8", "H:A"], leader=0, trump="S")
    assert heuristic_play(g) == "H:4"


def test_ruffs_a_point_trick_when_void():
    # seat 3 leads C:K (10 points); seat 0 has no clubs: ruff with the lowest trump
    g = position({0: "S:Q 4 3, H:9 6, D:8 7, Jk:BJ", 1: "C:2", 2: "C:3", 3: "C:4"},
                 trick=["C:K"], leader=3, trump="S")
    assert heuristic_play(g) == "S:3"
    # a pair of clubs with points: ruff with the lowest trump pair
    g = position({0: "S:Q Q 4 4 3, H:9 6, D:8 7, Jk:BJ", 1: "C:2 2", 2: "C:3 3", 3: "C:4 4"},
                 trick=["C:10 10"], leader=3, trump="S")
    assert heuristic_play(g) == "S:4 4"


def test_wins_a_point_trick_with_the_smallest_winner():
    # last to play, 10 points on the table: J is enough, the A stays in hand
    g = position({3: "H:A J 7, C:9 8", 0: "H:3", 1: "H:2", 2: "H:5"},
                 trick=["H:9", "H:4", "H:10"], leader=0, trump="S")
    assert heuristic_play(g) == "H:J"


def test_leads_safe_winners_as_a_throw():
    # both aces and the king of clubs: nothing unseen can beat them, the throw stands
    g = position({0: "C:A A K 4, D:9 8 3, H:7 5, S:6", 1: "C:3", 2: "C:5", 3: "C:6"},
                 leader=0, trump="S")
    assert heuristic_play(g) == "C:A A K"
    assert g.lead is not None and cards.format(g.lead) == "C:A A K"  # the throw stood


def test_buries_to_void_a_short_suit():
    # dealer holds 33 cards; clubs are short (C:9 7 4): bury them, no trump, no points
    hand = ("S:A K Q 10 9 8 7 6, H:A K Q J 10 9 8 7 6 5 3, C:9 7 4, D:A K Q J 9 8 7 6 3, Jk:BJ LJ")
    assert cards.parse(hand).sum() == 33
    g = position({0: hand}, phase=Phase.BURY, dealer=0, trump="S")
    buried = cards.parse(heuristic_play(g))
    assert buried.sum() == 8
    assert buried[cards.parse("C:9 7 4") > 0].sum() == 3  # clubs voided
    assert cards.points(buried) == 0
    ctx = TrumpContext.from_rules(0, 0, Rules())
    assert not (buried > 0)[ctx.effective_suits == 4].any()  # no trump buried


def test_bury_plan_is_trump_only_when_forced():
    ctx = TrumpContext.from_rules(0, 0, Rules())
    hand = cards.parse("S:A A K K Q Q J J 10 10 9 9 8 8 7 7 6 6 5 5 4 4 3 3, "
                       "H:2 2, C:2, Jk:BJ BJ, D:9 8 7 6")
    assert hand.sum() == 33
    bury = plan_bury(hand, ctx, 8)
    assert bury.sum() == 8 and bury[cards.parse("D:9 8 7 6") > 0].sum() == 4
    assert cards.points(bury) == 0
    # 1-deck tradition (kitty_point_cards_allowed=False): low trumps before any point card
    hand = cards.parse("S:A A K K Q Q J J 10 10 9 9 8 8 7 7 6 6 4 4, H:10 10 K K 5, D:9 8 7 6")
    assert hand.sum() == 29
    bury = plan_bury(hand, ctx, 8, points_allowed=False)
    assert cards.points(bury) == 0 and bury[cards.parse("D:9 8 7 6") > 0].sum() == 4
    assert cards.format(bury.astype(np.uint8)) == "S:6 6 4 4, D:9 8 7 6"


def test_declares_with_long_trump_only():
    rules = Rules()
    strong = cards.parse("S:2 A K 9 7 5, H:4, C:6 3, D:8")
    weak = cards.parse("S:2, H:A K 9 7 4, C:6 3, D:8 5")
    assert trump_strength(strong, 0, 0) > trump_strength(weak, 0, 0)
    for hand, want in ((strong, DECLARE_BASE + 0), (weak, PASS)):
        g = Game(rules, seed=0)
        g.phase, g.to_act = Phase.DECLARE, 0
        g.hands[:] = 0
        g.hands[0] = hand
        g.dealt = 40
        mask = g.legal_mask()
        assert mask[DECLARE_BASE + 0]  # S:2 can be shown
        h = HeuristicAgent(rules, strict=True)
        assert h.act({"observation": observe_game(g), "action_mask": mask.astype(np.int8)},
                     None) == want


def test_a_heuristic_that_does_not_declare_passes_with_a_strong_hand():
    from agents.specs import resolve

    rules = Rules()
    g = Game(rules, seed=0)
    g.phase, g.to_act = Phase.DECLARE, 0
    g.hands[:] = 0
    g.hands[0] = cards.parse("S:2 A K 9 7 5, H:4, C:6 3, D:8")  # the default declares it
    g.dealt = 40
    obs = {"observation": observe_game(g), "action_mask": g.legal_mask().astype(np.int8)}
    assert HeuristicAgent(rules, strict=True).act(obs, None) == DECLARE_BASE + 0
    passive = resolve("heuristic?declare=false", rules)
    assert passive.declare is False and passive.act(obs, None) == PASS
    with pytest.raises(ValueError, match="declare"):
        resolve("heuristic?declare=2", rules)


def test_leader_ends_its_planned_lead():
    g = position({0: "C:A A K 4, D:9", 1: "C:3", 2: "C:5", 3: "C:6"}, leader=0, trump="S")
    h = HeuristicAgent(g.cfg, strict=True)
    actions = []
    while 0 not in g.trick:
        actions.append(h.act({"observation": observe_game(g),
                              "action_mask": g.legal_mask().astype(np.int8)}, None))
        g.step(actions[-1])
    assert actions[-1] == END and len(actions) == 4


def test_completes_a_selection_it_did_not_start():
    """Under e.g. epsilon-greedy another policy may choose the first cards of a play."""
    g = position({0: "C:A A K 4, D:9", 1: "C:3", 2: "C:5", 3: "C:6"}, leader=0, trump="S")
    g.step(cards.card_id("C", "4"))  # not what the heuristic would lead
    h = HeuristicAgent(g.cfg, strict=True)
    assert h.act({"observation": observe_game(g),
                  "action_mask": g.legal_mask().astype(np.int8)}, None) == END
    g = position({1: "H:Q Q 9 9 4, C:3", 0: "H:3", 2: "H:5", 3: "H:6"},
                 trick=["H:7 7"], leader=0, trump="S")
    g.step(cards.card_id("H", "Q"))  # the heuristic would duck with the nines
    a = h.act({"observation": observe_game(g), "action_mask": g.legal_mask().astype(np.int8)},
              None)
    assert a == cards.card_id("H", "Q")  # the only legal completion


def test_heuristic_through_the_batched_engine():
    """The engine's observations are the reference encoding: the heuristic plays there too."""
    from shengji_env.core import Engine

    rules = Rules()
    eng = Engine(rules, num_games=4, seed=21)
    state = eng.reset()
    h, r = HeuristicAgent(rules, strict=True), RandomAgent()
    rng = np.random.default_rng(0)
    while not state.done.all():
        mask, obs = eng.legal_mask(state), eng.observe(state)
        acts = r.act_batch(obs, mask, rng)
        mine = np.flatnonzero((state.to_act % 2 == 0) & ~state.done)
        acts[mine] = h.act_batch(obs[mine], mask[mine], rng)
        state, _, _ = eng.step(state, acts)
    assert h.fallbacks == 0
