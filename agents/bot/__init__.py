"""The shipped bot: the strongest trained network kept in the repository, as the agent ``bot``.

    shengji-eval bot heuristic              shengji-play --opponents bot
    eval: {opponents: {bot: 50}}            (train.py: the bot as an evaluation opponent)
    bot?sample=true                         (sample from its policy instead of its argmax)

The weights are ``weights/bot.pt``, a slim trainer checkpoint (``agents.export``: network spec,
rules, float32 weights, training config, ``provenance``; no optimizer), read with
``torch.load(..., weights_only=True)``. Replacing the bot is replacing that file
(``python -m agents.bot.export RUN``, which also records where the weights came from); see
``agents/bot/README.md`` for the current one.

The network was trained for one observation and action layout (the rules in the file: the
default ``Rules()``, 2 decks, fixed partners); under rules that change either (``decks=1``,
``partnership=FIND_FRIEND``, ...) ``BotAgent`` refuses with a ``ValueError`` naming the
options that differ.
"""

from __future__ import annotations

from pathlib import Path

from shengji_env import Rules

__all__ = ["DEFAULT_WEIGHTS", "BotAgent", "metadata"]

#: the shipped weights (a slim checkpoint; agents/bot/README.md says where they came from)
DEFAULT_WEIGHTS = Path(__file__).resolve().parent / "weights" / "bot.pt"


def metadata(path: str | Path = DEFAULT_WEIGHTS) -> dict:
    """The shipped weights' plain data (everything but the weights): network spec, rules,
    training config and counters, and ``provenance`` (run, recipe, evaluation rows)."""
    from agents.checkpoint import load_checkpoint

    return {k: v for k, v in load_checkpoint(path).items() if k != "model"}


def BotAgent(rules: Rules | None = None, sample: bool = False,  # noqa: N802 — reads as a class
             threads: int | None = 1):
    """The shipped bot for ``rules`` (default ``Rules()``) as a ``Policy``: the network's masked
    argmax, or ``sample=True`` its masked softmax (Gumbel-max on the numpy rng, as every
    checkpoint policy); ``threads``: torch threads for its forward passes (``TorchPolicy``).
    ``ValueError`` when the rules change the layout the bot was trained for."""
    from agents.base import TorchPolicy, check_threads, torch_threads
    from agents.checkpoint import load_checkpoint, net_from_checkpoint

    rules = Rules() if rules is None else rules
    threads = check_threads(threads)
    ckpt = load_checkpoint(DEFAULT_WEIGHTS)
    try:
        with torch_threads(threads):  # building the network runs torch ops too
            net = net_from_checkpoint(ckpt, rules)
    except ValueError as e:
        trained = Rules(**ckpt["rules"])
        raise ValueError(
            f"bot: the shipped bot cannot play these rules: {e}. "
            f"It was trained for decks={trained.decks}, partnership={trained.partnership} "
            "(the default Rules()) and plays any rules with that observation and action layout; "
            "for other rules train a network with them (python train.py --config "
            "configs/ppo_selfplay.yaml --set rules.decks=1, say) and name its run folder as the "
            "agent") from None
    return TorchPolicy(net, sample=bool(sample), name="bot", threads=threads)
