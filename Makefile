# `make demo` and `make test` are the README's two commands: each sets up .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# compat mode: a plain .pth path entry; the default editable finder costs every
	# interpreter start (and so every hook) ~10 ms of imports
	$(BIN)/python -m pip install -q -e '.[dev]' --config-settings editable_mode=compat
	$(BIN)/python -m compileall -q engram
	touch $(STAMP)
	@echo "engram is $(CURDIR)/$(BIN)/engram; to type just 'engram': export PATH=\"$(CURDIR)/$(BIN):\$$PATH\""

demo: $(STAMP)
	$(BIN)/engram demo

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/hook_latency.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
