"""Deep Monte-Carlo (``learner: dmc``): the target is the Monte-Carlo return, only legal plays
are chosen, the action features say what a play is, and a tiny run goes end to end (events,
checkpoint, exact resume, the checkpoint as an agent spec)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.base import Policy, TorchPolicy
from agents.learners.base import TrainContext
from agents.learners.dmc import DMCLearner, DMCOptions, mc_returns
from agents.learners.nets import PolicyValueNet
from agents.learners.play_q import SHAPE, action_features, feature_size
from shengji_env import Rules, cards
from shengji_env.core.observe import layout
from shengji_env.rules import canonical_order
from shengji_env.vector import VecEnv

ROOT = Path(__file__).resolve().parents[1]


def test_the_target_is_the_monte_carlo_return_of_each_seats_chain():
    # game 0, hand 0: seat 1 decides at steps 0, 4, 9; seat 2 at steps 2, 7; game 1: seat 0 once.
    # Rows are given out of order: the chains are found by (game, hand, seat, step).
    env = np.array([0, 0, 1, 0, 0, 0])
    hand = np.zeros(6, dtype=np.int64)
    seat = np.array([1, 2, 0, 1, 2, 1])
    step = np.array([9, 2, 0, 0, 7, 4])
    final = np.zeros((2, 1, 4), dtype=np.float32)
    final[0, 0] = [0.5, -2.0, 0.5, -2.0]
    final[1, 0] = [3.0, -3.0, 3.0, -3.0]
    g = 0.9
    want = [-2.0, 0.5 * g, 3.0, -2.0 * g * g, 0.5, -2.0 * g]
    np.testing.assert_allclose(mc_returns(env, hand, seat, step, final, g), want, rtol=1e-6)
    np.testing.assert_allclose(mc_returns(env, hand, seat, step, final, 1.0),
                               [-2.0, 0.5, 3.0, -2.0, 0.5, -2.0])


def _obs(rules, *, leading=True, lead=None, level=0, trump=0):
    at = layout(rules)
    obs = np.zeros(at[next(reversed(at))].stop, dtype=np.float32)
    obs[at["level"].start + level] = 1
    obs[at["trump"].start + trump] = 1
    obs[at["leading"].start] = float(leading)
    if lead is not None:  # led by my next player (relative seat 1)
        obs[at["trick"].start + 54: at["trick"].start + 108] = lead
        obs[at["trick_leader"].start + 1] = 1
    return obs


def test_action_features_describe_hand_made_plays():
    rules = Rules()  # 2 decks; level 2, spades trump
    names = {n: i for i, n in enumerate(SHAPE)}
    shape0 = feature_size(rules) - len(SHAPE)
    order = canonical_order(0, 0).astype(np.int64)
    plays = ["H:A A K K", "S:A A", "C:A K", "Jk:BJ", "H:A A 5", "H:A A K K Q Q 9 9"]
    f = action_features(np.stack([cards.parse(p) for p in plays]), _obs(rules), rules)
    shape = f[:, shape0:] * np.array([1, 4, 1, 1, 4, 4, 4, 4, 4, 1, 4, 4, 20])
    col = {n: shape[:, i].round(3).tolist() for n, i in names.items()}
    assert col["pairs / 4"] == [2, 1, 0, 0, 1, 4]
    assert col["singles / 4"] == [0, 0, 2, 1, 1, 0]
    assert col["pair links / 4"] == [1, 0, 0, 0, 0, 2]  # A-K-Q, then 9 9 apart (no J, 10)
    assert col["longest tractor / 4"] == [2, 0, 0, 0, 0, 3]
    assert col["throw"] == [0, 0, 1, 0, 1, 1]
    assert col["trump cards / 4"] == [0, 2, 0, 1, 0, 0]
    assert col["points / 20"] == [20, 0, 10, 0, 5, 20]
    assert col["cards / 4"] == [4, 2, 2, 1, 3, 8]
    assert col["lead"] == [1] * 6 and col["follow"] == [0] * 6
    # card counts in canonical order: heart ace and king are the first two slots under spades
    assert f[0, :54].tolist() == (cards.parse("H:A A K K")[order] / 2).tolist()
    assert f[0, 0] == 1 and f[0, 1] == 1
    # under hearts trump clubs are the first off-suit, as hearts are under spades: same slots
    g = action_features(cards.parse("C:A A K K")[None].astype(np.int64), _obs(rules, trump=1),
                        rules)
    np.testing.assert_array_equal(f[0], g[0])
    # a follow: cards in the lead's suit counted, no throw
    follow = action_features(cards.parse("H:3, D:4")[None].astype(np.int64),
                             _obs(rules, leading=False, lead=cards.parse("H:Q Q")), rules)
    s = follow[0, shape0:]
    assert s[names["follow"]] == 1 and s[names["throw"]] == 0
    assert s[names["cards in the lead's suit / 4"]] * 4 == 1


class CheckedEnv(VecEnv):  # also used by test_expert
    """A ``VecEnv`` that fails the test on any illegal action of a game still playing."""

    def reset(self, *a, **k):
        out = super().reset(*a, **k)
        self._mask = out[1].copy()
        return out

    def step(self, actions):
        live = self._mask.any(1)
        legal = self._mask[np.arange(self.num_envs), actions]
        assert legal[live].all(), f"illegal action in games {np.flatnonzero(live & ~legal)}"
        out = super().step(actions)
        self._mask = out[1].copy()
        return out


def _learner(rules, num_envs, epsilon, seed=0):
    torch.manual_seed(seed)
    venv = CheckedEnv(num_envs, rules, seed=0, reward="win")
    net = PolicyValueNet(rules, hidden=16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ctx = TrainContext(rules, venv, net, lambda: PolicyValueNet(rules, hidden=16), opt,
                       np.random.default_rng(seed), torch.Generator().manual_seed(seed), seed, 1, 1)
    return DMCLearner(DMCOptions(play_head=16, epsilon=epsilon, minibatch_size=256), ctx), net


@pytest.mark.parametrize("decks", [1, 2, pytest.param(3, marks=pytest.mark.slow),
                                   pytest.param(4, marks=pytest.mark.slow)])
def test_no_illegal_play_is_chosen_and_each_play_is_one_record(decks):
    rules = Rules(decks=decks)
    learner, net = _learner(rules, 2, epsilon=0.5, seed=decks)  # random and greedy choices
    batch, stats = learner.collect(1)
    assert stats["hands"] == 2 and stats["plays"] > 0
    # a seat's chain holds one record per play: far fewer than its card decisions
    assert stats["recorded"] < stats["decisions"]
    assert np.isfinite(batch.returns).all() and set(np.abs(batch.returns)) == {1.0}
    losses = learner.update(batch, 1)
    assert np.isfinite(losses["q_loss"])
    # the greedy policy that evaluation and checkpoints use: legal on every decision
    venv = CheckedEnv(2, rules, seed=decks)
    policy, rng = TorchPolicy(net), np.random.default_rng(0)
    obs, mask, _, _ = venv.reset(seed=7)
    finished = 0
    while finished < 2:  # a hand in each game (the VecEnv resets finished games itself)
        obs, mask, _, _, done, _ = venv.step(policy.act_batch(obs, mask, rng))
        finished += int(done.sum())


def _train_main(*args) -> int:
    """``train.py``'s exit code, run in this process (a subprocess imports torch again, ~3 s)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    return train.main(list(args))


