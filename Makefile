# Entry points: `make demo`, `make test` (the README's test command), `make test-slow` (the
# tests marked slow), `make test-portable` (the
# numerical tests under another OpenBLAS kernel, one thread), `make guard` (the speed ratio
# check of CI), `make docs` (Sphinx site,
# gallery executed -> docs/_build/html), `make lint` (ruff), `make bench`. Each creates .venv with
# python3 if needed.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs
LINT_STAMP := $(VENV)/.installed-lint
SPHINXOPTS ?= -W --keep-going

.PHONY: demo test test-slow test-portable guard bench docs lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/graphdr demo --out graphdr-report

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "not slow" --durations=15

# The tests marked slow (the demo pipeline, estimator checks of default searches); CI runs them.
# Then every benchmark's smoke run, alone (its time budget is for the machine to itself).
test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 -m "slow and not bench_smoke" --durations=10
	$(BIN)/python -m pytest -m bench_smoke --durations=1

# The numerical modules again under an older OpenBLAS kernel and one BLAS thread: the same
# results on another CPU (docs/development.rst, "Portability").
PORTABLE_TESTS = tests/test_pinned_outputs.py tests/test_determinism.py tests/test_solvers.py \
	tests/test_kernel.py tests/test_kernel_inplace.py tests/test_linear.py \
	tests/test_linear_ridge.py tests/test_qmi.py tests/test_qmi_ascent.py tests/test_mkl.py \
	tests/test_dee.py tests/test_graphs.py tests/test_tuning.py tests/test_scaling.py \
	tests/test_maps.py tests/test_sampling.py tests/test_input_errors.py tests/test_propagation.py \
	tests/test_map_dask.py tests/test_label_issues.py tests/test_lists.py \
	tests/test_heavy_tailed.py tests/test_cauchy_field.py
test-portable: $(STAMP)
	OPENBLAS_CORETYPE=Prescott OPENBLAS_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 -q \
		-p no:cacheprovider $(PORTABLE_TESTS)

# The quick ratio check of CI (benchmarks/guard.py, about 40 s): each core fit against its
# floor measured in the same run, with the machine's default threads; fails above 5 x.
guard: $(STAMP)
	$(BIN)/python -m benchmarks run guard

bench: $(STAMP)
	$(BIN)/python benchmarks/run_all.py

$(DOCS_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,docs]"
	touch $(DOCS_STAMP)

# Warnings are errors (a broken reference or docstring fails), and so is an example that raises.
docs: $(DOCS_STAMP)
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(BIN)/sphinx-build -b html $(SPHINXOPTS) docs docs/_build/html
	@echo "Documentation: docs/_build/html/index.html"

$(LINT_STAMP): | $(BIN)/python
	$(BIN)/python -m pip install --quiet "ruff>=0.5"
	touch $(LINT_STAMP)

lint: $(LINT_STAMP)
	$(BIN)/ruff check graphdr tests benchmarks examples docs

clean:
	rm -rf $(VENV) graphdr-report .pytest_cache build *.egg-info docs/_build docs/generated \
		docs/auto_examples
