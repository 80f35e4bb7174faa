"""shengji-rl: Shengji (升级 / Tractor) for reinforcement learning.

``shengji_env.cards`` and ``shengji_env.rules`` hold the rules of record; ``shengji_env.core``
the batched numpy engine.
"""

from . import cards, rules
from .rules.config import Rules

__all__ = ["cards", "rules", "Rules"]
__version__ = "0.1.0"
