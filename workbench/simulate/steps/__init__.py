"""Compiled steps that round templates compose into rounds, one module per concern.

Each block is a small numba function over plain arrays:

- spinning and paying a screen: :func:`base_spin`, :func:`pay_screen`;
- weighted tables and wheels, including "spin again but not the same prize":
  :func:`draw_table`, :func:`draw_table_excluding`;
- wilds: whole reels turned wild (:func:`wild_reels`), persisting wilds at
  fixed positions (:func:`apply_mask`), up to N wilds at random positions
  except excluded ones (:func:`place_random_wilds`), wild overlays of several
  sizes (:func:`overlay_squares`), an expanding symbol turning its reel wild
  (:func:`expand_reel`);
- free-spin counting with a cap on total spins (:func:`add_free_spins`);
- a minimum guaranteed feature win (:func:`guarantee`) and a max-win cap that
  ends the round (:func:`cap_reached`, :func:`apply_cap`).
"""

from .spin import pay_windows, base_spin, pay_screen
from .tables import draw_table, draw_table_excluding
from .wilds import wild_reels, apply_mask, place_random_wilds, overlay_squares, expand_reel
from .free_spins import add_free_spins
from .caps import guarantee, round_total, cap_reached, apply_cap

__all__ = [
    "add_free_spins",
    "apply_cap",
    "apply_mask",
    "base_spin",
    "cap_reached",
    "draw_table",
    "draw_table_excluding",
    "expand_reel",
    "guarantee",
    "overlay_squares",
    "pay_screen",
    "pay_windows",
    "place_random_wilds",
    "round_total",
    "wild_reels",
]
