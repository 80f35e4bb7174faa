"""Bad input to the environments (``aec``, ``single``, ``vector``) and the ``core.Engine`` they
share (DESIGN.md §7): a clear exception naming the value and what is allowed, never a truncation.

Each case is (call, exception type, substrings that must all appear in the message); the first
substring is the offending value.
"""

import warnings

import numpy as np
import pytest

from shengji_env import Rules, env
from shengji_env.aec import IllegalActionError, raw_env
from shengji_env.core import Engine
from shengji_env.single import SingleAgentEnv
from shengji_env.vector import VecEnv

LEGAL = "legal actions: 54 (pass)"  # the first decision of seed 0


def aec_step(action, **kw):
    e = env(**kw)
    e.reset(seed=0)
    e.step(action)


def raw_step(action, **kw):
    e = raw_env(**kw)
    e.reset(seed=0)
    e.step(action)


def single_step(action, **kw):
    e = SingleAgentEnv(**kw)
    e.reset(seed=0)
    e.step(action)


def after_end(make):
    def call():
        e = make()
        e.reset(seed=0)
        e.step(66)  # ends the episode (penalized)
        e.step(0)
    return call


class Fixed:
    """An opponent that always returns ``action``."""

    def __init__(self, action):
        self.action, self.name = action, f"fixed-{action!r}"

    def act(self, obs, rng):
        return self.action


def opponent_plays(action):
    def call():
        e = SingleAgentEnv(opponents=Fixed(action))
        e.reset(seed=0)
        for _ in range(3):  # the learner passes; an opponent acts next
            e.step(int(np.flatnonzero(e.action_masks())[0]))
    return call


def engine(**kw):
    return lambda: Engine(Rules(), **kw)


def observe(seats):
    eng = Engine(Rules(), 2)
    s = eng.reset()
    return lambda: eng.observe(s, seats=seats)


def reset_games(games):
    eng = Engine(Rules(), 2)
    s = eng.reset()
    return lambda: eng.reset_games(s, games)


def vec_step(actions):
    def call():
        v = VecEnv(2)
        v.reset()
        v.step(actions)
    return call


