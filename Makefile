# The two commands of the README:
#   make report   install what is needed, build in release mode, reproduce the quick report
#   make test     lint, docs and every test (cargo and pytest)
PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
OUT ?= report

.PHONY: report setup build chromium lint fmt docs test test-rust test-py bench clean

report: build
	$(VENV)/bin/fctlab reproduce --quick --out $(OUT)

setup: $(VENV)/.deps

# Python dependencies are declared once, in pyproject.toml; this installs the
# package in editable mode with its test, docs and cluster extras (which also
# builds the engine once).
$(VENV)/.deps: pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip "maturin>=1.5,<2"
	$(VPY) -m pip install --quiet -e ".[test,docs,cluster]"
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

# rustfmt, clippy (warnings are errors) and ruff (lint and format) on the whole tree.
lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check --quiet .
	$(VENV)/bin/ruff format --check --quiet .

# Apply the formatters.
fmt: setup
	cargo fmt --all
	$(VENV)/bin/ruff check --fix --quiet .
	$(VENV)/bin/ruff format --quiet .

# The documentation site (mkdocs.yml, pages under docs/) into site/, warnings as
# errors. The reference pages are generated: .venv/bin/python -m fctlab.docs_ref
docs: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet

test: lint build chromium docs
	cargo test --release --workspace --exclude fctlab-py
	# The scenario fuzzer again with integer-overflow checks on (the test profile).
	cargo test -p fctlab-core --test fuzz_scenarios
	$(VPY) -m pytest -q

bench: build
	$(VENV)/bin/fctlab bench

clean:
	rm -rf target $(VENV)
