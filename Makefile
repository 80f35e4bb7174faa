# One entry point for humans and CI. `make run` trains a bot with configs/quickstart.yaml and
# prints its evaluation against the baselines; `make test` runs the default test suite.
# Both create .venv on first use.

PYTHON ?= python3.11
# extras to install; .ci/run adds distributed (Ray) so the distributed tests run there
EXTRAS ?= dev
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: venv run test test-slow bench lint notebooks clean

venv: $(STAMP)

# re-install only when pyproject.toml changes (the stamp is newer otherwise)
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

run: venv
	$(BIN)/python train.py --config configs/quickstart.yaml

test: venv
	$(BIN)/pytest

test-slow: venv
	$(BIN)/pytest -m slow

bench: venv
	@if ls benchmarks/*.py >/dev/null 2>&1; then \
		for f in benchmarks/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done; \
	else echo "no benchmarks yet (benchmarks/*.py)"; fi

lint: venv
	$(BIN)/ruff check .

# executed copies of notebooks/ (outputs kept) in docs/notebooks/, full budgets
notebooks: venv
	$(BIN)/python docs/build_notebooks.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache
