"""The imitation warm start: every decision is labelled with the teacher's action, pure teacher
hands are the teacher's games, the value target is the seat's (shaped) return, and the update
actually learns the labels."""

from __future__ import annotations

import numpy as np
import torch

from agents import HeuristicAgent
from agents.learners.imitation import collect_demonstrations, imitation_update
from agents.learners.nets import PolicyValueNet
from agents.learners.ppo import potential
from shengji_env import Rules
from shengji_env.core.observe import layout
from shengji_env.vector import VecEnv

RULES = Rules()


def demos_for(student_prob: float, shaping: float = 0.0, num_envs: int = 4, seed: int = 3):
    torch.manual_seed(0)
    net = PolicyValueNet(RULES, hidden=32)
    venv = VecEnv(num_envs, RULES, seed=0, reward="win")
    return collect_demonstrations(
        venv, HeuristicAgent(RULES), net, seed=seed, update=1, hands_per_env=1,
        student_prob=student_prob, np_rng=np.random.default_rng(seed),
        gen=torch.Generator().manual_seed(seed), shaping=shaping)


def test_every_decision_is_labelled_with_the_teachers_action():
    demos, stats = demos_for(student_prob=1.0)
    assert stats["student_fraction"] == 1.0 and 0 <= stats["student_agreement"] < 1
    assert demos.mask[np.arange(len(demos)), demos.actions].all()
    again = HeuristicAgent(RULES).act_batch(demos.obs, demos.mask, np.random.default_rng(9))
    np.testing.assert_array_equal(again, demos.actions)


def test_teacher_only_hands_are_the_teachers_games():
    demos, stats = demos_for(student_prob=0.0)
    assert stats["student_agreement"] is None and stats["win_rate_vs_teacher"] is None
    assert stats["decisions"] == len(demos) and stats["hands"] == 4
    # the same hands played by the teacher alone, through the same VecEnv seeds
    venv = VecEnv(4, RULES, seed=0, reward="win")
    from agents.learners.rollout import update_seeds

    obs, mask, _, _ = venv.reset(seed=update_seeds(3, 1, 4))
    teacher, played, done_all = HeuristicAgent(RULES), [], np.zeros(4, dtype=bool)
    while not done_all.all():
        a = teacher.act_batch(obs, mask, np.random.default_rng(0))
        played.append(a[~done_all])
        obs, mask, _, _, done, _ = venv.step(a)
        done_all |= done
    np.testing.assert_array_equal(np.sort(np.concatenate(played)), np.sort(demos.actions))
    assert set(np.unique(demos.returns)) <= {-1.0, 1.0}  # "win" reward, no shaping


def test_value_target_is_the_shaped_return():
    plain, _ = demos_for(student_prob=0.0)
    shaped, _ = demos_for(student_prob=0.0, shaping=2.5)
    np.testing.assert_array_equal(plain.actions, shaped.actions)
    phi = potential(plain.obs, layout(RULES))
    np.testing.assert_allclose(shaped.returns, plain.returns - 2.5 * phi, atol=1e-6)
    assert (phi != 0).any()


def test_imitation_update_learns_the_labels():
    demos, _ = demos_for(student_prob=0.0, num_envs=2)
    torch.manual_seed(0)
    net = PolicyValueNet(RULES, hidden=64, card_head=8)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    rng = np.random.default_rng(0)
    first = imitation_update(net, opt, demos, epochs=1, minibatch_size=128, vf_coef=0.5,
                             max_grad_norm=1.0, np_rng=rng)
    last = imitation_update(net, opt, demos, epochs=40, minibatch_size=128, vf_coef=0.5,
                            max_grad_norm=1.0, np_rng=rng)
    assert last["imitation_loss"] < 0.5 * first["imitation_loss"]
    assert last["accuracy"] > 0.9 > first["accuracy"]
    assert last["value_loss"] < first["value_loss"]


def play_out(pick_option: bool, seed: int = 5, num_envs: int = 8):
    """Hands of HeuristicAgent in all seats; with ``pick_option`` each decision takes a random
    member of ``act_with_options``' set instead of the action itself. → (rewards, every seat's
    final observation, attacker points) per game, and the number of decisions with a choice
    of order. (The number of decisions may differ: an order can leave a forced last card,
    which the VecEnv plays itself.)"""
    venv = VecEnv(num_envs, RULES, seed=seed, reward="points")
    teacher, rng = HeuristicAgent(RULES, strict=True), np.random.default_rng(seed)
    obs, mask, _, _ = venv.reset()
    done_all = np.zeros(num_envs, dtype=bool)
    rewards = np.zeros((num_envs, 4))
    points, final = np.zeros(num_envs), np.zeros((num_envs, 4, venv.obs_size), np.float32)
    multi = 0
    while not done_all.all():
        actions, options = teacher.act_with_options(obs, mask)
        assert options[np.arange(num_envs), actions].all() and not (options & ~mask).any()
        multi += int((options.sum(1) > 1).sum())
        if pick_option:
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in options])
        obs, mask, _, r, done, info = venv.step(actions)
        fin = np.flatnonzero(done & ~done_all)
        if fin.size:
            rewards[fin] = r[fin]
            where = np.searchsorted(info["final_games"], fin)
            points[fin] = info["episode"]["attacker_points"][where]
            final[fin] = info["final_observation"][where]
        done_all |= done
    return rewards, final, points, multi


def test_any_order_of_the_options_makes_the_teachers_play():
    rewards, final, points, multi = play_out(pick_option=False)
    again = play_out(pick_option=True)
    assert multi > 50  # multi-card plays and the bury do offer several orders
    np.testing.assert_array_equal(rewards, again[0])
    np.testing.assert_array_equal(final, again[1])
    np.testing.assert_array_equal(points, again[2])
