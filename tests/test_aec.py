"""PettingZoo AEC env ``shengji_v1``: official API/seed/render tests, pickling, illegal actions,
a full random game through the AEC loop."""

import pickle
import warnings

import numpy as np
import pettingzoo.test as pzt
import pytest

from shengji_env import Rules
from shengji_env.aec import IllegalActionError, env, raw_env

# api_test warns about these for any Dict-observation env (hard-coded whitelists in PettingZoo)
pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent"),
              pytest.mark.filterwarnings("ignore:.*is not a NumPy array")]

CONFIGS = [pytest.param({}, id="default"), pytest.param({"decks": 1}, id="1deck"),
           pytest.param({"decks": 3}, id="3decks"), pytest.param({"decks": 4}, id="4decks")]


def play_random(e, seed=0, rng_seed=0):
    """Play one episode with uniform legal actions; returns (decisions, returns per agent)."""
    e.reset(seed=seed)
    rng = np.random.default_rng(rng_seed)
    n, returns = 0, {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _info = e.last()
        returns[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
        n += 1
    return n, returns


@pytest.mark.parametrize("kw", CONFIGS)
def test_api(kw):
    pzt.api_test(env(**kw), num_cycles=300)
    pzt.api_test(raw_env(**kw), num_cycles=300)


def _outcome(fn, *args):
    """(exception type, message) of ``fn(*args)``, or ("ok", repr of its value)."""
    try:
        return "ok", repr(fn(*args))
    except Exception as exc:  # noqa: BLE001 (the comparison is the point)
        return type(exc).__name__, str(exc)


def test_order_enforcing_as_pettingzoo():
    """``env()``'s wrapper (direct calls once reset) errs and plays like PettingZoo's own."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    ours, theirs = env(), OrderEnforcingWrapper(raw_env())
    assert isinstance(ours, OrderEnforcingWrapper) and str(ours) == str(theirs) == "shengji_v1"
    for call in (lambda e: e.last(), lambda e: e.step(0), lambda e: e.agent_iter(),
                 lambda e: e.agent_selection):
        assert _outcome(call, ours) == _outcome(call, theirs)
    for e in (ours, theirs):
        e.reset(seed=3)
        it = iter(e.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="need to call step"):
            next(it)  # no step since the last agent
    assert play_random(ours, seed=5) == play_random(theirs, seed=5)
    assert _outcome(ours.step, None) == _outcome(theirs.step, None)


@pytest.mark.parametrize("kw", CONFIGS)
def test_seed(kw):
    pzt.seed_test(lambda **k: env(**kw, **k), num_cycles=300)


@pytest.mark.parametrize("kw", CONFIGS)
def test_render(kw):
    pzt.render_test(lambda render_mode=None: env(render_mode=render_mode, **kw))


@pytest.mark.parametrize("kw", CONFIGS)
def test_pickle_round_trip(kw):
    e = env(**kw)
    e2 = pickle.loads(pickle.dumps(e))
    assert play_random(e, seed=3) == play_random(e2, seed=3)


@pytest.mark.parametrize("kw", CONFIGS)
def test_full_random_game_zero_sum(kw):
    e = env(**kw)
    for seed in range(3):
        n, returns = play_random(e, seed=seed, rng_seed=seed)
        assert n > 50
        r = [returns[f"player_{i}"] for i in range(4)]
        assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1] != 0
        assert e.agents == []


def test_rules_object_equals_keywords():
    a, b = raw_env(decks=1), raw_env(rules=Rules(decks=1))
    assert a.cfg == b.cfg
    assert play_random(a, seed=5) == play_random(b, seed=5)


def test_same_space_objects_and_int8_mask():
    e = env()
    assert e.observation_space("player_1") is e.observation_space("player_1")
    assert e.action_space("player_2") is e.action_space("player_2")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
    others = [a for a in e.agents if a != e.agent_selection]
    assert all(not e.observe(a)["action_mask"].any() for a in others)


def test_illegal_action_raises_with_legal_list():
    e = env()
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=r"illegal action .* legal actions: .*\d+ \("):
        e.step(bad)


def test_illegal_action_penalize_is_team_aware():
    e = env(illegal_action="penalize")
    e.reset(seed=0)
    offender = e.agent_selection
    mask = e.observe(offender)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(e.terminations.values())
    team = int(offender[-1]) % 2
    for a in e.possible_agents:
        expected = -1.0 if int(a[-1]) % 2 == team else 1.0
        assert e._cumulative_rewards[a] == expected
        assert e.infos[a]["illegal_action"] is True
    for agent in e.agent_iter():
        e.step(None)
    assert e.agents == []


def test_observation_of_waiting_agent_hides_selection():
    e = raw_env(info="readable")
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    from shengji_env.core.observe import decode
    # play into the bury: the dealer's selection is visible to the dealer only
    while e.infos[e.agent_selection].get("phase") != "BURY":
        e.step(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
    e.step(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])))
    me = decode(e.observe(e.agent_selection)["observation"], e.cfg)
    assert me.selection.sum() == 1
    for a in e.agents:
        if a != e.agent_selection:
            assert decode(e.observe(a)["observation"], e.cfg).selection.sum() == 0


def test_match_episode_runs():
    e = env(decks=1, episode="match", levels=(11, 11))
    _n, returns = play_random(e, seed=0)
    assert returns["player_0"] == -returns["player_1"]


# ---------------------------------------------------------------- Gymnasium single-agent wrapper
@pytest.mark.parametrize("kw", CONFIGS)
def test_single_agent_check_env(kw):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from shengji_env.single import ENV_ID
    e = gymnasium.make(ENV_ID, **kw)
    check_env(e.unwrapped)
    e.close()


def test_single_agent_team_episode():
    from shengji_env import SingleAgentEnv
    e = SingleAgentEnv(seats=(1, 3), decks=1)
    _, info = e.reset(seed=0)
    total, done = 0.0, False
    while not done:
        assert info["seat"] in (1, 3)
        mask = e.action_masks()
        assert mask.dtype == bool and mask.any()
        _obs, r, done, _trunc, info = e.step(int(np.flatnonzero(mask)[0]))
        total += r
    assert total != 0
    e.reset(seed=0)
    bad = int(np.flatnonzero(~e.action_masks())[0])
    _, r, done, _, info = e.step(bad)
    assert done and r == -1.0 and info["illegal_action"]
