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
import inspect
import os
import re
from pathlib import Path

import torch

from shengji_env import Rules

from .base import TorchPolicy, check_threads, torch_threads
from .learners.nets import PolicyValueNet

__all__ = ["CHECKPOINT_PREFIX", "CHECKPOINT_VERSION", "RESUME_KEYS", "check_resumable",
           "checkpoints", "latest_checkpoint", "load_checkpoint", "load_policy",
           "net_from_checkpoint", "rules_diff", "rules_to_dict", "save_checkpoint", "upgrade"]

CHECKPOINT_PREFIX = "shengji-rl/"
CHECKPOINT_VERSION = 2
_NAME = re.compile(r"update_(\d+)\.pt$")


def rules_to_dict(rules: Rules) -> dict:
    """A ``Rules`` as plain options (``Rules(**d) == rules``)."""
    return {k: (list(v) if isinstance(v, tuple) else v)
            for k, v in dataclasses.asdict(rules).items()}


def rules_diff(rules: Rules, trained: Rules) -> str:
    """The options where ``rules`` differ from ``trained``, e.g. ``"decks=1 (trained: 2)"``."""
    a, b = rules_to_dict(rules), rules_to_dict(trained)
    diff = [f"{k}={a[k]} (trained: {b[k]})" for k in a if a[k] != b.get(k)]
    return ", ".join(diff) or "the same options"


