"""Exports of a game's math for game servers (see :mod:`.stake`)."""

from .stake import ExportCheck, ModeExport, StakeExport, check_stake_export, export_stake, reweight_to_rtp

__all__ = ["ExportCheck", "ModeExport", "StakeExport", "check_stake_export", "export_stake", "reweight_to_rtp"]
