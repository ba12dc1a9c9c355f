"""What the column transfers of cluster pays share: open-addressing tables of multi-word keys, growing arrays, and
exact integer sums past 64 bits from their residue modulo 2^64 and a bounded float sum."""

from __future__ import annotations

import numpy as np

from .._jit import njit
from ..errors import ExactBudgetError

TRANSFER_STATES_MAX = 4_000_000  # states of one reel step of a transfer (about 80 bytes each)
INT_SUM_MAX = 1 << 63


@njit
def grow2(a, rows):
    out = np.zeros((max(rows, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit
def grow1(a, n):
    out = np.zeros(max(n, 2 * a.shape[0]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit
def key_hash(key):
    """A 64-bit hash of a multi-word key whose low bits depend on every bit of every word (the tables index by the
    low bits; keys often differ only in the high bits of their last word): FNV-style mixing per word, then
    MurmurHash3's finalizer."""
    h = np.uint64(1469598103934665603)
    for k in range(key.shape[0]):
        h ^= np.uint64(key[k])
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    h *= np.uint64(0xC4CEB9FE1A85EC53)
    h ^= h >> np.uint64(33)
    return h


@njit
def rehash(table, ekeys, n):
    size = table.shape[0] * 2
    out = np.full(size, -1, dtype=np.int64)
    mask = np.uint64(size - 1)
    for e in range(n):
        h = key_hash(ekeys[e]) & mask
        while out[h] >= 0:
            h = (h + np.uint64(1)) & mask
        out[h] = e
    return out


@njit(cache=True, inline="always")
def insert(table, k2, first, key):
    """The row (counted from ``first``) of ``key`` among the rows of ``k2`` from ``first`` that ``table`` indexes
    (open addressing), or -1 - its free slot.  Rows are read in place: no array views in the hot loops (their
    reference counts cost more than the probe)."""
    words = key.shape[0]
    mask = np.uint64(table.shape[0] - 1)
    h = key_hash(key) & mask
    while True:
        e = table[h]
        if e < 0:
            return -1 - np.int64(h)
        same = True
        for t in range(words):
            if k2[first + e, t] != key[t]:
                same = False
                break
        if same:
            return e
        h = (h + np.uint64(1)) & mask


def exact_from_residue(where: str, residue: int, approx: float, additions: int, largest: int) -> int:
    """The integer ``x`` with ``x = residue (mod 2^64)`` and ``|x - approx| <= additions x 2^-52 x largest``: the
    exact value of a sum of non-negative terms at most ``largest`` in all, kept modulo 2^64 (``residue``) and in
    floats (``approx``, after at most ``additions`` additions along any term's path, each rounding by at most
    2^-53 relative).  ExactBudgetError when that bound does not single out one integer (it must be under 2^62)."""
    bound = ((additions + 8) * largest >> 52) + 1
    if bound >= 1 << 62:
        raise ExactBudgetError(f"{where}: the float check of the cluster transfer's wide sums is too loose "
                               f"({additions:,} additions x {largest:,} units)")
    base = int(round(approx))
    diff = (residue - base) % (1 << 64)
    if diff >= 1 << 63:
        diff -= 1 << 64
    exact = base + diff
    if not -1 <= exact <= largest or abs(exact - approx) > bound + 1:
        raise ExactBudgetError(f"{where}: the cluster transfer's wide sum is inconsistent (residue {residue}, float "
                               f"{approx!r}, bound {bound:,})")
    return exact
