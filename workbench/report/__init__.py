"""Reviewer reports: the tables behind ``notebooks/report.ipynb`` and the pipeline that runs it.

:func:`generate_report` executes the parameterized report notebook with
papermill in a fresh kernel running this Python (no kernel spec needs to be
installed), keeps the executed notebook, renders it to a self-contained HTML
page (code hidden, figures embedded as base64 PNG, no external scripts) and
collects the data files the notebook wrote: the PAR sheet as ``.xlsx`` (one
sheet per table), one CSV per table and JSON, plus a JSON of every number in
the report.

The other functions build the report's tables; the notebook only calls them
and displays the result.  Amounts are in multiples of the total bet
(``x total bet``); RTP, hit frequency and probabilities are fractions,
formatted as percent by :func:`fmt_pct`.  Every number depends only on the
game file, ``seed``, ``spins`` and ``precision`` (all randomness is seeded),
so the same inputs give identical tables and JSON.
"""

from __future__ import annotations

import importlib
import sys
import types

# name -> submodule: everything is imported on first use (PEP 562), so `workbench.report.defaults` and the
# CLI's parser load no pandas, papermill or matplotlib
_SUBMODULES = ("defaults", "display", "files", "formats", "pipeline", "provenance", "game_tables", "computations", "tables", "workbook",
               "compliance", "feature_stats", "modes", "expectations", "max_win_round")
_NAMES = {
    'BAND_CONFIDENCES': 'defaults',
    'BAND_SPINS': 'defaults',
    'DEFAULT_PRECISION': 'defaults',
    'DEFAULT_SEED': 'defaults',
    'DEFAULT_SPINS': 'defaults',
    'EXCEEDANCE_LEVELS': 'defaults',
    'NONDETERMINISTIC_KEYS': 'defaults',
    'PAR_TABLES': 'defaults',
    'SESSIONS': 'defaults',
    'SESSION_BANKROLL': 'defaults',
    'SESSION_SPINS': 'defaults',
    'STAKE_PRECISION_FACTOR': 'defaults',
    'HTML_TEMPLATE': 'pipeline',
    'KERNEL_DISPLAY_NAME': 'pipeline',
    'REPORT_NOTEBOOK': 'pipeline',
    'ROOT': 'pipeline',
    'execute_notebook': 'pipeline',
    'generate_report': 'pipeline',
    'kernel_manager_class': 'pipeline',
    'render_html': 'pipeline',
    'report_game_file': 'pipeline',
    'band_table': 'tables',
    'combinations_table': 'tables',
    'compliance_checks': 'compliance',
    'par_conventions_table': 'tables',
    'paytable_title': 'game_tables',
    'pay_rule_text': 'game_tables',
    'combinations_title': 'tables',
    'prize_title': 'tables',
    'AWARD_ROWS': 'tables',
    'awards_table': 'tables',
    'bonus_awards_table': 'tables',
    'component_table': 'tables',
    'exceedance_table': 'tables',
    'feature_parameters': 'game_tables',
    'feature_table': 'tables',
    'game_overview': 'game_tables',
    'design_warnings_table': 'game_tables',
    'key_figures': 'tables',
    'load_report_game': 'computations',
    'max_win_table': 'tables',
    'max_win_round_figures': 'max_win_round',
    'option_table': 'tables',
    'par_sheet': 'computations',
    'par_tables': 'tables',
    'paytable_table': 'game_tables',
    'per_line_table': 'tables',
    'prize_table': 'tables',
    'report_stakes': 'computations',
    'round_distribution': 'computations',
    'rtp_estimate': 'computations',
    'rtp_trace': 'computations',
    'scatter_pays_table': 'tables',
    'scatter_table': 'game_tables',
    'session_table': 'tables',
    'simulated_components_table': 'tables',
    'simulation': 'computations',
    'simulation_table': 'tables',
    'stake_estimates': 'computations',
    'stake_table': 'tables',
    'bet_mode_estimates': 'computations',
    'choice_policies': 'computations',
    'choices_table': 'tables',
    'TimeBudget': 'budget',
    'bet_modes_table': 'tables',
    'strata_table': 'tables',
    'strip_table': 'game_tables',
    'symbol_table': 'game_tables',
    'symbol_title': 'game_tables',
    'pays_column': 'game_tables',
    'par_intro': 'tables',
    'distribution_text': 'tables',
    'table_lengths': 'game_tables',
    'triggers_table': 'tables',
    'volatility_table': 'tables',
    'figure_png': 'display',
    'show': 'display',
    'show_table': 'display',
    'show_note': 'display',
    'ReportFiles': 'files',
    'files_table': 'files',
    'output_paths': 'files',
    'report_data': 'files',
    'to_json': 'files',
    'write_outputs': 'files',
    'fmt_ci': 'formats',
    'fmt_num': 'formats',
    'fmt_one_in': 'formats',
    'fmt_seen': 'formats',
    'fmt_estimated_odds': 'formats',
    'fmt_pct': 'formats',
    'fmt_x': 'formats',
    'game_stem': 'provenance',
    'provenance': 'provenance',
    'provenance_table': 'provenance',
    'sha256_file': 'provenance',
    'title_html': 'provenance',
    'write_par_workbook': 'workbook',
    'feature_statistics': 'computations',
    'simulation_rounds': 'computations',
    'feature_samples_wanted': 'computations',
    'feature_statistics_table': 'feature_stats',
    'feature_statistics_title': 'feature_stats',
    'feature_statistics_data': 'feature_stats',
    'spins_distribution_table': 'feature_stats',
    'skipped_text': 'feature_stats',
    'check_expectations': 'expectations',
    'ModeSheet': 'modes',
    'ModeFigure': 'modes',
    'mode_sheets': 'modes',
    'mode_figures': 'modes',
    'mode_par_table': 'modes',
    'mode_caption': 'modes',
    'mode_symbol_counts': 'modes',
    'strips_appendix': 'modes',
    'strip_stops': 'modes',
    'strips_caption': 'modes',
    'cycle_factors': 'modes',
    'modes_data': 'modes',
    'STOP_NUMBERING': 'modes',
}
# private helpers of the former single module ``workbench/report.py``, still reachable here
_PRIVATE = {'_strict': 'files', '_finite': 'formats', '_frame': 'formats', '_check_parameters': 'pipeline', '_failed_cell_message': 'pipeline', '_module_summary': 'game_tables', '_substitutes_text': 'game_tables'}


