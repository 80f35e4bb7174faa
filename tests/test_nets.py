"""The policy/value network: masked distribution (never illegal, never NaN), the canonical card
presentation (suit names do not matter), and the network as a Policy."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.base import Policy, TorchPolicy
from agents.learners.nets import PolicyValueNet, canonical_tables, masked_distribution
from agents.learners.ppo import _sample
from shengji_env import Rules
from shengji_env.core.observe import CARD_BLOCKS, decode, layout, observe_game
from shengji_env.rules import canonical_order
from shengji_env.rules.actions import Phase
from shengji_env.rules.game import Game
from shengji_env.vector import VecEnv

A = 66


def awkward_masks(gen: torch.Generator, b: int = 512) -> tuple[torch.Tensor, torch.Tensor]:
    """Huge logits (both signs, on legal and illegal actions), sparse masks, rows with a single
    legal action and rows with every action legal."""
    logits = torch.randn(b, A, generator=gen) * torch.tensor([1.0, 30.0, 1e4])[
        torch.randint(0, 3, (b, 1), generator=gen)]
    mask = torch.rand(b, A, generator=gen) < 0.1
    mask[: b // 4] = False  # a single legal action
    mask[torch.arange(b), torch.randint(0, A, (b,), generator=gen)] = True
    mask[-8:] = True
    logits[~mask] += 1e5  # illegal actions look attractive
    return logits, mask


def test_masked_distribution_never_samples_illegal_and_has_no_nan():
    gen = torch.Generator().manual_seed(0)
    logits, mask = awkward_masks(gen)
    dist = masked_distribution(logits, mask)
    torch.manual_seed(0)
    samples = dist.sample((200,))  # [200, B]
    assert mask.gather(1, samples.T).all()
    assert (dist.probs[~mask] == 0).all()
    for t in (dist.probs, dist.logits, dist.entropy(), dist.log_prob(samples)):
        assert torch.isfinite(t).all()
    single = mask.sum(1) == 1
    assert torch.allclose(dist.entropy()[single], torch.zeros(int(single.sum())), atol=1e-6)
    assert (dist.probs[single].max(1).values == 1).all()
    # the trainer's sampler (multinomial with its own generator)
    for _ in range(20):
        picks = torch.multinomial(dist.probs, 1, generator=gen).squeeze(1)
        assert mask[torch.arange(len(picks)), picks].all()


def test_masked_distribution_gradients_are_finite():
    gen = torch.Generator().manual_seed(1)
    logits, mask = awkward_masks(gen, 64)
    logits.requires_grad_(True)
    dist = masked_distribution(logits, mask)
    actions = torch.multinomial(dist.probs, 1, generator=gen).squeeze(1)
    (dist.log_prob(actions).sum() + dist.entropy().sum()).backward()
    assert torch.isfinite(logits.grad).all()
    assert (logits.grad[~mask] == 0).all()


def suit_game(trump_wanted: int | None = None) -> Game:
    """A reference game in the PLAY phase, a few tricks in, with a suit trump."""
    for seed in range(200):
        g = Game(Rules(), seed=seed)
        rng = np.random.default_rng(seed)
        while not g.done and not (g.phase == Phase.PLAY and g.tricks_done >= 3):
            g.step(int(rng.choice(g.legal_actions())))
        if not g.done and g.trump is not None and g.trump < 4 and \
                (trump_wanted is None or g.trump == trump_wanted):
            return g
    raise AssertionError("no suitable game found")


def relabel(obs: np.ndarray, cfg: Rules, level: int, t1: int, t2: int):
    """The same observation with the suits renamed so that trump ``t1`` becomes ``t2``.
    Returns (obs2, sigma) with ``sigma[c]`` the new id of card ``c``."""
    o1, o2 = (canonical_order(level, t).astype(np.int64) for t in (t1, t2))
    sigma = np.empty(54, dtype=np.int64)
    sigma[o1] = o2
    at = layout(cfg)
    out = obs.copy()
    for name, rows in CARD_BLOCKS.items():
        for r in range(rows):
            s = at[name].start + 54 * r
            out[s + sigma] = obs[s: s + 54]
    v = at["voids"].start
    for r in range(4):
        for i in range(4):
            out[v + 5 * r + (t2 + i) % 4] = obs[v + 5 * r + (t1 + i) % 4]
    t = at["trump"].start
    out[t: t + 4] = 0
    out[t + t2] = 1
    return out, sigma


@pytest.mark.parametrize("card_head", [0, 16])
def test_network_does_not_care_about_suit_names(card_head):
    cfg = Rules()
    g = suit_game()
    obs = observe_game(g)
    view = decode(obs, cfg)
    t1, level = view.trump, view.level
    t2 = (t1 + 1) % 4
    obs2, sigma = relabel(obs, cfg, level, t1, t2)
    assert decode(obs2, cfg).trump == t2
    assert (decode(obs2, cfg).hand[sigma] == view.hand).all()
    torch.manual_seed(0)
    net = PolicyValueNet(cfg, hidden=32, blocks=1, card_head=card_head)
    with torch.no_grad():
        (l1, v1), (l2, v2) = net(torch.from_numpy(obs[None])), net(torch.from_numpy(obs2[None]))
    assert torch.equal(l2[0, torch.from_numpy(sigma)], l1[0, :54])  # card logits follow the cards
    assert torch.equal(l2[0, 54:], l1[0, 54:])
    assert torch.equal(v1, v2)


def test_canonical_tables_are_permutations():
    cfg = Rules()
    obs_index, card_index = canonical_tables(cfg)
    assert obs_index.shape == (78, obs_index.shape[1]) and card_index.shape == (78, 54)
    for key in range(78):
        assert (np.sort(obs_index[key]) == np.arange(obs_index.shape[1])).all()
        assert (np.sort(card_index[key]) == np.arange(54)).all()


def test_fast_canonical_presentation_matches_the_table():
    cfg = Rules()
    net = PolicyValueNet(cfg, hidden=8)
    obs_index = torch.from_numpy(canonical_tables(cfg)[0])
    venv = VecEnv(32, cfg, seed=5)
    obs, mask, _, _ = venv.reset()
    for _ in range(150):
        x = torch.from_numpy(obs.copy())
        key = net.keys(x)
        assert torch.equal(net.canonical(x, key), x.gather(1, obs_index[key]))
        obs, mask, *_ = venv.step(mask.argmax(1))


def test_net_policy_plays_legal_actions_in_batches_and_singly():
    cfg = Rules()
    venv = VecEnv(16, cfg, seed=3)
    obs, mask, _, _ = venv.reset()
    torch.manual_seed(0)
    net = PolicyValueNet(cfg, hidden=32, card_head=8)
    gen = torch.Generator().manual_seed(0)
    policy = TorchPolicy(net, sample=True)
    assert isinstance(policy, Policy)
    rng = np.random.default_rng(0)
    for _ in range(300):
        a = policy.act_batch(obs, mask, rng)
        assert mask[np.arange(16), a].all()
        b, logp, value = _sample(net, obs.copy(), mask.copy(), gen)
        assert mask[np.arange(16), b].all() and np.isfinite(logp).all() and np.isfinite(value).all()
        single = policy.act({"observation": obs[0], "action_mask": mask[0].astype(np.int8)}, rng)
        assert mask[0, single]
        obs, mask, _, _, _, _ = venv.step(a)


@pytest.mark.parametrize("decks", [1, 3, 4])
def test_net_sizes_follow_the_deck_count(decks):
    # observation and action sizes come from the rules (observe.layout, action_layout)
    cfg = Rules(decks=decks, failed_throw_choice="NEXT_PLAYER")
    venv = VecEnv(4, cfg, seed=decks)
    obs, mask, _, _ = venv.reset()
    net = PolicyValueNet(cfg, hidden=16, card_head=4)
    assert (net.obs_size, net.num_actions) == (venv.obs_size, mask.shape[1])
    policy = TorchPolicy(net, sample=True)
    rng = np.random.default_rng(0)
    for _ in range(60):
        a = policy.act_batch(obs, mask, rng)
        assert mask[np.arange(4), a].all()
        obs, mask, _, _, _, _ = venv.step(a)


def test_net_rejects_wrong_observation_size():
    net = PolicyValueNet(Rules(), hidden=8)
    with pytest.raises(ValueError, match="float32"):
        net(torch.zeros(2, 10))
