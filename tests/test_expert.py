"""Expert iteration (``learner: expert_iteration``): the labels are the search's chosen play, its
recorded values are its scoring, the soft target is learned as a distribution, masks are
respected, bad options are refused before a run folder exists, and a tiny run goes end to end
through ``train.py`` (events, checkpoint, exact resume with the student as rollout policy)."""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from test_dmc import CheckedEnv

from agents import HeuristicAgent
from agents.learners.base import TrainContext
from agents.learners.expert import (
    ExpertBatch,
    ExpertIterationLearner,
    ExpertOptions,
    expert_update,
    search_returns,
    soft_weights,
)
from agents.learners.nets import PolicyValueNet
from agents.search import PIMCAgent
from agents.search.agent import _plan_actions
from agents.search.rollout import play_out
from shengji_env import Rules
from shengji_env.core import Engine
from shengji_env.core.observe import decode
from shengji_env.core.world import world_states
from shengji_env.rules.actions import Phase
from shengji_env.vector import VecEnv

ROOT = Path(__file__).resolve().parents[1]
RULES = Rules()  # the shipped rollout network is for the default (2-deck) layout
CHEAP = "pimc?worlds=1&recheck=1&candidates=2&rollout=random"


def play_states(seed: int, every: float, limit: int):
    """``(engine, state, obs, mask)`` at PLAY decisions with an empty selection of a hand played
    by HeuristicAgent (a share ``every`` of them, at most ``limit``)."""
    h, rng = HeuristicAgent(RULES), np.random.default_rng(0)
    eng = Engine(RULES, 1, seed=seed)
    s = eng.reset()
    out = []
    while not s.done[0] and len(out) < limit:
        mask, obs = eng.legal_mask(s)[0], eng.observe(s)[0]
        if s.phase[0] == Phase.PLAY and not s.selection[0].any() and rng.random() < every:
            out.append((eng, s.copy(), obs, mask))
        s, _, _ = eng.step(s, np.array([h.act({"observation": obs, "action_mask": mask})]))
    return out


def test_labels_are_the_searchs_chosen_play_and_its_later_cards_need_no_search():
    searched = 0
    for eng, s, obs, mask in play_states(seed=5, every=0.3, limit=6):
        agent = PIMCAgent(RULES, worlds=2, recheck=2, candidates=3, seed=4, rollout="random")
        actions, options, records = agent.act_with_options(obs[None], mask[None])
        rec = records[0]
        assert rec is agent.last and rec is agent.last_search
        # the decision is the plain agent's (recording changes nothing)
        plain = PIMCAgent(RULES, worlds=2, recheck=2, candidates=3, seed=4, rollout="random")
        assert plain.act({"observation": obs, "action_mask": mask}) == actions[0]
        play = rec.candidates[rec.chosen]
        np.testing.assert_array_equal(options[0, :54], (play > 0) & mask[:54])
        assert not options[0, 54:].any() and options[0, actions[0]]
        searched += rec.values is not None
        # the plan's later cards: labelled from the plan, no new search
        t, seat, left = s.copy(), int(s.to_act[0]), play.copy()
        left[actions[0]] -= 1
        t, _, _ = eng.step(t, actions)
        while int(t.to_act[0]) == seat and t.selection[0].any():
            o, m = eng.observe(t)[0], eng.legal_mask(t)[0]
            a, opts, recs = agent.act_with_options(o[None], m[None])
            assert recs == [None]
            want = np.zeros(m.shape, dtype=bool)
            want[:54] = (left > 0) & m[:54]
            if not left.any():
                want[55] = True  # the lead is complete: END
            np.testing.assert_array_equal(opts[0], want)
            if a[0] < 54:
                left[a[0]] -= 1
            t, _, _ = eng.step(t, a)
    assert searched >= 3


