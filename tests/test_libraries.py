"""The env from the libraries RL people plug in (``examples/``): Stable-Baselines3/sb3-contrib,
TorchRL, Tianshou, PettingZoo's parallel conversion and SuperSuit, and the RLlib example's
wrapper (RLlib itself needs its own virtualenv: ``examples/rllib/README.md``). Each test skips
when its library is not installed (``pip install -e ".[libs]"``); training runs are slow tests."""

import importlib.util
import pathlib
import warnings

import numpy as np
import pettingzoo.test as pzt
import pytest

import shengji_env

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
pytestmark = [pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:Observation space for each agent"),
              pytest.mark.filterwarnings("ignore:.*is not a NumPy array"),
              pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


def example(name: str):
    """Import ``examples/<name>.py`` as a module."""
    path = EXAMPLES / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_sb3_make_vec_env_builds_and_masks():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    from shengji_env.single import ENV_ID
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # make_vec_env asks for render_mode="rgb_array"
        vec = make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"decks": 1})
    assert is_masking_supported(vec)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()


@pytest.mark.slow
def test_sb3_maskable_ppo_smoke():
    pytest.importorskip("sb3_contrib")
    out = example("sb3_maskable_ppo").main(timesteps=128, eval_hands=2, n_envs=1, n_steps=128)
    assert out["illegal"] == 0


@pytest.mark.slow
def test_sb3_maskable_ppo_trains():
    pytest.importorskip("sb3_contrib")
    out = example("sb3_maskable_ppo").main(timesteps=8192, eval_hands=40, n_envs=4, n_steps=256)
    assert out["illegal"] == 0 and 0.0 <= out["win_rate"] <= 1.0


def test_torchrl_pettingzoo_wrapper_rollout():
    pytest.importorskip("torchrl")
    (hand,) = example("torchrl_pettingzoo").main(hands=1)
    assert hand["steps"] > 40
    r = hand["returns"]
    assert r["player_0"] == r["player_2"] == -r["player_1"] == -r["player_3"] != 0


def test_tianshou_wrapper_infos_stack():
    pytest.importorskip("tianshou")
    from tianshou.data import Batch
    from tianshou.env import PettingZooEnv

    e = PettingZooEnv(shengji_env.env(decks=1))
    obs, info = e.reset(seed=0)
    infos, rng, done = [Batch(info)], np.random.default_rng(0), False
    while not done:
        obs, _rewards, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        infos.append(Batch(info))
        done = term or trunc
    Batch.stack(infos[-2:])  # what the buffer does across steps; v0's legal_moves list could not
    assert info["illegal_action"] is False and info["team_levels"].shape == (2,)


@pytest.mark.slow  # Tianshou's replay buffer compiles numba kernels first (~10 s)
def test_tianshou_collector():
    pytest.importorskip("tianshou")
    returns = example("tianshou_collect").main(episodes=2, num_envs=2)
    assert returns.shape == (2, 4)
    np.testing.assert_array_equal(returns[:, 0] + returns[:, 1], 0)


def test_pettingzoo_parallel_and_supersuit():
    pytest.importorskip("supersuit")
    returns = example("pettingzoo_parallel").main()
    assert returns["player_0"] == -returns["player_1"] != 0


def test_parallel_api_without_supersuit():
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    pzt.parallel_api_test(turn_based_aec_to_parallel(shengji_env.env(decks=1)), num_cycles=100)


# the hand ends inside api_test's cycles here (1 deck): a finished seat's last observation has no
# legal action (its dead step takes None), and api_test still checks that observation's mask
@pytest.mark.filterwarnings("ignore:Action mask numpy array is all zeros")
def test_rllib_observation_keys_wrapper():
    mod = example("rllib/ppo_action_masking")
    e = mod.RLlibObservationKeys(shengji_env.env(decks=1, illegal_action="penalize"))
    space = e.observation_space("player_0")
    assert set(space.spaces) == {"observations", "action_mask"}
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert space.contains(obs) and obs["action_mask"].any()
    pzt.api_test(e, num_cycles=100)
