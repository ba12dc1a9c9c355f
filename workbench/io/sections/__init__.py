"""The sections of a reelset, each checked by one mixin of the builder (:mod:`workbench.io.schema`)."""

from __future__ import annotations