CASES = [
    # env() / raw_env.step: out of range, wrong type — with the legal actions, never truncated
    (lambda: aec_step(66), IllegalActionError, ["illegal action 66", "ids are 0-65", LEGAL]),
    (lambda: aec_step(-1), IllegalActionError, ["illegal action -1", "ids are 0-65", LEGAL]),
    (lambda: aec_step(54.0), TypeError, ["action 54.0 (float)", "int action id 0-65", LEGAL]),
    (lambda: aec_step(None), TypeError, ["action None (NoneType)", LEGAL]),
    (lambda: aec_step("3"), TypeError, ["action '3' (str)", LEGAL]),
    (lambda: aec_step([1, 2]), TypeError, ["action [1, 2] (list)", LEGAL]),
    (lambda: aec_step(True), TypeError, ["action True (bool)", LEGAL]),
    (lambda: aec_step(np.array([54])), TypeError, ["action array([54]) (ndarray)"]),
    (lambda: raw_step(3.7), TypeError, ["action 3.7 (float)", LEGAL]),
    (lambda: raw_step(np.float32(54)), TypeError, ["action np.float32(54.0)", LEGAL]),
    (lambda: raw_step(54.0, illegal_action="penalize"), TypeError, ["action 54.0 (float)"]),
    (lambda: raw_step("54", illegal_action="penalize"), TypeError, ["action '54' (str)"]),
    (after_end(lambda: raw_env(illegal_action="penalize")), ValueError,
     ["step(0)", "episode is over", "None"]),
    (lambda: raw_env(illegal_action="clip"), ValueError, ["illegal_action='clip'", "penalize"]),
    (lambda: raw_env(seed=-1), ValueError, ["seed=-1", "int >= 0"]),
    (lambda: raw_env().reset(seed=-1), ValueError, ["seed=-1", "int >= 0"]),
    (lambda: raw_env().reset(seed=1.5), ValueError, ["seed=1.5", "int >= 0"]),
    (lambda: raw_env(throw_decomposition="LEADER_DECLARED"), NotImplementedError,
     ["LEADER_DECLARED"]),
    # SingleAgentEnv: types refused, step after the end, opponents checked
    (lambda: single_step(54.0), TypeError, ["action 54.0 (float)", "legal actions: 54 (pass)"]),
    (lambda: single_step("3"), TypeError, ["action '3' (str)"]),
    (lambda: single_step(True), TypeError, ["action True (bool)"]),
    (lambda: single_step(None), TypeError, ["action None"]),
    (after_end(SingleAgentEnv), RuntimeError, ["step(0)", "episode ended", "reset()"]),
    (lambda: SingleAgentEnv().step(0), RuntimeError, ["reset() before step()"]),
    (opponent_plays(66), IllegalActionError, ["illegal action 66", "in seat 3", "fixed-66", "[54"]),
    (opponent_plays(54.0), TypeError, ["illegal action 54.0 (float)", "in seat 3"]),
    (lambda: SingleAgentEnv(opponents=3), TypeError, ["is 3 (int)", "act(obs, rng)"]),
    (lambda: SingleAgentEnv(opponents="random"), TypeError, ["is 'random' (str)", "agents.specs"]),
    (lambda: SingleAgentEnv(opponents={1: object()}), TypeError, ["seat 1 is <object", "Policy"]),
    (lambda: SingleAgentEnv(opponents={5: Fixed(0)}), ValueError, ["seat 5", "[1, 2, 3]"]),
    (lambda: SingleAgentEnv(opponents={0: Fixed(0)}), ValueError, ["seat 0", "[1, 2, 3]"]),
    (lambda: SingleAgentEnv(seats=4), ValueError, ["seats=(4,)", "0-3"]),
    (lambda: SingleAgentEnv(seats=(0, 1)), ValueError, ["seats=(0, 1)", "both teams"]),
    (lambda: SingleAgentEnv(seats=True), ValueError, ["seats=True", "0-3"]),
    (lambda: SingleAgentEnv(seats=(0.5,)), ValueError, ["seats=(0.5,)", "0-3"]),
    (lambda: SingleAgentEnv(opponent_illegal="ignore"), ValueError, ["'ignore'", "penalize"]),
    (lambda: SingleAgentEnv().reset(seed=-1), Exception, ["-1", "greater or equal to zero"]),
    # Engine arguments
    (engine(num_games=True), ValueError, ["num_games=True", "positive int"]),
    (engine(num_games=0), ValueError, ["num_games=0", "positive int"]),
    (engine(num_games=2.0), ValueError, ["num_games=2.0", "positive int"]),
    (engine(seed=-1), ValueError, ["seed=-1", "int >= 0"]),
    (engine(seed=1.5), ValueError, ["seed=1.5", "int >= 0"]),
    (engine(seed="0"), ValueError, ["seed='0'", "int >= 0"]),
    (engine(dealer=True), ValueError, ["dealer=True", "seat 0-3"]),
    (engine(dealer=1.0), ValueError, ["dealer=1.0", "seat 0-3"]),
    (engine(dealer=4), ValueError, ["dealer=4", "seat 0-3"]),
    (engine(levels=(True, True)), ValueError, ["levels=(True, True)", "0-12"]),
    (engine(levels=np.array([0, 13]), dealer=0), ValueError, ["levels=array([ 0, 13])", "0-12"]),
    (engine(levels="randm"), ValueError, ["levels='randm'", "'random'"]),
    (lambda: Engine(Rules(), 1).reset(seeds=[-1]), ValueError, ["seeds=[-1]", "ints >= 0"]),
    (lambda: Engine(Rules(), 1).reset(seeds=[0.5]), ValueError, ["seeds=[0.5]", "ints >= 0"]),
    (observe(-1), ValueError, ["seats=-1", "seat 0-3"]),
    (observe(4), ValueError, ["seats=4", "seat 0-3"]),
    (observe(np.array([0, 4])), ValueError, ["seats=array([0, 4])", "int[2]"]),
    (observe(np.array([0])), ValueError, ["seats=array([0])", "int[2]"]),
    (observe(np.array([0.5, 1.0])), ValueError, ["seats=array([0.5, 1. ])"]),
    (observe(True), ValueError, ["seats=True"]),
    (reset_games([-1]), ValueError, ["games=[-1]", "0-1"]),
    (reset_games([2]), ValueError, ["games=[2]", "0-1"]),
    (reset_games([0.5]), ValueError, ["games=[0.5]", "0-1"]),
    (reset_games([True]), ValueError, ["games=[True]", "0-1"]),
    (reset_games([1, 0, 1]), ValueError, ["games=[1, 0, 1]", "at most once"]),
    # VecEnv
    (lambda: VecEnv(0), ValueError, ["num_envs=0", "positive int"]),
    (lambda: VecEnv(True), ValueError, ["num_envs=True", "positive int"]),
    (lambda: VecEnv(2.0), ValueError, ["num_envs=2.0", "positive int"]),
    (lambda: VecEnv(2).reset(seed=-3), ValueError, ["seed=-3", "int >= 0"]),
    (lambda: VecEnv(2).step([0, 0]), RuntimeError, ["reset() before step()"]),
    (vec_step(np.zeros(3, np.int64)), ValueError, ["shape (2,)", "got (3,)"]),
    (vec_step(np.zeros((2, 1), np.int64)), ValueError, ["shape (2,)", "got (2, 1)"]),
    (vec_step([54.0, 54.0]), ValueError, ["dtype float64", "[54.0, 54.0]"]),
    (vec_step(np.array([True, True])), ValueError, ["dtype bool"]),
    (vec_step(["a", "b"]), ValueError, ["dtype <U1", "['a', 'b']"]),
    (vec_step(None), ValueError, ["NoneType None", "shape (2,)"]),
    (vec_step([66, 66]), ValueError, ["illegal action 66", "legal"]),
]


