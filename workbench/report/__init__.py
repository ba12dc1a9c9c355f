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

from . import files, formats, pipeline, tables, workbook
from .defaults import (
    BAND_CONFIDENCES,
    BAND_SPINS,
    DEFAULT_PRECISION,
    DEFAULT_SEED,
    DEFAULT_SPINS,
    EXCEEDANCE_LEVELS,
    NONDETERMINISTIC_KEYS,
    PAR_TABLES,
    SESSIONS,
    SESSION_BANKROLL,
    SESSION_SPINS,
    STAKE_PRECISION_FACTOR,
)
from .display import figure_png, show, show_table
from .files import ReportFiles, files_table, output_paths, report_data, to_json, write_outputs
from .formats import fmt_ci, fmt_num, fmt_one_in, fmt_pct, fmt_x
from .pipeline import (
    HTML_TEMPLATE,
    KERNEL_DISPLAY_NAME,
    REPORT_NOTEBOOK,
    ROOT,
    execute_notebook,
    generate_report,
    kernel_manager_class,
    render_html,
    report_game_file,
)
from .provenance import game_stem, provenance, provenance_table, sha256_file, title_html
from .workbook import write_par_workbook
from .tables import (
    band_table,
    combinations_table,
    par_conventions_table,
    paytable_title,
    pay_rule_text,
    combinations_title,
    prize_title,
    AWARD_ROWS,
    awards_table,
    bonus_awards_table,
    component_table,
    exceedance_table,
    feature_parameters,
    feature_table,
    game_overview,
    key_figures,
    load_report_game,
    max_win_table,
    option_table,
    par_sheet,
    par_tables,
    paytable_table,
    per_line_table,
    prize_table,
    report_stakes,
    round_distribution,
    rtp_estimate,
    rtp_trace,
    scatter_pays_table,
    scatter_table,
    session_table,
    simulated_components_table,
    simulation,
    simulation_table,
    stake_estimates,
    stake_table,
    bet_mode_estimates,
    bet_modes_table,
    strata_table,
    strip_table,
    symbol_table,
    table_lengths,
    triggers_table,
    volatility_table,
)

# private helpers of the former single module ``workbench/report.py``, still reachable here
_strict = files._strict
_finite = formats._finite
_frame = formats._frame
_check_parameters = pipeline._check_parameters
_failed_cell_message = pipeline._failed_cell_message
_module_summary = tables._module_summary
_substitutes_text = tables._substitutes_text

__all__ = [
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
    "game_stem",
    "generate_report",
    "kernel_manager_class",
    "key_figures",
    "load_report_game",
    "max_win_table",
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
