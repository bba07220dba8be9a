# The two commands of the README. Everything else is a step they use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test test-full test-packages install install-test bench

run: install
	$(BIN)/pbem db upgrade
	$(BIN)/pbem run

test: install-test test-packages
	$(BIN)/python -m pytest -n auto -q

# The tests marked `full` (the rest of the engines' contract suite, the PostgreSQL half of the
# tests that take `db`): CI runs them after `make test`.
test-full: install-test test-packages
	$(BIN)/python -m pytest -n auto -q -m full

test-packages:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	@command -v dovecot >/dev/null || (apt-get update -qq && apt-get install -y -qq dovecot-imapd >/dev/null)  # IMAP tests

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "pbem needs Python 3.11 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

bench: install
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/service.py
	$(BIN)/python bench/mail.py
