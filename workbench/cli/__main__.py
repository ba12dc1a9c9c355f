"""``python -m workbench.cli``: the ``workbench`` command."""

import sys

from . import main

sys.exit(main())
