"""VecEnv: same-step autoreset, zero-sum rewards, determinism."""

import numpy as np
import pytest

from shengji_env.vector import VecEnv


def run(venv, steps, seed=0):
    rng = np.random.default_rng(seed)
    obs, mask, to_act, info = venv.reset()
    trace, finals = [], []
    for _ in range(steps):
        assert mask.any(1).all(), "every game must offer a live decision (autoreset)"
        assert ((to_act >= 0) & (to_act < 4)).all()
        u = rng.random(mask.shape) * mask
        actions = u.argmax(1)
        obs, mask, to_act, rewards, done, info = venv.step(actions)
        trace.append((obs.copy(), mask.copy(), to_act.copy(), rewards.copy(), done.copy()))
        if info:
            finals.append(info)
    return trace, finals


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_autoreset_and_zero_sum(decks):
    venv = VecEnv(8, seed=0, decks=decks)
    trace, finals = run(venv, {1: 250, 2: 400, 3: 500, 4: 600}[decks])
    assert finals, "some hand must finish"
    for obs, mask, to_act, rewards, done, in trace:
        np.testing.assert_allclose(rewards[:, 0] + rewards[:, 1], 0)
        np.testing.assert_array_equal(rewards[:, 0], rewards[:, 2])
        assert (rewards[~done] == 0).all()
        assert (rewards[done, 0] != 0).all()
    for info in finals:
        k = info["final_games"].size
        assert info["final_observation"].shape == (k, 4, venv.obs_size)
        ep = info["episode"]
        assert ep["return"].shape == (k, 4) and (ep["length"] > 20).all()
        # no penalties by default; the kitty bonus can take P past 100·decks
        assert ((ep["attacker_points"] >= 0) & (ep["attacker_points"] <= 100 * decks * 4)).all()
        assert (info["final_observation"] <= decks).all()


def test_autoreset_restarts_the_game():
    venv = VecEnv(4, seed=1, decks=1)
    trace, finals = run(venv, 250)
    g = int(finals[0]["final_games"][0])
    i = next(i for i, t in enumerate(trace) if t[4][g])
    obs = trace[i][0][g]
    from shengji_env.core.observe import decode
    view = decode(obs, venv.cfg)
    assert view.phase.name in ("DECLARE", "BURY") and view.tricks_done == 0


def test_determinism():
    a, _ = run(VecEnv(6, seed=3), 200)
    b, _ = run(VecEnv(6, seed=3), 200)
    c, _ = run(VecEnv(6, seed=4), 200)
    for x, y in zip(a, b):
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_int8_mask_and_no_auto_forced():
    venv = VecEnv(3, seed=0, mask_dtype=np.int8, auto_forced=False)
    obs, mask, _to_act, _info = venv.reset()
    assert mask.dtype == np.int8 and obs.dtype == np.float32 and obs.shape == (3, venv.obs_size)
    with pytest.raises(ValueError, match="mask_dtype"):
        VecEnv(2, mask_dtype=np.float32)
