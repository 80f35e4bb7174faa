"""Evaluation: the duplicate-deal arena (``arena``), its statistics (``stats``) and the
``shengji-eval`` command (``cli``)."""

from .arena import Deals, HandRecords, play_deals, play_deals_batched, play_hand
from .stats import mean_ci, ratings, summarize, wilson

__all__ = ["Deals", "HandRecords", "mean_ci", "play_deals", "play_deals_batched", "play_hand",
           "ratings", "summarize", "wilson"]
