"""Env contracts that libraries rely on: finite observation bounds that hold under throw penalties,
array-friendly infos (``info="arrays"``) and the readable option, ``SingleAgentEnv`` render modes
and ``action_masks()`` before ``reset()``."""

import warnings

import numpy as np
import pytest

from shengji_env import Rules, SingleAgentEnv, shengji_v1
from shengji_env.aec import attacker_points_bounds, max_throw_penalty, raw_env
from shengji_env.core.observe import layout


def test_versioned_module_and_name():
    e = shengji_v1.env()
    assert e.metadata["name"] == "shengji_v1"


@pytest.mark.parametrize("penalty", ["NONE", "FIXED_10", "PER_CARD_10"])
@pytest.mark.parametrize("decks", [1, 2])
def test_attacker_points_bounds_are_finite_and_match_the_rules(penalty, decks):
    cfg = Rules(decks=decks, throw_penalty=penalty)
    low, high = attacker_points_bounds(cfg)
    h, scale = cfg.hand_size, 100 * decks
    pen = {"NONE": 0, "FIXED_10": 10 * (h - 1), "PER_CARD_10": 10 * h * (h - 1) // 2}[penalty]
    assert max_throw_penalty(cfg) == pen
    assert (low, high) == (-pen / scale, 1 + pen / scale)
    space = raw_env(rules=cfg).observation_space("player_0")["observation"]
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()


def _random_hands(e, hands, seed):
    """Uniform random legal play; yields every observation of every agent."""
    rng = np.random.default_rng(seed)
    for h in range(hands):
        e.reset(seed=seed * 1000 + h)
        for agent in e.agent_iter():
            obs, _r, term, trunc, _info = e.last()
            yield agent, obs
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("penalty", ["FIXED_10", "PER_CARD_10"])
def test_observations_stay_in_space_with_penalties(penalty):
    # 1 deck, so random leads throw (and fail) often; a failed throw moves the points scalar
    e = shengji_v1.env(decks=1, throw_penalty=penalty)
    space = e.observation_space("player_0")
    k = layout(e.unwrapped.cfg)["attacker_points"].start
    seen = []
    for _agent, obs in _random_hands(e, 40, seed=1):
        assert space.contains(obs)
        seen.append(obs["observation"][k])
    assert min(seen) < 0  # an attacker's failed throw did push the scalar below 0


def test_default_info_is_array_friendly():
    e = shengji_v1.env(illegal_action="penalize")
    e.reset(seed=0)
    assert all(info == {} for info in e.infos.values())
    for agent in e.agent_iter():
        obs, _r, term, trunc, info = e.last()
        if term or trunc:
            assert set(info) == {"attacker_points", "team_levels", "illegal_action", "offender"}
            assert info["team_levels"].dtype == np.int64 and info["team_levels"].shape == (2,)
            assert info["illegal_action"] is False and info["offender"] == -1
            e.step(None)
            continue
        assert info == {}
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    # an illegal action: same keys, numeric offender seat
    e.reset(seed=0)
    seat = int(e.agent_selection[-1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))
    info = e.infos["player_0"]
    assert info["illegal_action"] is True and info["offender"] == seat


def test_readable_info_keeps_v0_extras():
    e = raw_env(info="readable")
    e.reset(seed=0)
    info = e.infos[e.agent_selection]
    assert info["legal_moves"] == np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
    assert info["phase"] == "DECLARE"
    with pytest.raises(ValueError, match="info='bogus'"):
        raw_env(info="bogus")


def test_single_agent_ignores_unsupported_render_mode_with_a_warning():
    with pytest.warns(UserWarning, match="rgb_array"):
        e = SingleAgentEnv(render_mode="rgb_array")
    assert e.render_mode is None
    e.reset(seed=0)


def test_single_agent_action_masks_before_reset():
    e = SingleAgentEnv()
    mask = e.action_masks()
    assert mask.dtype == bool and mask.shape == (e.action_space.n,) and not mask.any()
    e.reset(seed=0)
    assert e.action_masks().any()
