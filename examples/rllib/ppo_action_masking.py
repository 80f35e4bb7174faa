"""RLlib (new API stack): PPO with action masking on the PettingZoo env, one network shared by all
four seats. Runs in its own virtualenv (``examples/rllib/README.md``): no ray[rllib] release
installs beside the project's gymnasium 1.4.

    python examples/rllib/ppo_action_masking.py --iterations 3

Two things RLlib needs from the env:
* ``illegal_action="penalize"``: RLlib's env pre-check steps with unmasked random actions, which
  the default ``"raise"`` mode refuses; with ``"penalize"`` an illegal action ends the hand with
  -1 for the offending team (+1 for the other).
* the observation key ``"observations"`` (plural) that RLlib's ``ActionMaskingTorchRLModule``
  reads beside ``"action_mask"``: ``RLlibObservationKeys`` renames ``"observation"``.
"""

from __future__ import annotations

import argparse

import gymnasium
from pettingzoo.utils import BaseWrapper

import shengji_env


class RLlibObservationKeys(BaseWrapper):
    """PettingZoo wrapper: observations ``{"observations": float32[N], "action_mask": int8[A]}``."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {a: gymnasium.spaces.Dict({"observations": env.observation_space(a)["observation"],
                                                  "action_mask": env.observation_space(a)["action_mask"]})
                        for a in env.possible_agents}

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = super().observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"]}


def make_env(config: dict | None = None):
    """The env RLlib builds (``config``: rules options, e.g. ``{"decks": 1}``)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    return PettingZooEnv(RLlibObservationKeys(shengji_env.env(illegal_action="penalize",
                                                              **(config or {}))))


def main(iterations: int = 3, decks: int = 1, batch: int = 2000) -> list[dict]:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env("shengji", make_env)
    config = (
        PPOConfig()
        .environment("shengji", env_config={"decks": decks})
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=batch, minibatch_size=250, num_epochs=2)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            model_config={"head_fcnet_hiddens": [128, 128], "head_fcnet_activation": "relu"})}))
    )
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    algo = config.build_algo()
    results = []
    for i in range(iterations):
        r = algo.train()
        runners = r.get("env_runners", {})
        print(f"iteration {i + 1}: env steps {runners.get('num_env_steps_sampled_lifetime')}, "
              f"episodes {runners.get('num_episodes_lifetime')}, "
              f"mean episode length {runners.get('episode_len_mean')}")
        results.append(r)
    algo.stop()
    ray.shutdown()
    return results


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--decks", type=int, default=1)
    p.add_argument("--batch", type=int, default=2000)
    a = p.parse_args()
    main(a.iterations, a.decks, a.batch)
