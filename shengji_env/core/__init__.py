"""The batched engine: B games as a struct of numpy arrays (DESIGN.md §5)."""

from .engine import Engine
from .state import BatchState
from .tables import Tables

__all__ = ["BatchState", "Engine", "Tables"]
