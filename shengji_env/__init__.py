"""shengji-rl: Shengji (升级 / Tractor) for reinforcement learning.

``shengji_env.cards`` and ``shengji_env.rules`` hold the rules of record; ``shengji_env.core``
the batched numpy engine.
"""

from . import aec as shengji_v1  # PettingZoo-style versioned module: shengji_v1.env()
from . import cards, rules
from .aec import env, raw_env
from .rules.config import Rules
from .single import SingleAgentEnv
from .vector import VecEnv

__all__ = ["Rules", "SingleAgentEnv", "VecEnv", "cards", "env", "raw_env", "rules",
           "shengji_v1"]
__version__ = "0.1.0"
