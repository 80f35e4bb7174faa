"""The search benchmark (``benchmarks/bench_search.py``): the oracle's worlds (``eval --oracle``)
are the true deal, seen from the searching seat; ``eval`` resumes a stopped run and its records
count each hand once; ``curve`` reports the win rate and the time per decision for each number
of worlds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_search import OracleSampler, eval_paired, eval_part, eval_summary  # noqa: E402

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


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


HAND = {"deal": 0, "a_seats": 0, "a_reward": 1.0, "a_dealer": True, "attacker_points": 55}
OTHER = {"deal": 0, "a_seats": 1, "a_reward": -1.0, "a_dealer": False, "attacker_points": 95}


def test_eval_resumes_without_playing_the_hands_it_has(tmp_path):
    out = tmp_path / "r.jsonl"
    _write(out, [HAND, OTHER])  # both seatings of the one deal: nothing is left to play
    eval_part(1, 0, 1, str(out), seed=0)  # it would take seconds of search per hand
    assert out.read_text().count("\n") == 2


def test_records_count_each_hand_once_and_refuse_two_results_for_one_hand(tmp_path):
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    _write(a, [HAND, OTHER, HAND])  # a run restarted before eval resumed: HAND twice
    assert eval_summary([str(a)])["hands"] == 2 and eval_summary([str(a)])["wins"] == 1
    assert eval_paired([str(a)], [str(a)])["hands"] == 2
    _write(b, [{**HAND, "a_reward": -1.0}])  # deal 0 of another deal set
    assert eval_summary([str(a), str(b)])["hands"] == 3  # several deal sets: files add up
    with pytest.raises(ValueError, match="pair the records of one deal set"):
        eval_paired([str(a), str(b)], [str(a)])
    _write(c, [HAND, {**HAND, "a_reward": -1.0}])
    with pytest.raises(ValueError, match="recorded twice with different results"):
        eval_summary([str(c)])


def test_friends_records_each_seat_hand_once_with_its_role_and_resumes(tmp_path):
    """``friends`` (issue 13's metric in the reference game): four seat-hands per deal, the
    agent's seat rotated, each with the role the game gave it; a second run adds nothing; the
    summary counts what the records hold."""
    from bench_search import friends_part, friends_summary

    out = str(tmp_path / "friends.jsonl")
    friends_part(2, 0, 1, out, agent="heuristic")
    friends_part(2, 0, 1, out, agent="heuristic")  # resumes: nothing left to play
    rows = [json.loads(line) for line in open(out)]
    assert sorted((r["deal"], r["seat"]) for r in rows) == [(d, s) for d in range(2)
                                                            for s in range(4)]
    assert {r["role"] for r in rows} <= {"dealer", "friend", "attacker"}
    summary = friends_summary([out])
    assert summary["seat_hands"] == 8 and summary["won"] == sum(r["won"] for r in rows)
    roles = summary["roles"]
    assert sum(v["seat_hands"] for v in roles.values()) == 8
    for role, v in roles.items():
        mine = [r["won"] for r in rows if r["role"] == role]
        assert v["share"] == (sum(mine) / len(mine) if mine else 0.0)


def test_repeat_searches_the_same_states_again_and_one_seed_repeats_itself_exactly():
    """``repeat`` re-searches exactly the searched decisions of the hand: an agent with the
    first one's seed makes every play again (the search is seeded per observation), one with
    another seed makes some other plays."""
    from bench_search import repeat_searches

    cheap = {"worlds": 3, "recheck": 3, "candidates": 3, "exact_tricks": 0, "bury": 0}
    r = repeat_searches(1, 0, seed=4, options=cheap, other_seeds=[4, 5])
    assert r["decisions"] > 10 and r["searches_per_decision"] == 3
    first, same_seed, _ = r["departure_rate"]
    assert same_seed == first and r["same_as_first_per_seed"][0] == 1.0
    assert r["same_as_first_per_seed"][1] < 1 and r["all_same"] < 1
    assert r["same_as_first"] == pytest.approx(np.mean(r["same_as_first_per_seed"]), abs=1e-4)
    if r["departures"]:
        # the mean over the two seeds, and the first seed's own repeats every departure
        assert 0.5 <= r["departure_repeated"] <= 1
