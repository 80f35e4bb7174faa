"""The ``Policy`` protocol every agent implements, a base class, and an adapter for plain code.

A policy chooses one action id (DESIGN.md §4: CARD 0-53, PASS 54, END 55, DECLARE 56+) from an
observation and the mask of legal actions, for one decision or for a batch of them::

    act(obs: {"observation": float32[N], "action_mask": int8[A]}, rng) -> int
    act_batch(obs: float32[B, N], mask: bool[B, A], rng) -> int64[B]

Randomness comes only from the ``numpy.random.Generator`` passed in (STYLE house rule 4).
Subclass ``BasePolicy`` and write whichever of the two methods is natural; the other one is
derived. A researcher's function or torch module becomes a policy with ``policy_from_fn``::

    policy = policy_from_fn(lambda obs, rng: int(np.flatnonzero(obs["action_mask"])[0]))
    policy = policy_from_fn(my_torch_net, batched=True)   # logits float[B, A] -> masked argmax
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = [
    "BasePolicy",
    "FunctionPolicy",
    "Policy",
    "TorchPolicy",
    "check_batch",
    "check_threads",
    "masked_argmax",
    "policy_from_fn",
    "torch_threads",
]


@runtime_checkable
class Policy(Protocol):
    """Anything that picks legal actions: one decision, or a batch of B decisions."""

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        """One decision: ``obs = {"observation": float32[N], "action_mask": int8[A]}``."""
        ...

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """B decisions: ``obs`` float32[B, N], ``mask`` bool[B, A] → actions int64[B]."""
        ...


def check_batch(obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate a batch: ``obs`` float[B, N] and ``mask`` bool[B, A].

    Returns ``(obs, mask)`` as arrays (``mask`` as bool). Raises ``ValueError`` naming the
    problem. A row without any legal action is a finished game (the batched engine keeps them
    until reset): policies return action 0 for it, which the engine ignores.
    """
    obs = np.asarray(obs)
    mask = np.asarray(mask)
    if obs.ndim != 2 or mask.ndim != 2:
        raise ValueError(f"act_batch expects obs float32[B, N] and mask bool[B, A]; got shapes "
                         f"{obs.shape} and {mask.shape} (use act() for a single decision)")
    if obs.shape[0] != mask.shape[0]:
        raise ValueError(f"obs has {obs.shape[0]} rows but mask has {mask.shape[0]}; one mask "
                         "row per observation is required")
    return obs, mask.astype(bool, copy=False)


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``int64[B]`` — per row, the legal action with the highest score (``scores`` float[B, A]);
    0 for a row without legal actions."""
    scores = np.where(mask, np.asarray(scores, dtype=np.float64), -np.inf)
    return scores.argmax(axis=1).astype(np.int64)


class BasePolicy:
    """Base class: implement ``act`` (one decision) or ``act_batch`` (batched); get both.

    ``act_batch`` defaults to calling ``act`` row by row; ``act`` defaults to a batch of one.
    A subclass must override at least one of them.
    """

    name: str = "policy"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.act is BasePolicy.act and cls.act_batch is BasePolicy.act_batch:
            raise TypeError(f"{cls.__name__} must override act() or act_batch() (or both)")

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        observation = np.asarray(obs["observation"])[None]
        mask = np.asarray(obs["action_mask"]).astype(bool)[None]
        if not mask.any():
            raise ValueError("the action mask allows no action; there is no decision to make")
        return int(self.act_batch(observation, mask, rng)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        obs, mask = check_batch(obs, mask)
        out = np.zeros(obs.shape[0], dtype=np.int64)
        for i in np.flatnonzero(mask.any(axis=1)):  # rows without actions: finished games
            out[i] = self.act({"observation": obs[i], "action_mask": mask[i].astype(np.int8)}, rng)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _accepts_rng(fn: Callable, positional: int) -> bool:
    """True iff ``fn`` takes a ``positional + 1``-th positional argument (the rng)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: assume the full form
        return True
    n = 0
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            return True
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n > positional


def _to_actions(out: Any, mask: np.ndarray, who: str) -> np.ndarray:
    """A function's output → ``int64[B]``: action ids as given, or scores over A → argmax."""
    out = np.asarray(out)
    b, a = mask.shape
    if out.shape == (b, a):
        return masked_argmax(out, mask)
    if out.shape == (b,) and np.issubdtype(out.dtype, np.integer):
        actions = out.astype(np.int64)
    else:
        raise ValueError(f"{who} returned shape {out.shape} ({out.dtype}); expected action ids "
                         f"int[{b}] or scores float[{b}, {a}]")
    bad = (actions < 0) | (actions >= a)
    bad[~bad] = ~mask[np.flatnonzero(~bad), actions[~bad]]
    bad &= mask.any(axis=1)  # finished games (no legal action) may get anything
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{who} chose illegal action {int(actions[i])} in row {i}; legal: "
                         f"{np.flatnonzero(mask[i]).tolist()}")
    return actions


class FunctionPolicy(BasePolicy):
    """A policy around a plain function (see ``policy_from_fn``)."""

    def __init__(self, fn: Callable, batched: bool = False, name: str | None = None):
        self.fn, self.batched = fn, batched
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        self._rng_arg = _accepts_rng(fn, 2 if batched else 1)

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        if self.batched:
            return super().act(obs, rng)
        mask = np.asarray(obs["action_mask"]).astype(bool)
        if not mask.any():
            raise ValueError("the action mask allows no action; there is no decision to make")
        out = self.fn(obs, rng) if self._rng_arg else self.fn(obs)
        if np.ndim(out) == 0:
            out = np.array([int(out)], dtype=np.int64)
        else:
            out = np.asarray(out)[None]
        return int(_to_actions(out, mask[None], self.name)[0])

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        if not self.batched:
            return super().act_batch(obs, mask, rng)
        obs, mask = check_batch(obs, mask)
        out = self.fn(obs, mask, rng) if self._rng_arg else self.fn(obs, mask)
        return _to_actions(out, mask, self.name)


class TorchPolicy(BasePolicy):
    """A torch module mapping observations float32[B, N] to logits float[B, A] (or to a tuple
    whose first element is the logits, as ``PolicyValueNet``'s ``(logits, value)``).

    Illegal actions are masked out; ``sample=False`` takes the masked argmax, ``sample=True``
    samples from the masked softmax with the numpy rng (Gumbel-max), so runs stay reproducible.

    ``threads``: torch's intra-op threads for the forward pass (restored after it); ``None``
    leaves torch's setting alone. The default is 1: a decision batch is small (a few hundred
    rows at most), so more threads gain little even on an idle machine, and when another job
    holds a core every multi-threaded op waits for the descheduled thread — on this project's
    2-core machine, with a training run on one core, two threads made the same evaluation 20x
    slower (README, "Reliability").
    """

    def __init__(self, module, sample: bool = False, name: str | None = None,
                 threads: int | None = 1):
        self.module, self.sample = module, sample
        self.name = name or type(module).__name__
        self.threads = check_threads(threads)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        import torch  # lazily: shengji_env and the baselines never need torch

        obs, mask = check_batch(obs, mask)
        param = next(self.module.parameters(), None)
        device = param.device if param is not None else "cpu"
        with torch.no_grad(), torch_threads(self.threads):
            out = self.module(torch.as_tensor(np.asarray(obs, dtype=np.float32), device=device))
        logits = (out[0] if isinstance(out, tuple) else out).detach().cpu().double().numpy()
        if logits.shape != mask.shape:
            raise ValueError(f"{self.name} returned logits of shape {logits.shape}; expected "
                             f"{mask.shape} (one logit per action)")
        if self.sample:
            logits = logits + rng.gumbel(size=logits.shape)
        return masked_argmax(logits, mask)


def check_threads(threads) -> int | None:
    """``threads`` as a positive ``int`` or ``None``; ``ValueError`` naming the value otherwise."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads={threads!r}: expected a positive integer (torch threads for "
                         "the forward pass) or None (leave torch's setting)")
    return threads


@contextmanager
def torch_threads(threads: int | None):
    """Run the block with ``torch.set_num_threads(threads)`` and restore the previous count after
    it (a pair of calls costs under a microsecond); ``None``: change nothing."""
    import torch

    before = torch.get_num_threads()
    if threads is None or threads == before:
        yield
        return
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def policy_from_fn(fn: Callable, batched: bool = False, name: str | None = None,
                   sample: bool = False, threads: int | None = 1) -> BasePolicy:
    """Wrap a function or a torch module as a ``Policy``.

    * ``batched=False``: ``fn(obs_dict[, rng])`` returns an action id, or scores float[A];
    * ``batched=True``: ``fn(obs float32[B, N], mask bool[B, A][, rng])`` returns action ids
      int[B], or scores float[B, A];
    * a ``torch.nn.Module``: logits float[B, A] from observations float32[B, N] (always
      batched); masked argmax, or a masked sample with ``sample=True``; ``threads`` as
      ``TorchPolicy``'s.

    Scores are masked (illegal actions never chosen); an illegal action id raises ``ValueError``.
    """
    if isinstance(fn, BasePolicy):
        return fn
    torch = sys.modules.get("torch")  # a torch module can exist only if torch is imported
    if torch is not None and isinstance(fn, torch.nn.Module):
        return TorchPolicy(fn, sample=sample, name=name, threads=threads)
    if not callable(fn):
        raise TypeError(f"policy_from_fn needs a callable or a torch.nn.Module, got "
                        f"{type(fn).__name__}")
    return FunctionPolicy(fn, batched=batched, name=name)