def test_recorded_values_are_the_searchs_scoring():
    checked = 0
    for eng, s, obs, mask in play_states(seed=7, every=0.3, limit=4):
        agent = PIMCAgent(RULES, worlds=3, recheck=2, candidates=3, seed=2)
        agent.act({"observation": obs, "action_mask": mask})
        rec = agent.last_search
        if rec is None or rec.values is None:
            continue
        # the same worlds (the decision's seeded stream), each candidate played out on its own
        view = decode(obs, RULES)
        rng = np.random.default_rng([2, zlib.crc32(obs.tobytes())])
        hands, kitty = agent.sampler.sample(view, 5, rng)
        S = world_states(agent.plan_engine, view, hands, kitty)
        for k, play in enumerate(rec.candidates):
            plans = _plan_actions(np.tile(play, (5, 1)), view.leading)
            out, _ = play_out(agent.plan_engine, agent.roll_engine, S.take(np.arange(5)), plans,
                              agent._near(agent.rollout, view.tricks_done))
            np.testing.assert_allclose(rec.outcomes[:, k], out)
        score = agent._value(rec.outcomes)
        np.testing.assert_allclose(rec.values, score[:3].mean(0))
        np.testing.assert_allclose(rec.values_all, score.mean(0))
        assert rec.chosen in (rec.best, rec.incumbent)
        # the run's reward of the outcomes: "win" is the sign of the level reward
        level = rec.outcomes[..., 0]
        win = search_returns(rec.outcomes, "win", RULES.level_step)
        np.testing.assert_array_equal(win[level != 0], np.sign(level[level != 0]))
        np.testing.assert_array_equal(search_returns(rec.outcomes, "levels", 40.0), level)
        checked += 1
    assert checked >= 2


def test_soft_weights_mix_the_chosen_play_with_the_values_softmax():
    w = soft_weights(np.array([0.0, 0.1, -1.0]), chosen=0, mix=0.5, temperature=0.1)
    p = np.exp([0.0, 1.0, -10.0]) / np.exp([0.0, 1.0, -10.0]).sum()
    np.testing.assert_allclose(w, 0.5 * p + [0.5, 0, 0])
    np.testing.assert_allclose(soft_weights(np.array([1.0, 2.0]), 1, 0.0, 1.0), [0, 1])


def test_the_update_learns_the_soft_target_as_a_distribution():
    venv = VecEnv(64, RULES, seed=1)
    obs, mask, _, _ = venv.reset(seed=3)
    obs, mask = obs.copy(), mask.copy()
    M, A = mask.shape
    two = np.argsort(~mask, axis=1, kind="stable")[:, :2]  # two legal actions per row
    keep = mask.sum(1) >= 2
    obs, mask, two = obs[keep], mask[keep], two[keep]
    M = len(obs)
    sets = np.zeros((M, 3, A), dtype=bool)
    sets[np.arange(M), 0, two[:, 0]] = True
    sets[np.arange(M), 1, two[:, 1]] = True
    weights = np.tile(np.array([0.7, 0.3, 0.0], dtype=np.float32), (M, 1))
    batch = ExpertBatch(obs, mask, sets[:, 0].copy(), sets, weights,
                        np.zeros(M, dtype=np.float32), np.ones(M, dtype=bool))
    torch.manual_seed(0)
    net = PolicyValueNet(RULES, hidden=32)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    expert_update(net, opt, batch, epochs=60, minibatch_size=M, vf_coef=0.5, max_grad_norm=1.0,
                  np_rng=np.random.default_rng(0))
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs))
        p = torch.softmax(logits.masked_fill(~torch.from_numpy(mask), -1e9), 1).numpy()
    rows = np.arange(M)
    np.testing.assert_allclose(p[rows, two[:, 0]].mean(), 0.7, atol=0.05)
    np.testing.assert_allclose(p[rows, two[:, 1]].mean(), 0.3, atol=0.05)



def _rollout_checkpoint(rules, path: Path) -> str:
    """A small random network for ``rules`` saved as a checkpoint (the shipped rollout network
    is for the 2-deck layout only); returns the search spec that uses it."""
    from agents.checkpoint import CHECKPOINT_PREFIX, CHECKPOINT_VERSION, rules_to_dict

    net = PolicyValueNet(rules, hidden=16)
    torch.save({"format": CHECKPOINT_PREFIX + "imitation", "version": CHECKPOINT_VERSION,
                "net": net.spec(), "rules": rules_to_dict(rules), "model": net.state_dict()},
               path)
    return f"pimc?worlds=1&recheck=1&candidates=2&rollout=random&prior_weights={path}"


@pytest.mark.parametrize("decks", [1, 2, pytest.param(3, marks=pytest.mark.slow),
                                   pytest.param(4, marks=pytest.mark.slow)])
