"""Run every benchmark script in this folder (what `make bench` does)."""

import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
for script in ("bench_exact.py", "bench_editor.py", "bench_simulate.py", "bench_rtp.py"):
    print(f"== {script}", flush=True)
    subprocess.run([sys.executable, str(here / script)], check=True)
