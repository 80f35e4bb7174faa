"""``HeuristicAgent`` in fixed partnership is the benchmark opponent of every result in the repo
(PPO, search, the learner comparison): its decisions there must not change when the find-friends
play is tuned. The digest below is of main's code before the find-friends work (commit 7b2df3c):
every action of 20 seeded fixed-partnership hands, 1-4 decks, the heuristic in seats 0 and 2 and
``RandomAgent`` in seats 1 and 3 (so the heuristic meets varied play)."""

import hashlib

import numpy as np

from agents.baselines.heuristic import HeuristicAgent
from agents.baselines.random import RandomAgent
from agents.eval.arena import Deals
from shengji_env.core import Engine
from shengji_env.rules import Rules

MAIN_DIGEST = "6d8195c91eaae02fd390df040828aafc85b8b1f9a8640ffbb2518737218e859a"


def heuristic_actions_digest(hands_per_deck_count: int = 5) -> str:
    """sha256 of every action (heuristic and random) of the seeded hands, decks 1-4 in order."""
    h = hashlib.sha256()
    for decks in (1, 2, 3, 4):
        rules = Rules(decks=decks)
        deals = Deals.generate(hands_per_deck_count, rules, seed=100 + decks)
        n = len(deals)
        eng = Engine(rules, n, seed=decks)
        s = eng.reset(decks=deals.decks.astype(np.int64), first_drawers=deals.first_drawers)
        heur, rand = HeuristicAgent(rules, strict=True), RandomAgent(rules)
        rng = np.random.default_rng(decks)
        actions = np.zeros(n, dtype=np.int64)
        while not s.done.all():
            mask, obs, live = eng.legal_mask(s), eng.observe(s), ~s.done
            mine = live & (np.maximum(s.to_act, 0) % 2 == 0)
            actions[:] = 0
            for policy, rows in ((heur, np.flatnonzero(mine)), (rand, np.flatnonzero(live & ~mine))):
                if rows.size:
                    actions[rows] = policy.act_batch(obs[rows], mask[rows], rng)
            h.update(np.where(live, actions, -1).astype(np.int64).tobytes())
            s, _, _ = eng.step(s, actions)
    return h.hexdigest()


def test_fixed_partnership_decisions_are_unchanged():
    assert heuristic_actions_digest() == MAIN_DIGEST
