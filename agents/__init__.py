"""Agents for shengji-rl: the ``Policy`` protocol, baselines and the evaluation arena.

``Policy`` / ``BasePolicy`` / ``policy_from_fn`` (agents.base), ``RandomAgent``,
``HeuristicAgent``; ``agents.evaluate`` plays duplicate deals between agents (``shengji-eval``).
"""

from .base import BasePolicy, Policy, policy_from_fn
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent

__all__ = ["BasePolicy", "HeuristicAgent", "Policy", "RandomAgent", "policy_from_fn"]
