# JupyterLab as `make lab` starts it: notebooks are saved without outputs (nbstripout), autosave
# included, so the shipped notebooks stay output-free in git however they are run.
from workbench.widgets.storage import strip_outputs_before_save

c.ContentsManager.pre_save_hook = strip_outputs_before_save  # noqa: F821 (c is Jupyter's config object)