def _train(*args):
    assert _train_main(*args) == 0


def test_dmc_trains_through_train_py_resumes_exactly_and_plays_as_an_agent_spec(tmp_path,
                                                                               monkeypatch):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.checkpoint import load_checkpoint
    from agents.specs import resolve

    cfg = {"run": {"name": "dmc", "num_envs": 1, "total_updates": 2, "checkpoint_every": 1,
                   "run_root": str(tmp_path), "reward": "win"},
           "rules": {"decks": 1}, "model": {"hidden": 16},
           "learner": {"name": "dmc", "play_head": 16, "epsilon": 0.2, "minibatch_size": 64},
           "eval": {"every": 1, "opponents": {"random": 1}, "final_deals": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    _train("--config", str(path), "--set", "run.name=full")
    _train("--config", str(path), "--set", "run.name=half", "--set", "run.total_updates=1")
    (half,) = tmp_path.glob("half__*")
    _train("--resume", str(half), "--set", "run.total_updates=2")
    (full,) = tmp_path.glob("full__*")
    a = load_checkpoint(full / "checkpoints" / "update_0000002.pt")
    b = load_checkpoint(half / "checkpoints" / "update_0000002.pt")
    assert a["format"] == "shengji-rl/dmc" and a["net"]["play_head"] == 16
    assert any(k.startswith("play.") for k in a["model"])
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert a["global_step"] == b["global_step"] and a["rng"]["numpy"] == b["rng"]["numpy"]
    ea = EventAccumulator(str(full))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    for tag in ("losses/q_loss", "dmc/plays", "perf/engine_s", "perf/forward_s",
                "perf/candidates_s", "eval/win_rate_vs_random", "eval_final/win_rate_vs_random"):
        assert tag in tags, tag
    policy = resolve(str(full), Rules(decks=1))  # the run folder as an agent spec
    assert isinstance(policy, Policy) and policy.module.play_head == 16
    venv = VecEnv(2, Rules(decks=1), seed=0)
    obs, mask, _, _ = venv.reset()
    assert mask[np.arange(2), policy.act_batch(obs, mask, np.random.default_rng(0))].all()


def test_dmc_is_refused_inside_a_schedule(tmp_path, capsys):
    cfg = {"run": {"name": "s", "num_envs": 2, "total_updates": 2, "run_root": str(tmp_path)},
           "rules": {"decks": 1}, "model": {"hidden": 16},
           "learner": [{"name": "imitation", "updates": 1}, {"name": "dmc", "play_head": 8}],
           "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    assert _train_main("--config", str(path)) == 2
    assert "only stage" in capsys.readouterr().err and not list(tmp_path.glob("s__*"))