def __getattr__(name: str):
    module = _NAMES.get(name) or _PRIVATE.get(name)
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_NAMES) | set(_PRIVATE) | set(_SUBMODULES))


class _Package(types.ModuleType):
    """Importing a submodule binds it on its package; ``provenance`` is also the name of a function, which the
    package's attribute keeps meaning (as when everything was imported at once)."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and name in _NAMES:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "check_expectations",
    "ModeSheet",
    "ModeFigure",
    "mode_sheets",
    "mode_figures",
    "mode_par_table",
    "mode_caption",
    "mode_symbol_counts",
    "strips_appendix",
    "strip_stops",
    "strips_caption",
    "cycle_factors",
    "modes_data",
    "STOP_NUMBERING",
    "feature_statistics",
    "simulation_rounds",
    "feature_samples_wanted",
    "feature_statistics_table",
    "feature_statistics_title",
    "feature_statistics_data",
    "spins_distribution_table",
    "skipped_text",
    "BAND_CONFIDENCES",
    "BAND_SPINS",
    "DEFAULT_PRECISION",
    "DEFAULT_SEED",
    "DEFAULT_SPINS",
    "EXCEEDANCE_LEVELS",
    "HTML_TEMPLATE",
    "KERNEL_DISPLAY_NAME",
    "NONDETERMINISTIC_KEYS",
    "PAR_TABLES",
    "REPORT_NOTEBOOK",
    "ROOT",
    "ReportFiles",
    "SESSIONS",
    "SESSION_BANKROLL",
    "SESSION_SPINS",
    "STAKE_PRECISION_FACTOR",
    "band_table",
    "combinations_table",
    "par_conventions_table",
    "paytable_title",
    "pay_rule_text",
    "combinations_title",
    "prize_title",
    "awards_table",
    "AWARD_ROWS",
    "bonus_awards_table",
    "component_table",
    "exceedance_table",
    "execute_notebook",
    "feature_parameters",
    "feature_table",
    "figure_png",
    "files_table",
    "fmt_ci",
    "fmt_num",
    "fmt_one_in",
    "fmt_pct",
    "fmt_x",
    "game_overview",
    "design_warnings_table",
    "game_stem",
    "generate_report",
    "kernel_manager_class",
    "key_figures",
    "load_report_game",
    "max_win_table",
    "max_win_round_figures",
    "option_table",
    "output_paths",
    "par_sheet",
    "par_tables",
    "paytable_table",
    "per_line_table",
    "prize_table",
    "provenance",
    "provenance_table",
    "render_html",
    "report_data",
    "report_game_file",
    "report_stakes",
    "round_distribution",
    "rtp_estimate",
    "rtp_trace",
    "scatter_pays_table",
    "scatter_table",
    "session_table",
    "sha256_file",
    "show",
    "show_table",
    "simulated_components_table",
    "simulation",
    "simulation_table",
    "stake_estimates",
    "stake_table",
    "bet_mode_estimates",
    "choice_policies",
    "choices_table",
    "TimeBudget",
    "bet_modes_table",
    "strata_table",
    "strip_table",
    "symbol_table",
    "table_lengths",
    "title_html",
    "to_json",
    "triggers_table",
    "volatility_table",
    "write_outputs",
    "write_par_workbook",
]
