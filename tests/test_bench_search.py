"""The search benchmark (``benchmarks/bench_search.py``): the oracle's worlds (``eval --oracle``)
are the true deal, seen from the searching seat; ``curve`` reports the win rate and the time per
decision for each number of worlds."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_search import OracleSampler  # noqa: E402

from agents import HeuristicAgent  # noqa: E402
from agents.search.sampler import KITTY, consistent, constraints_from_view  # noqa: E402
from shengji_env import Rules  # noqa: E402
from shengji_env.core.observe import decode, observe_game  # noqa: E402
from shengji_env.rules.actions import Phase  # noqa: E402
from shengji_env.rules.game import Game  # noqa: E402


def test_oracle_worlds_are_the_true_deal_from_the_searching_seat():
    rules = Rules()
    heur = HeuristicAgent(rules)
    checked = 0
    for seed in range(3):
        game = Game(rules, seed)
        oracle = OracleSampler()
        oracle.attach(game)
        while game.phase != Phase.OVER:
            seat = game.to_act
            obs = observe_game(game, seat)
            view = decode(obs, rules)
            if game.phase == Phase.PLAY and not view.selection.any():
                hands, kitty = oracle.sample(view, 2, np.random.default_rng(0))
                assert hands.shape == (2, 4, 54) and kitty.shape == (2, 54)
                assert np.array_equal(hands[0], hands[1])
                for r in range(4):
                    assert np.array_equal(hands[0, r], game.hands[(seat + r) % 4])
                # the world is one the seat's own constraints allow (relative seats, voids,
                # hand sizes mid-trick): a wrong rotation of the seats would break them
                cons = constraints_from_view(view, rules)
                holders = hands[0, 1:].astype(np.int64)
                if cons.num_holders > KITTY:
                    holders = np.vstack([holders, kitty[0][None].astype(np.int64)])
                assert consistent(cons, holders)
                checked += 1
            mask = np.zeros(game.legal_mask().size, dtype=np.int8)
            mask[game.legal_actions()] = 1
            game.step(heur.act({"observation": obs, "action_mask": mask}))
    assert checked > 100


@pytest.mark.slow  # ~6-10 s: six hands of search
def test_curve_reports_the_win_rate_and_the_time_per_decision_for_each_worlds_count():
    from bench_search import curve

    # one deal (two hands) per W; no bury search or heuristic endgame, to keep it short
    rows = curve([1, 2], deals=1, workers=1, candidates=2, options={"bury": 0, "endgame": 0},
                 time_hands=1)
    assert [r["worlds"] for r in rows] == [1, 2]
    for r in rows:
        assert r["hands"] == 2 and 0.0 <= r["win_rate"] <= 1.0
        assert r["ci95"][0] <= r["win_rate"] <= r["ci95"][1]
        assert r["searched"] > 0 and 0.0 < r["cpu_median_s"] <= r["cpu_p90_s"]
        assert r["rollouts_per_decision"] > 0
