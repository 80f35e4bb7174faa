"""The shipped bot (``agents.bot``): a small weights-only file, the ``bot`` spec, legal play, and
a clear refusal under rules whose layout it was not trained for."""

from pathlib import Path

import numpy as np
import pytest
import torch

import shengji_env
from agents import export, specs
from agents.bot import DEFAULT_WEIGHTS, BotAgent, metadata
from agents.checkpoint import load_checkpoint, net_from_checkpoint
from shengji_env import Rules

ROOT = Path(__file__).resolve().parents[1]


def test_the_weights_are_small_plain_data_with_their_provenance():
    assert DEFAULT_WEIGHTS.stat().st_size < 10e6
    ckpt = torch.load(DEFAULT_WEIGHTS, map_location="cpu", weights_only=True)
    assert "optimizer" not in ckpt and "learners" not in ckpt  # weights only
    assert all(v.dtype in (torch.float32, torch.float16) for v in ckpt["model"].values())
    prov = metadata()["provenance"]
    assert prov["seed"] is not None and prov["recipe"] and prov["wall_s"] > 0
    assert {r["opponent"] for r in prov["eval"]} >= {"random", "heuristic"}


def test_bot_plays_a_whole_hand_with_legal_moves_only():
    bot = specs.resolve("bot", Rules())
    assert bot.name == "bot" and bot.sample is False
    env = shengji_env.env()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    decisions, rewards = 0, {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            rewards[agent] = reward
            env.step(None)
            continue
        action = bot.act(obs, rng)
        assert obs["action_mask"][action], f"illegal action {action} at decision {decisions}"
        env.step(action)
        decisions += 1
    assert decisions > 50 and len(rewards) == 4 and sum(rewards.values()) == 0


def test_sampling_is_an_option():
    assert specs.resolve("bot?sample=true", Rules()).sample is True
    with pytest.raises(ValueError, match="worlds"):
        specs.resolve("bot?worlds=3", Rules())


@pytest.mark.parametrize("options,words", [
    ({"decks": 1}, ["decks=1 (trained: 2)", "60"]),
    ({"decks": 3}, ["decks=3 (trained: 2)", "72"]),
    ({"partnership": "FIND_FRIEND"}, ["partnership=FIND_FRIEND (trained: FIXED)", "1212"]),
])
def test_rules_of_another_layout_are_refused_by_name(options, words):
    with pytest.raises(ValueError) as e:
        BotAgent(Rules(**options))
    for w in ["the shipped bot cannot play these rules", "trained for decks=2", *words]:
        assert w in str(e.value)


def test_a_rule_that_keeps_the_layout_is_played():
    assert BotAgent(Rules(throw_penalty="FIXED_10")).name == "bot"


def test_half_precision_export_loads_back_as_float32(tmp_path):
    out = export.export(DEFAULT_WEIGHTS, tmp_path / "half.pt", half=True,
                        provenance={"note": "test"})
    assert out.stat().st_size < 0.6 * DEFAULT_WEIGHTS.stat().st_size
    ckpt = load_checkpoint(out)
    assert ckpt["provenance"] == {"note": "test"}
    assert not {"optimizer", "learners", "rng"} & set(ckpt)  # cannot be resumed
    net = net_from_checkpoint(ckpt)
    assert all(p.dtype == torch.float32 for p in net.parameters())
    full = net_from_checkpoint(load_checkpoint(DEFAULT_WEIGHTS))
    for k, v in full.state_dict().items():
        assert torch.allclose(net.state_dict()[k], v, atol=1e-2, rtol=1e-2), k


def test_the_trainer_refuses_the_bot_under_other_rules_and_says_how_to_leave_it_out():
    from agents.learners import config as train_config
    from agents.learners import runs
    from agents.learners.config import ConfigError

    cfg = train_config.load(ROOT / "configs" / "quickstart.yaml", ["rules.decks=1"])
    assert "bot" in cfg.eval.opponents  # make run's final table includes the shipped bot
    with pytest.raises(ConfigError, match="shipped bot cannot play") as e:
        runs.check_runnable(cfg, None)
    assert "eval.opponents={random: 25, heuristic: 10}" in str(e.value)


def test_the_trainer_evaluates_against_the_bot():
    from agents.base import TorchPolicy
    from agents.eval import Deals
    from agents.learners import runs
    from agents.learners.nets import PolicyValueNet

    rules = Rules()
    torch.manual_seed(0)
    student = TorchPolicy(PolicyValueNet(rules, hidden=16, blocks=0, card_head=0).eval())
    out = runs.evaluate_against(student, {"bot": specs.resolve("bot", rules)},
                                {"bot": Deals.generate(1, rules, 5)}, rules, seed=5)
    assert out["bot"]["hands"] == 2 and 0.0 <= out["bot"]["win_rate"] <= 1.0


def test_bot_plays_in_worker_processes():
    """``play_deals(workers=2)`` with the bot: the workers are forked from a process that has
    run torch on several threads (loading the bot is enough), which hung every worker before
    they were set to one thread each. Run in a child process, so that a hang fails the test
    instead of the suite; the records equal the one-process ones."""
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from agents import specs\n"
        "from agents.eval.arena import Deals, play_deals\n"
        "from shengji_env import Rules\n"
        "rules = Rules()\n"
        "pair = (specs.resolve('bot', rules), specs.resolve('random', rules))\n"
        "deals = Deals.generate(2, rules, seed=3)\n"
        "one = play_deals(pair, deals, rules, seed=1)\n"
        "two = play_deals(pair, deals, rules, seed=1, workers=2)\n"
        "assert (one.a_reward == two.a_reward).all() and (one.dealer == two.dealer).all()\n"
        "print('ok', len(two))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["ok", "4"]
