"""A notice before the first run on a machine: compiling takes a while, once."""

from __future__ import annotations

import html

# modules whose compiled code every editor needs (the exact engine)
EXACT_MODULES = ("workbench.exact.enumerate", "workbench.exact.moments")


def compile_notice(game=None) -> str:
    """Show (and return) a notice if code the editors need is not compiled yet on this machine.

    ``game``: also check the compiled round of its template (simulation).  Returns
    the message shown, or "" when everything is already in the cache.
    """
    from .. import registry
    from .._jit import is_cached

    modules = list(EXACT_MODULES)
    if game is not None:
        build = registry.template(game.game_module).build
        if isinstance(build, str):
            modules.append(build.partition(":")[0])
    missing = [m for m in modules if not is_cached(m)]
    if not missing:
        return ""
    message = ("Compiling the workbench's numeric code for this machine (first run only: up to a minute; "
               "`make` does this during set-up). Later runs start at once.")
    from IPython.display import HTML, display

    display(HTML(f"<div class='wb-info wb-compiling' style='color:#137333;padding:2px 8px'>{html.escape(message)}</div>"))
    return message
