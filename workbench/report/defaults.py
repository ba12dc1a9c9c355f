"""Defaults of the report: simulation size, seed, RTP precision, sessions, bands and the PAR sheet's tables."""

DEFAULT_SPINS = 2_000_000
DEFAULT_SEED = 1
DEFAULT_PRECISION = 0.0005  # 95 % half-width of the RTP estimate (0.05 %)
STAKE_PRECISION_FACTOR = 2  # RTP per stake level: half-width = factor x precision (4x cheaper each)
SESSION_SPINS = 1000
SESSION_BANKROLL = 100.0  # x total bet
SESSIONS = 2000
BAND_SPINS = (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)
BAND_CONFIDENCES = (0.90, 0.95, 0.99)
EXCEEDANCE_LEVELS = (1, 10, 100, 1_000, 10_000)  # x total bet; edges of the simulator's win buckets
PAR_TABLES = ("summary", "symbol_counts", "combinations", "per_line", "scatter_pays", "triggers", "prize_structure", "awards")
NONDETERMINISTIC_KEYS = ("elapsed_seconds", "setup_seconds", "spins_per_second", "wall_seconds")
