"""Trainer checkpoints: atomic writes, ``weights_only`` loads, a trained network as a ``Policy``.

A checkpoint is a ``dict`` of tensors and plain python only (so ``torch.load(path,
weights_only=True)`` reads it; ecosystem notes §4.2)::

    format        "shengji-rl/ppo"        version       CHECKPOINT_VERSION
    model         the network's state_dict              net           {"hidden", "blocks"}
    rules         the Rules options (dict)              config        the training config (dict)
    optimizer     Adam state_dict                       pool          OpponentPool.state_dict()
    update, global_step, hands                          elapsed_s     training wall time so far
    rng           {"numpy": bit_generator.state (dict of ints), "torch": torch.get_rng_state(),
                   "sample": the action-sampling torch.Generator state}

``load_policy(path)`` turns one into a ``Policy`` (``NetPolicy``); importing this module also
registers that loader with ``agents.evaluate`` so ``shengji-eval runs/x/checkpoints/latest.pt
heuristic`` works.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import numpy as np
import torch

from shengji_env import Rules

from .base import BasePolicy, check_batch
from .nets import MASKED_LOGIT, PolicyValueNet

__all__ = ["CHECKPOINT_FORMAT", "NetPolicy", "latest_checkpoint", "load_checkpoint",
           "load_policy", "rules_to_dict", "save_checkpoint"]

CHECKPOINT_FORMAT = "shengji-rl/ppo"
CHECKPOINT_VERSION = 1
_NAME = re.compile(r"update_(\d+)\.pt$")


def rules_to_dict(rules: Rules) -> dict:
    """A ``Rules`` as plain options (``Rules(**d) == rules``)."""
    return {k: (list(v) if isinstance(v, tuple) else v)
            for k, v in dataclasses.asdict(rules).items()}


def save_checkpoint(state: dict, run_dir: str | Path, update: int, keep: int = 3) -> Path:
    """Write ``state`` to ``run_dir/checkpoints/update_<update>.pt`` atomically (a temporary
    file, then ``os.replace``) and delete all but the newest ``keep`` checkpoints."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"update_{update:07d}.pt"
    tmp = path.with_suffix(".pt.tmp")
    torch.save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **state}, tmp)
    os.replace(tmp, path)
    if keep > 0:
        for old in sorted(folder.glob("update_*.pt"))[:-keep]:
            old.unlink()
    return path


def latest_checkpoint(run_dir: str | Path) -> Path:
    """The checkpoint with the highest update number in ``run_dir/checkpoints``."""
    folder = Path(run_dir) / "checkpoints"
    found = sorted(p for p in folder.glob("update_*.pt") if _NAME.search(p.name))
    if not found:
        raise FileNotFoundError(f"no checkpoint (update_*.pt) in {folder}; is {run_dir} a run "
                                "folder written by train.py?")
    return found[-1]


def load_checkpoint(path: str | Path) -> dict:
    """Read a trainer checkpoint with ``weights_only=True``; a run folder means its latest one."""
    path = Path(path)
    if path.is_dir():
        path = latest_checkpoint(path)
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        what = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
        raise ValueError(f"{path} is not a shengji-rl PPO checkpoint (format {what!r})")
    if ckpt.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path} has checkpoint version {ckpt.get('version')}; this version of "
                         f"shengji-rl reads version {CHECKPOINT_VERSION}")
    return ckpt


class NetPolicy(BasePolicy):
    """A ``PolicyValueNet`` as a ``Policy``: greedy (masked argmax) or ``sample=True`` (a masked
    softmax sample drawn with the numpy rng, Gumbel-max, so play stays reproducible)."""

    def __init__(self, net: PolicyValueNet, sample: bool = False, name: str = "ppo"):
        self.net, self.sample, self.name = net, bool(sample), name

    def act_batch(self, obs: np.ndarray, mask: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        obs, mask = check_batch(obs, mask)
        return self._choose(np.asarray(obs, dtype=np.float32), mask, rng)

    def act(self, obs: dict, rng: np.random.Generator) -> int:
        mask = np.asarray(obs["action_mask"]).astype(bool)[None]
        if not mask.any():
            raise ValueError("the action mask allows no action")
        observation = np.asarray(obs["observation"], dtype=np.float32)[None]
        return int(self._choose(observation, mask, rng)[0])

    def _choose(self, obs: np.ndarray, mask: np.ndarray, rng) -> np.ndarray:
        with torch.no_grad():
            logits, _ = self.net(torch.from_numpy(np.ascontiguousarray(obs)))
        logits = logits.numpy().astype(np.float64)
        if self.sample:
            logits = logits + rng.gumbel(size=logits.shape)
        return np.where(mask, logits, MASKED_LOGIT).argmax(axis=1).astype(np.int64)


def net_from_checkpoint(ckpt: dict, rules: Rules | None = None) -> PolicyValueNet:
    """Rebuild the network of a loaded checkpoint (for ``rules``, default the training rules)."""
    trained = Rules(**ckpt["rules"])
    rules = trained if rules is None else rules
    net = PolicyValueNet(rules, **ckpt["net"])
    ref = PolicyValueNet(trained, **ckpt["net"]) if rules != trained else net
    if (net.obs_size, net.num_actions) != (ref.obs_size, ref.num_actions):
        raise ValueError(f"the checkpoint was trained with observations of size {ref.obs_size} "
                         f"and {ref.num_actions} actions; these rules give {net.obs_size} and "
                         f"{net.num_actions} (rules options that change the observation or "
                         "action layout need a network trained with them)")
    net.load_state_dict(ckpt["model"])
    net.eval()
    return net


def load_policy(path: str | Path, rules: Rules | None = None, sample: bool = False) -> NetPolicy:
    """A trained checkpoint (a file, or a run folder: its latest checkpoint) as a ``Policy``."""
    ckpt = load_checkpoint(path)
    name = Path(path).stem if Path(path).is_file() else Path(path).name
    return NetPolicy(net_from_checkpoint(ckpt, rules), sample=sample, name=name)


def _evaluate_loader(path: str, rules: Rules):
    """``agents.evaluate`` hook: our policy if ``path`` is one of our checkpoints (or a run
    folder holding some), else None."""
    if Path(path).is_dir():
        return load_policy(path, rules) if list(Path(path).glob("checkpoints/update_*.pt")) \
            else None
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 — unpickling junk raises anything (KeyError, ...)
        return None  # not a torch file: let other loaders try
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        return None
    return load_policy(path, rules)


def _register() -> None:
    from . import evaluate

    if _evaluate_loader not in evaluate._CHECKPOINT_LOADERS:
        evaluate.register_checkpoint_loader(_evaluate_loader)


_register()
