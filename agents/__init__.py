"""Agents for shengji-rl (imports ``shengji_env``; never the reverse).

* ``agents.base`` — the ``Policy`` protocol, ``BasePolicy``, ``TorchPolicy``, ``policy_from_fn``;
* ``agents.baselines`` — ``RandomAgent``, ``HeuristicAgent``;
* ``agents.learners`` — networks, the shared rollout, the ``Learner`` plug-ins (PPO, imitation);
* ``agents.eval`` — duplicate-deal arena, statistics, the ``shengji-eval`` command;
* ``agents.specs`` — agent specs (``heuristic``, ``runs/x``, ``pkg.mod:Bot?depth=3``) → policies;
* ``agents.checkpoint`` — the checkpoint format and loading a trained policy;
* ``agents.export`` — slim (weights-only) checkpoints to commit;
* ``agents.search`` — the search agent (``pimc``); ``agents.bot`` — the shipped bot (``bot``).
"""

from .base import BasePolicy, Policy, TorchPolicy, policy_from_fn
from .baselines import HeuristicAgent, RandomAgent

__all__ = ["BasePolicy", "HeuristicAgent", "Policy", "RandomAgent", "TorchPolicy",
           "policy_from_fn"]