def test_collection_respects_masks_and_labels_within_them(decks, tmp_path):
    rules = Rules(decks=decks)
    torch.manual_seed(0)
    search = CHEAP if decks == 2 else _rollout_checkpoint(rules, tmp_path / "r.pt")
    venv = CheckedEnv(1, rules, seed=decks, reward="win")
    net = PolicyValueNet(rules, hidden=16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ctx = TrainContext(rules, venv, net, lambda: PolicyValueNet(rules, hidden=16), opt,
                       np.random.default_rng(0), torch.Generator().manual_seed(0), 0, 1, 1)
    options = ExpertOptions(search=search, labelled_seats=2, student_prob=0.5,
                            opponent="student", soft_mix=0.5, shaping=2.5)
    learner = ExpertIterationLearner(options, ctx)
    batch, stats = learner.collect(1)
    assert stats["hands"] == 1 and stats["labels"] == len(batch) > 0 and stats["searches"] > 0
    assert (batch.targets <= batch.mask).all() and batch.targets.any(1).all()
    assert (batch.sets <= batch.mask[:, None, :]).all()
    np.testing.assert_allclose(batch.weights.sum(1), 1.0, rtol=1e-6)
    assert (batch.sets.any(2) | (batch.weights == 0)).all()  # weight only on non-empty sets
    # one team labelled: about half the decisions of the hand, not all of them
    assert stats["labels"] < stats["decisions"]
    assert 0 <= stats["agreement_searched"] <= 1 and 0 < stats["search_s"] <= stats["collect_s"]
    losses = learner.update(batch, 1)
    assert all(np.isfinite(v) for v in losses.values())


def _train_main(*args) -> int:
    """``train.py``'s exit code, run in this process (a subprocess imports torch again, ~3 s)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    return train.main(list(args))


def _config(tmp_path, **learner) -> Path:
    cfg = {"run": {"name": "ex", "num_envs": 1, "total_updates": 2, "checkpoint_every": 1,
                   "run_root": str(tmp_path), "reward": "win"},
           "model": {"hidden": 16},
           "learner": {"name": "expert_iteration", "search": CHEAP, "labelled_seats": 1,
                       "minibatch_size": 64, **learner},
           "eval": {"every": 0, "opponents": {"random": 1}, "final_deals": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.mark.parametrize("setting, message", [
    ("learner.search=heuristic", "not a search agent"),
    ("learner.search=pimc?time_ms=50", "time_ms"),
    ("learner.search=pimc?seed=none", "seed=none"),
    ("learner.search=pimc?worlds=0", "worlds=0"),
    ("learner.labelled_seats=0", "expected one of 1, 2, 4"),
    ("learner.opponent=nobody", "opponent: unknown agent"),
    ("learner.search=nobody", "search: unknown agent"),
    (f"model.init={ROOT / 'agents/search/weights/rollout.pt'}", "the config's model is"),
    ("model.init=/nonexistent/x.pt", "model.init"),
])
def test_bad_options_are_refused_before_a_run_folder_exists(tmp_path, capsys, setting, message):
    assert _train_main("--config", str(_config(tmp_path)), "--set", setting) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not list(tmp_path.glob("ex__*"))


def test_model_init_starts_from_the_checkpoints_weights():
    from agents.checkpoint import load_checkpoint
    from agents.learners import config as train_config
    from agents.learners.runs import init_weights
    from agents.search.rollout import DEFAULT_WEIGHTS

    cfg = train_config.resolve({"model": {"hidden": 128, "card_head": 16,
                                          "init": str(DEFAULT_WEIGHTS)}})
    state = init_weights(cfg, RULES)
    saved = load_checkpoint(DEFAULT_WEIGHTS)["model"]
    assert state.keys() == saved.keys()
    assert all(torch.equal(state[k], saved[k].float()) for k in saved)


def test_expert_iteration_trains_through_train_py_and_resumes_exactly(tmp_path, monkeypatch):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from agents.checkpoint import load_checkpoint

    path = _config(tmp_path, rollout_every=1, soft_mix=0.5, value_mix=0.5)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert _train_main("--config", str(path), "--set", "run.name=full") == 0
    assert _train_main("--config", str(path), "--set", "run.name=half",
                       "--set", "run.total_updates=1") == 0
    (half,) = tmp_path.glob("half__*")
    assert _train_main("--resume", str(half), "--set", "run.total_updates=2") == 0
    (full,) = tmp_path.glob("full__*")
    a = load_checkpoint(full / "checkpoints" / "update_0000002.pt")
    b = load_checkpoint(half / "checkpoints" / "update_0000002.pt")
    assert a["format"] == "shengji-rl/expert_iteration"
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert a["global_step"] == b["global_step"] and a["rng"]["numpy"] == b["rng"]["numpy"]
    ra, rb = a["learners"]["expert_iteration"], b["learners"]["expert_iteration"]
    assert ra["rollout_update"] == rb["rollout_update"] == 2
    for k in ra["rollout"]:
        assert torch.equal(ra["rollout"][k], rb["rollout"][k]), k
    ea = EventAccumulator(str(full))
    ea.Reload()
    tags = set(ea.Tags()["scalars"])
    for tag in ("expert/labels", "expert/labels_per_s", "expert/labels_per_cpu_s",
                "expert/searches_per_cpu_s", "expert/search_s_share",
                "expert/agreement", "expert/agreement_searched", "losses/policy_loss",
                "losses/value_loss", "perf/engine_s", "perf/act_s", "perf/forward_s",
                "eval_final/win_rate_vs_random"):
        assert tag in tags, tag
    share = [e.value for e in ea.Scalars("expert/search_s_share")]
    assert all(0 < v < 1 for v in share)


def test_the_search_uses_the_student_as_rollout_policy_after_a_refresh():
    torch.manual_seed(0)
    venv = VecEnv(1, RULES, seed=0)
    net = PolicyValueNet(RULES, hidden=16, card_head=4)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ctx = TrainContext(RULES, venv, net, lambda: PolicyValueNet(RULES, hidden=16, card_head=4),
                       opt, np.random.default_rng(0), torch.Generator().manual_seed(0), 0, 1, 9,
                       stage_start=3, stage_updates=4)
    learner = ExpertIterationLearner(ExpertOptions(search=CHEAP, rollout_every=2), ctx)
    shipped = learner.search.rollout
    learner.after_update(2)  # not this learner's stage yet
    learner.after_update(3)
    assert learner.search.rollout is shipped and learner.state_dict() == {"rollout_update": 0}
    learner.after_update(4)  # the stage's second update
    roll = learner.search.rollout
    assert roll is not shipped and learner.search.prior is roll
    obs, mask, _, _ = venv.reset(seed=1)
    want, _ = net(torch.from_numpy(obs))
    np.testing.assert_allclose(roll.logits(obs).numpy(), want.detach().numpy(), atol=1e-5)
    # restored from the state alone (a resumed run), the search plays the same network
    other = ExpertIterationLearner(ExpertOptions(search=CHEAP, rollout_every=2), ctx)
    other.load_state_dict(learner.state_dict())
    np.testing.assert_array_equal(other.search.rollout(obs, mask), roll(obs, mask))


def test_a_sampling_search_samples_the_student_after_a_refresh():
    """``rollout_temperature`` survives the loop: the refreshed rollout policy samples the
    student at the search's temperature; the prior (candidates, belief) stays greedy."""
    from agents.search.rollout import NetRollout, SampledRollout

    torch.manual_seed(0)
    venv = VecEnv(1, RULES, seed=0)
    make = lambda: PolicyValueNet(RULES, hidden=16, card_head=4)  # noqa: E731
    net = make()
    ctx = TrainContext(RULES, venv, net, make, torch.optim.Adam(net.parameters(), lr=1e-3),
                       np.random.default_rng(0), torch.Generator().manual_seed(0), 0, 1, 9)
    spec = "pimc?worlds=1&recheck=1&candidates=2&rollout_temperature=0.5"
    learner = ExpertIterationLearner(ExpertOptions(search=spec, rollout_every=1), ctx)
    assert isinstance(learner.search.rollout, SampledRollout)
    learner.after_update(1)  # the stage's first update (stage_start = 1)
    roll, prior = learner.search.rollout, learner.search.prior
    assert isinstance(roll, SampledRollout) and roll.temperature == 0.5
    assert isinstance(prior, NetRollout) and roll.net is prior
    obs, _, _, _ = venv.reset(seed=1)
    np.testing.assert_allclose(prior.logits(obs).numpy(),
                               net(torch.from_numpy(obs))[0].detach().numpy(), atol=1e-5)