def save_checkpoint(state: dict, run_dir: str | Path, update: int, learner: str,
                    keep: int = 3) -> Path:
    """Write ``state`` to ``run_dir/checkpoints/update_<update>.pt`` atomically (a temporary
    file, fsynced, then ``os.replace``, then the folder fsynced) as format
    ``shengji-rl/<learner>``, and delete all but the newest ``keep`` checkpoints."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"update_{update:07d}.pt"
    tmp = path.with_suffix(".pt.tmp")
    with open(tmp, "wb") as f:
        torch.save({"format": CHECKPOINT_PREFIX + learner, "version": CHECKPOINT_VERSION,
                    **state}, f)
        f.flush()
        os.fsync(f.fileno())  # the bytes are on disk before the name points at them
    os.replace(tmp, path)
    _fsync_dir(folder)
    if keep > 0:
        for old in sorted(folder.glob("update_*.pt"))[:-keep]:
            old.unlink()
    return path


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX; a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def checkpoints(run_dir: str | Path) -> list[Path]:
    """The checkpoints ``update_*.pt`` in ``run_dir/checkpoints``, oldest first."""
    folder = Path(run_dir) / "checkpoints"
    return sorted(p for p in folder.glob("update_*.pt") if _NAME.search(p.name))


def latest_checkpoint(run_dir: str | Path) -> Path:
    """The checkpoint with the highest update number in ``run_dir/checkpoints``."""
    found = checkpoints(run_dir)
    if not found:
        raise FileNotFoundError(f"no checkpoint (update_*.pt) in {Path(run_dir) / 'checkpoints'}; "
                                f"is {run_dir} a run folder written by train.py?")
    return found[-1]


def _why_unreadable(e: Exception) -> str:
    """The one line of a ``torch.load`` failure that says what was wrong."""
    text = str(e).strip()
    line = next((ln for ln in text.splitlines() if "nsupported global" in ln.lower()
                 or "unsupported GLOBAL" in ln), None)
    if line is not None:
        return ("it holds objects that are not plain data, refused by weights_only=True (nothing "
                f"was run): {line.strip().removeprefix('WeightsUnpickler error: ')[:160]}")
    first = text.splitlines()[0][:120] if text else ""
    return f"truncated, or not a file torch.save wrote: {type(e).__name__}{': ' if first else ''}{first}"


def load_checkpoint(path: str | Path) -> dict:
    """Read a trainer checkpoint with ``weights_only=True`` (a run folder means its latest one),
    upgraded to the current version. ``ValueError`` says what is wrong with a file that is not
    one (``FileNotFoundError`` when there is none)."""
    path = Path(path)
    if path.is_dir():
        path = latest_checkpoint(path)
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint file or run folder {str(path)!r}")
    if path.stat().st_size == 0:
        raise ValueError(f"{path} is not a readable torch checkpoint (the file is empty)")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 — an untrusted file may break the reader in any way
        raise ValueError(f"{path} is not a readable torch checkpoint ({_why_unreadable(e)})") \
            from None
    if not isinstance(ckpt, dict) or not str(ckpt.get("format", "")).startswith(CHECKPOINT_PREFIX):
        what = ckpt.get("format") if isinstance(ckpt, dict) else type(ckpt).__name__
        raise ValueError(f"{path} is not a shengji-rl checkpoint (format {what!r}; expected "
                         f"'{CHECKPOINT_PREFIX}<learner>')")
    if isinstance(ckpt.get("version"), bool) or ckpt.get("version") not in (1, CHECKPOINT_VERSION):
        raise ValueError(f"{path} has checkpoint version {ckpt.get('version')!r}; this version of "
                         f"shengji-rl reads versions 1 and {CHECKPOINT_VERSION}")
    missing = [k for k in ("model", "net", "rules") if k not in ckpt]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: not a complete checkpoint")
    for key, kind in (("model", dict), ("net", dict), ("rules", dict)):
        if not isinstance(ckpt[key], kind):
            raise ValueError(f"{path}: {key} is {type(ckpt[key]).__name__} "
                             f"{_short(ckpt[key])}; expected a {kind.__name__}")
    return upgrade(ckpt)


#: what ``train.py --resume`` needs beyond a policy: key → allowed types
RESUME_KEYS = {"optimizer": dict, "config": dict, "learners": dict, "update": int,
               "global_step": int, "hands": int, "elapsed_s": (int, float), "cpu_s": (int, float),
               "train_s": (int, float), "rng": dict}


def check_resumable(ckpt: dict, path) -> None:
    """``ValueError`` naming what a loaded checkpoint lacks for resuming training."""
    missing = [k for k in RESUME_KEYS if k not in ckpt]
    if missing:
        raise ValueError(f"{path} lacks {', '.join(missing)}: it can be played as a policy but "
                         "not resumed")
    for key, kind in RESUME_KEYS.items():
        value = ckpt[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{path}: {key}={_short(value)} ({type(value).__name__}) is not "
                             "what train.py wrote")
    if ckpt["update"] < 0 or ckpt["global_step"] < 0:
        raise ValueError(f"{path}: update={ckpt['update']}, global_step={ckpt['global_step']}; "
                         "expected counts >= 0")
    rng = [k for k in ("numpy", "torch", "sample") if k not in ckpt["rng"]]
    if rng:
        raise ValueError(f"{path}: rng lacks {', '.join(rng)}: not what train.py wrote")


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


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
    try:
        trained = Rules(**ckpt["rules"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"the checkpoint's rules are not valid Rules options: {e}") from None
    rules = trained if rules is None else rules
    spec = ckpt["net"]
    allowed = set(inspect.signature(PolicyValueNet).parameters) - {"cfg"}
    bad = [k for k, v in spec.items() if k not in allowed or not isinstance(v, int)
           or isinstance(v, bool) or v < 0]
    if bad:
        raise ValueError(f"the checkpoint's net spec {spec!r} is not valid ({', '.join(bad)}); "
                         f"expected ints >= 0 for {', '.join(sorted(allowed))}")
    net = PolicyValueNet(rules, **spec)
    ref = PolicyValueNet(trained, **spec) if rules != trained else net
    if (net.obs_size, net.num_actions) != (ref.obs_size, ref.num_actions):
        raise ValueError(f"the checkpoint was trained with observations of size {ref.obs_size} "
                         f"and {ref.num_actions} actions; these rules ({rules_diff(rules, trained)}) "
                         f"give {net.obs_size} and {net.num_actions} (rules options that change "
                         "the observation or action layout need a network trained with them)")
    try:
        net.load_state_dict(ckpt["model"])
    except RuntimeError as e:
        lines = [ln.strip() for ln in str(e).splitlines()[1:] if ln.strip()]
        raise ValueError(f"the checkpoint's weights do not fit its network {spec!r}: "
                         f"{lines[0] if lines else e}") from None
    for name, value in ckpt["model"].items():  # a diverged run's NaN weights played silently
        if torch.is_tensor(value) and value.is_floating_point() and not torch.isfinite(value).all():
            raise ValueError(f"the checkpoint's weight {name} holds NaN or infinite values (a "
                             "diverged run?); it cannot play")
    net.eval()
    return net


def load_policy(path: str | Path, rules: Rules | None = None, sample: bool = False,
                threads: int | None = 1):
    """A trained checkpoint (a file, or a run folder: its latest checkpoint) as a ``Policy``:
    greedy (masked argmax), or ``sample=True`` (masked softmax, Gumbel-max on the numpy rng);
    ``threads``: torch threads for its forward passes (``TorchPolicy``; spec ``runs/x?threads=2``)."""
    threads = check_threads(threads)
    with torch_threads(threads):  # building the network runs torch ops too
        ckpt = load_checkpoint(path)
        net = net_from_checkpoint(ckpt, rules)
    name = Path(path).stem if Path(path).is_file() else Path(path).name
    return TorchPolicy(net, sample=sample, name=name, threads=threads)