@pytest.mark.parametrize("call, exc, words", CASES, ids=[f"{i}-{c[2][0]}" for i, c in enumerate(CASES)])
def test_bad_input_names_the_value(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


def test_out_of_range_actions_are_penalized_like_illegal_ones():
    for action in (66, -1, 10**9):
        e = env(illegal_action="penalize")  # through the wrappers too
        e.reset(seed=0)
        agent = e.agent_selection
        e.step(action)
        assert all(e.terminations.values())
        assert e.infos[agent]["illegal_action"] is True and e.rewards[agent] == -1.0


def test_meaningful_variants_are_accepted():
    eng = Engine(Rules(), 2, levels=np.array([0, 0]), dealer=np.int64(1))
    assert eng.levels == (0, 0) and eng.dealer == 1
    s = eng.reset()
    assert np.array_equal(eng.observe(s, seats=2), eng.observe(s, seats=np.array([2, 2])))
    eng.reset_games(s, [])  # nothing to restart
    e = raw_env()
    e.reset(seed=np.int64(3))
    e.step(np.int64(54))  # numpy ints (Discrete.sample) and 0-d int arrays are ints
    e.step(np.array(54))


def test_opponent_illegal_penalize_warns_and_ends_the_episode():
    e = SingleAgentEnv(opponents=Fixed(66), opponent_illegal="penalize")
    e.reset(seed=0)
    with pytest.warns(RuntimeWarning, match="illegal action 66"):
        done = False
        while not done:
            _, reward, done, _, info = e.step(int(np.flatnonzero(e.action_masks())[0]))
    assert info["illegal_action"] is True and reward == 1.0  # the opponents' team pays
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SingleAgentEnv(opponents=Fixed(0), opponent_illegal="penalize")
