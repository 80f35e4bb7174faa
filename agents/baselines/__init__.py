"""Baseline agents: ``RandomAgent`` (uniform legal play, the floor) and ``HeuristicAgent`` (a
rule-based player on the rules API: the teacher of the imitation warm start and the yardstick
of evaluation)."""

from .heuristic import HeuristicAgent
from .random import RandomAgent

__all__ = ["HeuristicAgent", "RandomAgent"]
