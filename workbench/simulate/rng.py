"""Random numbers: one stream per chunk, derived from the run's seed.

Chunk ``k`` of stream ``t`` of a run seeded with ``s`` uses numpy's SFC64 bit
generator seeded by ``SeedSequence(s, spawn_key=(t, k))``, so a chunk's
numbers never depend on which worker runs it or in which order.

Compiled code runs the same SFC64 algorithm on a plain ``uint64`` state
array (``[a, b, c, counter, buffered 32 bits, has buffer]``) copied from
numpy's generator: the stream is bit-for-bit numpy's (a test checks it), and
a plain array passes between compiled functions at no cost, unlike numpy's
generator object.
"""

from __future__ import annotations

import numpy as np
from .._jit import njit

# independent streams of one run
STREAM_ROUNDS = 0
STREAM_JACKPOTS = 1
STREAM_CONDITIONAL = 2
STREAM_FEATURES = 3  # feature statistics (workbench.simulate.feature_sample)


def seed_sequence(seed: int, chunk: int, stream: int = STREAM_ROUNDS) -> np.random.SeedSequence:
    return np.random.SeedSequence(int(seed), spawn_key=(int(stream), int(chunk)))


def chunk_generator(seed: int, chunk: int, stream: int = STREAM_ROUNDS) -> np.random.Generator:
    """The numpy Generator of chunk ``chunk`` of stream ``stream`` of a run seeded with ``seed``."""
    return np.random.Generator(np.random.SFC64(seed_sequence(seed, chunk, stream)))


def generator_state(generator: np.random.Generator) -> np.ndarray:
    """State array for compiled code, equal to (and continuing) ``generator``'s SFC64 stream."""
    state = generator.bit_generator.state
    if state["bit_generator"] != "SFC64":
        raise ValueError("compiled draws need an SFC64 generator")
    s = state["state"]["state"]
    return np.array([s[0], s[1], s[2], s[3], state["uinteger"], state["has_uint32"]], dtype=np.uint64)


def chunk_state(seed: int, chunk: int, stream: int = STREAM_ROUNDS) -> np.ndarray:
    """State array of chunk ``chunk`` of stream ``stream`` (see :func:`chunk_generator`)."""
    return generator_state(chunk_generator(seed, chunk, stream))


@njit(cache=True, inline="always")
def next_uint64(state):
    """Next 64 random bits (numpy's SFC64 step)."""
    tmp = state[0] + state[1] + state[3]
    state[3] += np.uint64(1)
    state[0] = state[1] ^ (state[1] >> np.uint64(11))
    state[1] = state[2] + (state[2] << np.uint64(3))
    state[2] = ((state[2] << np.uint64(24)) | (state[2] >> np.uint64(40))) + tmp
    return tmp


@njit(cache=True, inline="always")
def next_uint32(state):
    """Next 32 random bits (numpy's buffering: low half first, then high half)."""
    if state[5] != np.uint64(0):
        state[5] = np.uint64(0)
        return np.uint32(state[4])
    value = next_uint64(state)
    state[5] = np.uint64(1)
    state[4] = value >> np.uint64(32)
    return np.uint32(value & np.uint64(0xFFFFFFFF))


@njit(cache=True, inline="always")
def uniform(state):
    """Uniform float in [0, 1) (53 random bits, as numpy)."""
    return float(next_uint64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def _bounded_slow(state, n, m):
    """Rejection step of :func:`bounded`, kept out of line: its division is rarely needed."""
    low = np.uint32(m & np.uint64(0xFFFFFFFF))
    # 2^32 mod n, numpy's (-n) % n in unsigned 32-bit arithmetic; written in 64 bits because numba does uint32
    # arithmetic in signed 64-bit integers, where (0 - n) % n is 0 (draws then differed from numpy's, and were biased)
    threshold = np.uint32((np.uint64(4294967296) - np.uint64(n)) % np.uint64(n))
    while low < threshold:
        m = np.uint64(next_uint32(state)) * np.uint64(n)
        low = np.uint32(m & np.uint64(0xFFFFFFFF))
    return np.int64(m >> np.uint64(32))


@njit(cache=True, inline="always")
def bounded(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (Lemire's unbiased method)."""
    m = np.uint64(next_uint32(state)) * np.uint64(n)
    if np.uint32(m & np.uint64(0xFFFFFFFF)) < np.uint32(n):
        return _bounded_slow(state, n, m)
    return np.int64(m >> np.uint64(32))


@njit(cache=True, inline="always")
def weighted_index(cumulative, state):
    """Index drawn with probability proportional to weight; ``cumulative`` = cumsum of integer weights."""
    total = cumulative[cumulative.shape[0] - 1]
    u = bounded(state, total)
    lo = 0
    hi = cumulative.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo
