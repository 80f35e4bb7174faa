"""Stable-Baselines3 / sb3-contrib: MaskablePPO on ``SingleAgentEnv`` (one learner seat against
uniform random opponents), then its win rate against the same opponents.

    pip install -e ".[libs]"         # stable-baselines3, sb3-contrib
    python examples/sb3_maskable_ppo.py --timesteps 20000

``make_vec_env`` with the registered id works as it is: its default ``render_mode="rgb_array"``
is not one of this env's modes, so the env warns and renders nothing (as ``gymnasium.make``
does); MaskablePPO finds the legal actions through ``SingleAgentEnv.action_masks()``.
"""

from __future__ import annotations

import argparse
import warnings


def evaluate(model, hands: int, seed: int, decks: int) -> tuple[float, int]:
    """Share of hands in which the learner's team gets a positive reward, and the number of
    illegal actions the model chose (0 when the masks reach it)."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    from shengji_env import SingleAgentEnv
    env = SingleAgentEnv(seats=0, decks=decks)
    wins = illegal = 0
    for h in range(hands):
        obs, _ = env.reset(seed=seed + h)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
            obs, reward, done, _trunc, info = env.step(int(action))
            total += reward
            illegal += bool(info.get("illegal_action", False))
        wins += total > 0
    return wins / hands, illegal


def main(timesteps: int = 20_000, eval_hands: int = 50, decks: int = 1, seed: int = 0,
         n_envs: int = 4, n_steps: int = 256) -> dict:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from shengji_env.single import ENV_ID
    with warnings.catch_warnings():  # the rgb_array warning, once per env
        warnings.filterwarnings("ignore", message=".*render_mode")
        vec = make_vec_env(ENV_ID, n_envs=n_envs, seed=seed, env_kwargs={"decks": decks})
    model = MaskablePPO("MultiInputPolicy", vec, n_steps=n_steps, batch_size=min(256, n_steps * n_envs),
                        seed=seed, verbose=0, device="cpu")
    model.learn(total_timesteps=timesteps)
    win_rate, illegal = evaluate(model, eval_hands, seed=10_000 + seed, decks=decks)
    print(f"MaskablePPO, {timesteps} learner decisions: wins {win_rate:.0%} of {eval_hands} hands "
          f"against random opponents (random play wins about half); illegal actions: {illegal}")
    return {"win_rate": win_rate, "illegal": illegal, "model": model}


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--timesteps", type=int, default=20_000)
    p.add_argument("--eval-hands", type=int, default=50)
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    main(a.timesteps, a.eval_hands, a.decks, a.seed)
