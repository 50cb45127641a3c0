# The README's two commands: `make demo` (set up, then the main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
VENV_FLAGS ?=
TORCH ?= torch==2.13.0
PY := $(VENV)/bin/python
GG := $(VENV)/bin/gamegrammar
DEMO ?= runs/demo

.PHONY: setup demo test lint bench clean

# Installs torch deliberately (the CPU wheel) only when the environment has none:
# a machine with a CUDA torch keeps it (make setup VENV_FLAGS=--system-site-packages,
# or VENV=/path/to/your/env).
setup: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

demo: setup
	$(GG) generate --episodes 4000 --seed 0 --workers 2 --out $(DEMO)/corpus --overwrite
	$(GG) corpus stats $(DEMO)/corpus

test: setup
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: setup
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) runs
