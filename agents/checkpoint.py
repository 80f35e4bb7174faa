"""Trainer checkpoints: a learner-neutral format, atomic writes, ``weights_only`` loads, and a
trained network as a ``Policy``.

A checkpoint is a ``dict`` of tensors and plain python only (so ``torch.load(path,
weights_only=True)`` reads it; ecosystem notes §4.2)::

    format        "shengji-rl/<learner>"  (the learner that trained the policy last, e.g. ppo)
    version       CHECKPOINT_VERSION      model     the network's state_dict
    net           {"hidden", "blocks", "card_head"}     rules     the Rules options (dict)
    config        the training config (sections, dict)  optimizer the optimizer's state_dict
    learners      {learner name: its state (e.g. the PPO opponent pool)}
    update, global_step, hands, elapsed_s, cpu_s, train_s
    rng           {"numpy": bit_generator.state (dict of ints), "torch": torch.get_rng_state(),
                   "sample": the action-sampling torch.Generator state}

Version 1 (``"shengji-rl/ppo"``, revision ``f438bb7`` and before) still loads: its flat config
and top-level ``pool`` are upgraded on load (``upgrade``). ``load_policy(path)`` turns a
checkpoint or a run folder into a ``Policy``; the agent-spec resolver (``agents.specs``) calls it
for any spec that names a file or folder.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import zipfile
from pathlib import Path

import torch

from shengji_env import Rules

from .base import TorchPolicy
from .learners.nets import PolicyValueNet

__all__ = ["CHECKPOINT_PREFIX", "CHECKPOINT_VERSION", "latest_checkpoint", "load_checkpoint",
           "load_policy", "net_from_checkpoint", "rules_to_dict", "save_checkpoint", "upgrade"]

CHECKPOINT_PREFIX = "shengji-rl/"
CHECKPOINT_VERSION = 2
_NAME = re.compile(r"update_(\d+)\.pt$")


def rules_to_dict(rules: Rules) -> dict:
    """A ``Rules`` as plain options (``Rules(**d) == rules``)."""
    return {k: (list(v) if isinstance(v, tuple) else v)
            for k, v in dataclasses.asdict(rules).items()}


def save_checkpoint(state: dict, run_dir: str | Path, update: int, learner: str,
                    keep: int = 3) -> Path:
    """Write ``state`` to ``run_dir/checkpoints/update_<update>.pt`` atomically (a temporary
    file, then ``os.replace``) as format ``shengji-rl/<learner>``, and delete all but the newest
    ``keep`` checkpoints."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"update_{update:07d}.pt"
    tmp = path.with_suffix(".pt.tmp")
    torch.save({"format": CHECKPOINT_PREFIX + learner, "version": CHECKPOINT_VERSION, **state},
               tmp)
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
    """Read a trainer checkpoint with ``weights_only=True`` (a run folder means its latest one),
    upgraded to the current version. ``ValueError`` says what is wrong with a file that is not
    one."""
    path = Path(path)
    if path.is_dir():
        path = latest_checkpoint(path)
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, zipfile.BadZipFile, OSError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path} is not a readable torch checkpoint ({first})") from None
    if not isinstance(ckpt, dict) or not str(ckpt.get("format", "")).startswith(CHECKPOINT_PREFIX):
        what = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
        raise ValueError(f"{path} is not a shengji-rl checkpoint (format {what!r}; expected "
                         f"'{CHECKPOINT_PREFIX}<learner>')")
    if ckpt.get("version") not in (1, CHECKPOINT_VERSION):
        raise ValueError(f"{path} has checkpoint version {ckpt.get('version')!r}; this version of "
                         f"shengji-rl reads versions 1 and {CHECKPOINT_VERSION}")
    missing = [k for k in ("model", "net", "rules") if k not in ckpt]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: not a complete checkpoint")
    return upgrade(ckpt)


def upgrade(ckpt: dict) -> dict:
    """A version-1 checkpoint (``shengji-rl/ppo``: flat config, top-level ``pool``) in the
    version-2 layout; newer ones unchanged."""
    if ckpt.get("version") == CHECKPOINT_VERSION:
        return ckpt
    out = dict(ckpt)
    out["version"] = CHECKPOINT_VERSION
    out["learners"] = {"ppo": {"pool": out.pop("pool")}} if "pool" in out else {}
    return out


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


def load_policy(path: str | Path, rules: Rules | None = None, sample: bool = False):
    """A trained checkpoint (a file, or a run folder: its latest checkpoint) as a ``Policy``:
    greedy (masked argmax), or ``sample=True`` (masked softmax, Gumbel-max on the numpy rng)."""
    ckpt = load_checkpoint(path)
    name = Path(path).stem if Path(path).is_file() else Path(path).name
    return TorchPolicy(net_from_checkpoint(ckpt, rules), sample=sample, name=name)
