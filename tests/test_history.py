"""The search's record of the public play and the world filter (``agents.search.history``).

* the chain of a seat's decisions fixes every play in between: replayed from the true deal, the
  recorded plays reproduce every observation the seat received (the true world always passes);
* a sampled world is kept exactly when every follow in the recorded play was legal from the
  hand that world gave the follower then — checked with the scalar rules
  (``rules.play.is_legal_follow``), not the engine the filter replays;
* the agent uses it: some worlds are dropped, its plays stay legal, and a seeded agent playing
  the same hand twice makes the same decisions.
"""

import numpy as np

from agents import HeuristicAgent
from agents.search import PIMCAgent, UniformSampler
from agents.search.history import PlayHistory, consistent_worlds, interval_plays
from shengji_env import Rules
from shengji_env.core import Engine
from shengji_env.core.observe import decode
from shengji_env.rules import TrumpContext
from shengji_env.rules.actions import Phase
from shengji_env.rules.play import is_legal_follow

PLAY = int(Phase.PLAY)
CFG = Rules()


def decisions(seed: int):
    """``(state, observation, seat)`` at every PLAY decision with an empty selection of one
    hand played by HeuristicAgent in every seat."""
    h = HeuristicAgent(CFG)
    eng = Engine(CFG, 1, seed=seed)
    s = eng.reset()
    while not s.done[0]:
        mask = eng.legal_mask(s)[0]
        obs = eng.observe(s)[0]
        if s.phase[0] == PLAY and not s.selection[0].any():
            yield s.copy(), obs, int(s.to_act[0])
        a = h.act({"observation": obs, "action_mask": mask.astype(np.int8)})
        s, _, _ = eng.step(s, np.array([a]))


def true_world(s, seat: int):
    hands = np.stack([s.hands[0, (seat + r) % 4] for r in range(4)]).astype(np.uint8)
    return hands, s.kitty[0].astype(np.uint8)


def follows_legal(chain, hands, kitty) -> bool:
    """Every follow of the chain legal from the hand the world gives the follower then (the
    world's hands rewound to the chain's start, then the plays taken out in turn), by the
    scalar rules."""
    view0, last = chain[0][0], chain[-1][0]
    held = hands.astype(np.int64) + last.played - view0.played
    ctx = TrumpContext.from_rules(view0.level, view0.trump, CFG)
    trick = view0.trick
    lead = trick[view0.trick_leader].astype(np.int64) if trick.any() else None
    for (before, _), (after, _) in zip(chain, chain[1:]):
        for seat, cards, leads in interval_plays(before, after):
            cards = cards.astype(np.int64)
            if leads:
                lead = cards
            elif not is_legal_follow(held[seat], lead, cards, ctx, CFG):
                return False
            held[seat] -= cards
    return True


def test_true_world_passes_and_the_filter_is_the_follow_rules():
    eng, sampler, rng = Engine(CFG, 1), UniformSampler(CFG), np.random.default_rng(0)
    checked = rejected = 0
    for seed in (3,):
        history = PlayHistory()
        for s, obs, seat in decisions(seed):
            view = decode(obs, CFG)
            chain = history.record(view, obs)
            if view.tricks_done > 0:
                assert len(chain) > 1  # consecutive decisions of a seat chain up
            hands, kitty = sampler.sample(view, 16, rng)
            hands[0], true_kitty = true_world(s, seat)
            if view.dealer != 0:
                kitty[0] = true_kitty
            keep, _ = consistent_worlds(eng, chain, hands, kitty)
            assert keep[0], "the true deal must agree with the play it made"
            if len(chain) > 2:
                for w in range(len(hands)):
                    assert keep[w] == follows_legal(chain, hands[w], kitty[w])
                checked += len(hands)
                rejected += int((~keep).sum())
    assert checked > 300 and rejected > 30


def test_agent_filters_worlds_and_is_reproducible():
    """Five tricks of one hand, the agent in seats 0 and 2: played twice with the filter (the
    same plays), then with the likelihood weighting and without a filter (every sampled world
    kept); every play legal."""
    def play(belief, tricks=5):
        agent = PIMCAgent(CFG, worlds=3, recheck=3, candidates=3, seed=1, rollout="random",
                          belief=belief)
        heur = HeuristicAgent(CFG)
        eng = Engine(CFG, 1, seed=5)
        s = eng.reset()
        made = []
        while int(s.tricks_done[0]) < tricks:
            mask = eng.legal_mask(s)[0]
            obs = {"observation": eng.observe(s)[0], "action_mask": mask.astype(np.int8)}
            a = (agent if int(s.to_act[0]) % 2 == 0 else heur).act(obs)
            assert mask[a]
            made.append(a)
            s, _, _ = eng.step(s, np.array([a]))
        return made, agent.stats
    first, stats = play("consistent")
    again, _ = play("consistent")
    assert first == again
    assert 0 < stats["kept"] < stats["sampled"]
    _, weighted = play("likelihood", tricks=3)
    assert 0 < weighted["kept"] < weighted["sampled"]
    _, plain = play("uniform", tricks=2)
    assert plain["kept"] == plain["sampled"]
