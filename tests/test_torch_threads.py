"""Torch policies run their forward pass on ``threads`` torch threads (default 1) and leave
torch's own setting as they found it (``agents.base.TorchPolicy``)."""

import numpy as np
import pytest
import torch

from agents.base import TorchPolicy, policy_from_fn, torch_threads
from agents.specs import resolve
from shengji_env import Rules


class _Recorder(torch.nn.Module):
    """Logits favouring action 1; records the thread count each forward pass ran with."""

    def __init__(self, fail: bool = False):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.seen, self.fail = [], fail

    def forward(self, obs):
        self.seen.append(torch.get_num_threads())
        if self.fail:
            raise RuntimeError("forward failed")
        logits = torch.zeros(obs.shape[0], 3)
        logits[:, 1] = 1.0
        return logits + self.weight


@pytest.fixture
def three_threads():
    """Torch at 3 threads for the test (a count no default equals), restored after it."""
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    yield 3
    torch.set_num_threads(before)


def _act(policy, rows=4):
    obs = np.zeros((rows, 5), dtype=np.float32)
    return policy.act_batch(obs, np.ones((rows, 3), dtype=bool), np.random.default_rng(0))


@pytest.mark.parametrize("threads, expected", [(1, 1), (2, 2), (None, 3)])
def test_forward_runs_on_the_policys_threads_and_restores_torchs(three_threads, threads,
                                                                  expected):
    net = _Recorder()
    policy = TorchPolicy(net) if threads == 1 else TorchPolicy(net, threads=threads)
    assert (_act(policy) == 1).all()
    assert net.seen == [expected]
    assert torch.get_num_threads() == three_threads


def test_threads_are_restored_when_the_forward_pass_raises(three_threads):
    with pytest.raises(RuntimeError, match="forward failed"):
        _act(TorchPolicy(_Recorder(fail=True)))
    assert torch.get_num_threads() == three_threads


def test_policy_from_fn_passes_threads_on(three_threads):
    net = _Recorder()
    _act(policy_from_fn(net, threads=2))
    _act(policy_from_fn(net))
    assert net.seen == [2, 1]
    with torch_threads(None):
        assert torch.get_num_threads() == three_threads


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_bad_threads_are_refused_with_the_value(bad):
    with pytest.raises(ValueError, match=rf"threads={bad!r}: expected a positive integer"):
        TorchPolicy(_Recorder(), threads=bad)


def test_specs_take_threads(three_threads):
    assert resolve("bot?threads=2", Rules()).threads == 2
    with pytest.raises(ValueError, match="threads=0"):
        resolve("bot?threads=0", Rules())
    assert torch.get_num_threads() == three_threads


def test_the_search_agent_runs_its_network_on_its_threads_only_while_it_searches(
        three_threads, monkeypatch):
    """Building, pickling and searching with ``PIMCAgent`` leave torch's setting alone: a
    trainer that evaluates against the search keeps its own thread count for its updates."""
    import pickle

    from agents.search import PIMCAgent
    from agents.search.rollout import NetRollout
    from shengji_env.core import Engine
    from shengji_env.rules.actions import Phase

    seen = []
    logits = NetRollout.logits

    def recording(self, obs):
        seen.append(torch.get_num_threads())
        return logits(self, obs)

    monkeypatch.setattr(NetRollout, "logits", recording)
    agent = PIMCAgent(Rules(), worlds=2, candidates=2, recheck=2, seed=0)
    agent = pickle.loads(pickle.dumps(agent))  # as an evaluation worker receives it
    assert agent.threads == 1 and torch.get_num_threads() == three_threads
    eng = Engine(Rules(), 1, seed=3)
    s = eng.reset()
    while not (s.phase[0] == Phase.PLAY and not s.selection[0].any()):  # first lead
        s, _, _ = eng.step(s, np.array([agent.heuristic.act(
            {"observation": eng.observe(s)[0], "action_mask": eng.legal_mask(s)[0]})]))
    agent.act({"observation": eng.observe(s)[0], "action_mask": eng.legal_mask(s)[0]})
    assert agent.last_search is not None and seen and set(seen) == {1}
    assert torch.get_num_threads() == three_threads
    with pytest.raises(ValueError, match="threads=0"):
        PIMCAgent(Rules(), threads=0)
