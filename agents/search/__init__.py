"""Search agents: determinized Monte-Carlo search (PIMC) on the batched engine.

``PIMCAgent`` (agents.search.agent) samples worlds consistent with what the seat knows
(``sampler``), scores candidate whole plays (``agents.plays``) by batched rollouts in the engine
(``rollout``) and plays the best. See ``agents/search/README.md``.
"""

from .agent import PIMCAgent
from .sampler import Constraints, UniformSampler, WorldSampler, constraints_from_view, sample_deals

__all__ = ["Constraints", "PIMCAgent", "UniformSampler", "WorldSampler", "constraints_from_view",
           "sample_deals"]
