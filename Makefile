# The two commands of the README:
#   make report   install what is needed, build in release mode, reproduce the quick report
#   make test     every test (cargo and pytest)
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
OUT ?= report

.PHONY: report setup build chromium test test-rust test-py bench clean

report: build
	$(VENV)/bin/fctlab reproduce --quick --out $(OUT)

setup: $(VENV)/.deps

$(VENV)/.deps: pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet "maturin>=1.5,<2" "numpy>=1.24" "pandas>=2.0" "pyarrow>=14" "matplotlib>=3.7" "scipy>=1.10" "pytest>=7" "duckdb>=1.0" "dask[distributed]>=2024.1"
	touch $@

build: setup
	. $(VENV)/bin/activate && maturin develop --release --quiet

# Headless Chromium for tests/test_report.py (it opens the report pages): Debian's
# package, installed once if we can (root or passwordless sudo). Without it that
# test is skipped with the reason, or fails when CI is set.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	  { SUDO=; [ "$$(id -u)" = 0 ] || SUDO="sudo -n"; command -v apt-get >/dev/null 2>&1 && \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; } || \
	  echo "make: could not install chromium; the report's browser test will be skipped" >&2

test: build chromium
	cargo test --release --workspace --exclude fctlab-py
	# The scenario fuzzer again with integer-overflow checks on (the test profile).
	cargo test -p fctlab-core --test fuzz_scenarios
	$(VPY) -m pytest -q

bench: build
	$(VENV)/bin/fctlab bench

clean:
	rm -rf target $(VENV)
