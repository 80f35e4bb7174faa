"""Exact sums of card counts, and row gathers and scatters, at the cost of numpy's plain loops.

``x.sum(axis, dtype=np.int16)`` on a ``uint8`` or ``bool`` array runs numpy's buffered casting
reduction, about 2.5x the instructions of a ``uint8`` reduction (callgrind, ``[1024, 54]``). A
sum of card counts never reaches 256: every card in play is one of the 54·decks ≤ 216 cards of
the decks, so a sum over any set of seats' cards (a hand with the kitty, a selection, a lead,
a trick) or over flags per card (≤ 54) fits in ``uint8`` exactly.

Row gathers and scatters: ``a[G]`` on a ``[B, 54]`` array goes through numpy's general fancy
index (``mapiter``), about 3x the instructions of ``np.take(a, G, axis=0)`` (160k against 48k
for 1,024 rows), and ``a[G] = v`` about 1.5x an assignment of whole rows as single items of a
``void`` view (94k against 63k for 512 rows); likewise ``a[G, seats]`` on ``[B, 4, 54]`` is 3x
a take of rows ``G·4 + seats`` of the ``[B·4, 54]`` view (callgrind).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def count_sum(x: np.ndarray, axis=-1) -> np.ndarray:
    """``int16`` sum of ``x`` (``uint8`` card counts or ``bool`` flags per card; every sum
    ≤ 216) along ``axis``, accumulated in ``uint8``. Along the last axis of many rows by
    ``einsum``'s sum-of-products loop, a tight loop a row without the reduction's per-row
    set-up (1,024 rows of 54: ~11 µs against ~23 µs; the earlier ``float32`` product with
    ones through BLAS ~15 µs, and no faster in the benchmark loop)."""
    if x.ndim > 1 and axis in (-1, x.ndim - 1) and x.size >= _EINSUM_ROWS * x.shape[-1]:
        return np.einsum("...j->...", x.view(np.uint8)).astype(np.int16)
    return x.view(np.uint8).sum(axis, dtype=np.uint8).astype(np.int16)


_EINSUM_ROWS = 32  # fewer rows: the uint8 reduction is as fast (timeit, rows of 54)


def rows(a: np.ndarray, G) -> np.ndarray:
    """``a[G]`` (a copy) for an array with the games on axis 0."""
    return a.take(G, axis=0)


def seat_rows(a: np.ndarray, G, seats) -> np.ndarray:
    """``a[G, seats]`` (a copy) for a C-contiguous ``[B, 4, ...]`` array: ``[g, ...]``."""
    return (a.reshape((-1,) + a.shape[2:])).take(G * 4 + seats, axis=0)


_VOID: dict[int, np.dtype] = {}  # row size in bytes -> void dtype (building one costs µs)


def _items(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array as ``void[len(a), 1]``: each row (everything after axis 0) one
    item."""
    size = a.itemsize * (a.size // len(a))
    kind = _VOID.get(size)
    if kind is None:
        kind = _VOID[size] = np.dtype((np.void, size))
    return a.reshape(len(a), -1).view(kind)


def put_rows(a: np.ndarray, G, v) -> None:
    """``a[G] = v`` for a C-contiguous array (``G`` without repeats; ``v`` a scalar or rows of
    ``a``'s row shape). Fewer than ``_ITEM_ROWS`` rows take numpy's fancy assignment: the
    ``void`` view's fixed cost exceeds what it saves per row (timeit, rows of 54 bytes: 20
    rows 1.2 µs fancy against 4.1 µs, 140 rows 2.7 against 3.0, 500 rows 6.2 against 5.6)."""
    if len(G) < _ITEM_ROWS:
        a[G] = v
    elif (isinstance(v, np.ndarray) and v.dtype == a.dtype and v.flags.c_contiguous
            and len(v) == len(G) and v.size == len(G) * (a.size // len(a))):
        _items(a)[G] = _items(v)
    else:  # a scalar (numpy's fancy assignment is as fast for it) or another layout
        a[G] = v


_ITEM_ROWS = 256  # the crossover of the two assignments (timeit above; ~300 rows)


__all__ = ["count_sum", "put_rows", "rows", "seat_rows"]


@lru_cache(maxsize=64)
def row_starts(n: int, width: int = 1) -> np.ndarray:
    """``int64[n]`` (cached, read-only): where row i starts in a flat ``[n·width]`` array
    (``arange(n)`` for width 1: every game's index). Cached because building it is a Python-level
    call that costs more than its use in a step."""
    a = np.arange(0, n * width, width)
    a.flags.writeable = False
    return a
