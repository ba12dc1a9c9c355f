# Everything the project needs is installed from pyproject.toml into .venv.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NPROC := $(shell nproc 2>/dev/null || echo 1)

.PHONY: test report lab bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	# compile the shipped games' code once now, one game per core, so the first editor or report run starts at once
	$(BIN)/workbench warm --all --workers $(NPROC)
	touch $(STAMP)

# one test process per core (pytest-xdist; worksteal: an idle process takes tests queued for a busy one)
test: $(STAMP)
	$(BIN)/python -m pytest -q --durations=25 -n $(NPROC) --dist worksteal

report: $(STAMP)
	$(BIN)/workbench report --all --out reports --workers $(NPROC)

# --allow-root only for root (JupyterLab refuses root without it); notebooks are saved without outputs
lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/ --config=notebooks/.jupyter_server_config.py $(if $(filter 0,$(shell id -u)),--allow-root)

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) reports
