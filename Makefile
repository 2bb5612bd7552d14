# netsens build, test and run entry points. Works as root, non-interactively, on a
# fresh Debian 12 with Rust installed; every Python package goes into .venv/.
#
#   make install   .venv/ with netsens installed (editable, release-built native module)
#   make run       install, then the default study (ISCA'97 at small size) and its report
#   make test      install, lint, the wheel, Rust tests, Python tests (test-deps,
#                  slurm-deps: Debian packages they need)
#   make lint      rustfmt --check, clippy -D warnings, ruff check + ruff format --check
#   make docs      the documentation site from docs/ into site/ (MkDocs, --strict: a broken
#                  link or reference fails); open site/index.html
#   make wheel     a release wheel into target/wheels/ (maturin), installable without Rust
#   make bench     the engine, program front-end and application benchmarks, and the
#                  default study timed (each prints its report), start-up, and with
#                  LOGGOPSIM=DIR (a LogGOPSim build) GOAL text to result against it,
#                  then bench-scale
#   make bench-scale  the 2^23-rank dissemination barrier from GOAL text (about 18 GB of
#                  text, written and deleted; ~11 GiB of memory; minutes); SCALE_LOG2=20
#                  for a smaller one
#   make fuzz      each cargo-fuzz target (GOAL parser, platform TOML, unit parsers) for
#                  FUZZ_SECONDS (default 60) from its seed corpus in fuzz/corpus/
#   make install-live  live mode: Open MPI and MPICH (Debian), the PMPI injection library
#                  for each, and netsens-mpi-run (the suite on real MPI)
#   make real-programs-deps  the Debian MPI applications scripts/real_programs.py runs

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules

# rustup installs into ~/.cargo/bin, which non-login shells may not have on PATH.
export PATH := $(or $(CARGO_HOME),$(HOME)/.cargo)/bin:$(PATH)

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MATURIN_REQ := maturin>=1.9.4,<2
DEFAULT_STUDY := studies/isca97.toml
PY_SOURCES := python tests scripts

# Debian packages the build needs beyond a fresh Debian 12 with Rust. `python3 -m
# venv` needs python3-venv (Debian ships ensurepip separately). `make deps` installs
# whichever are missing, and does nothing when all are present.
SYSTEM_PACKAGES := python3-venv
# Trace replay (crates/netsens-trace) reads OTF2 archives through Debian's libotf2.
SYSTEM_PACKAGES += libotf2-trace-dev
MISSING_PACKAGES = $(shell command -v dpkg-query >/dev/null || exit 0; \
	for p in $(SYSTEM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done)

# Debian packages the tests need beyond the build: headless Chromium, which the report
# test drives with playwright (no browser download). `make test-deps` installs it when
# missing.
TEST_SYSTEM_PACKAGES := chromium
# SimGrid 3.32 for the topology's cross-check (tests/test_topology_simgrid.py): its flows
# in Python, and SMPI (smpicxx, smpirun) to replay an exported time-independent trace.
TEST_SYSTEM_PACKAGES += python3-simgrid libsimgrid-dev
# The real programs of scripts/real_programs.py (`make real-programs-deps`): LAMMPS, HPC
# Challenge, CP2K and Quantum ESPRESSO with its example pseudopotentials.
REAL_PROGRAM_PACKAGES := lammps hpcc cp2k quantum-espresso quantum-espresso-data
MISSING_TEST_PACKAGES = $(shell command -v dpkg-query >/dev/null || exit 0; \
	for p in $(TEST_SYSTEM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done)

# The Slurm executor's tests (tests/test_slurm.py) start a real one-node cluster:
# Debian's Slurm 22.05 (slurmctld, slurmd and the client commands) and munge.
SLURM_PACKAGES := slurm-wlm munge
MISSING_SLURM_PACKAGES = $(shell command -v dpkg-query >/dev/null || exit 0; \
	for p in $(SLURM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done)

# Live mode (netsens live): both MPI implementations side by side (each keeps its own
# mpicc/mpirun under /usr/bin/mpicc.openmpi, mpicc.mpich, ...; Debian's alternatives
# pick the default, which netsens never relies on), gfortran and mpi4py's build for
# the Fortran and Python test programs, libclang-dev for the mpi crate's bindings.
LIVE_PACKAGES := openmpi-bin libopenmpi-dev mpich libmpich-dev libclang-dev gfortran
# Trace mode: the library writes OTF2 (libotf2); the tests read archives with otf2-print.
LIVE_PACKAGES += libotf2-trace-dev otf2-tools
MISSING_LIVE_PACKAGES = $(shell command -v dpkg-query >/dev/null || exit 0; \
	for p in $(LIVE_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done)

# The native module is rebuilt when any of these change, or when it is missing (the
# OTF2 reader's C sources are compiled into it by crates/netsens-trace/build.rs).
RUST_INPUTS := Cargo.toml $(wildcard Cargo.lock) $(shell find crates -name '*.rs' -o -name Cargo.toml) \
	$(wildcard native/otf2read/*.c native/otf2read/*.h)
CORE_MODULE := $(wildcard python/netsens/_core*.so)
BUILD_STAMP := $(VENV)/.netsens-built

.PHONY: help deps test-deps slurm-deps live-deps real-programs-deps install install-live pmpi mpi-run live-python run test lint bench bench-scale docs wheel FORCE
.DELETE_ON_ERROR:

help:
	@sed -n 's/^#   //p' $(MAKEFILE_LIST)

deps:
ifneq ($(strip $(MISSING_PACKAGES)),)
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(MISSING_PACKAGES)
endif

test-deps:
ifneq ($(strip $(MISSING_TEST_PACKAGES)),)
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(MISSING_TEST_PACKAGES)
endif

real-programs-deps: live-deps
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(REAL_PROGRAM_PACKAGES) \
	  || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(REAL_PROGRAM_PACKAGES); }

slurm-deps:
ifneq ($(strip $(MISSING_SLURM_PACKAGES)),)
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(MISSING_SLURM_PACKAGES)
endif

live-deps:
ifneq ($(strip $(MISSING_LIVE_PACKAGES)),)
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(MISSING_LIVE_PACKAGES)
endif

# libnetsens-pmpi.so for each MPI implementation (native/pmpi/build/{openmpi,mpich}/).
pmpi: live-deps
	$(MAKE) -C native/pmpi

# netsens-mpi-run, the suite on real MPI, for each MPI implementation: Open MPI into
# target/release/, MPICH into target/mpich/release/ (the mpi crate takes its MPI from
# the MPICC wrapper when first built, so each implementation has its own target dir).
mpi-run: live-deps
	MPICC=mpicc.openmpi cargo build --release -p netsens-mpi
	MPICC=mpicc.mpich cargo build --release -p netsens-mpi --bin netsens-mpi-run --target-dir target/mpich

# mpi4py for the live tests' Python program, built from source against Debian's Open
# MPI (the implementation the library is preloaded for); skipped once it imports.
live-python: install live-deps
	$(BIN)/python -c 'import mpi4py' 2>/dev/null || \
	  MPICC=mpicc.openmpi $(BIN)/python -m pip install --quiet --no-binary mpi4py 'mpi4py>=4'

install-live: install live-deps pmpi mpi-run live-python

$(BIN)/python: | deps
	$(PYTHON) -m venv $(VENV)

$(BIN)/maturin: | $(BIN)/python
	$(BIN)/python -m pip install --quiet '$(MATURIN_REQ)'

# maturin develop installs the dependencies and the dev extra from pyproject.toml,
# then netsens itself in editable mode (python/ is used in place).
$(BUILD_STAMP): $(BIN)/maturin pyproject.toml $(RUST_INPUTS) $(if $(CORE_MODULE),,FORCE)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --extras dev
	touch $@

# The docs and notebook extras of pyproject.toml, for make docs and make test only (so
# make run installs what it did before); read from pyproject.toml, not listed twice.
EXTRAS_STAMP := $(VENV)/.netsens-extras
EXTRAS := docs notebook
$(EXTRAS_STAMP): pyproject.toml | $(BUILD_STAMP)
	$(BIN)/python -c 'import sys, tomllib; extras = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]; print("\n".join(d for e in sys.argv[1:] for d in extras[e]))' $(EXTRAS) > $(VENV)/extras.txt
	$(BIN)/python -m pip install --quiet -r $(VENV)/extras.txt
	touch $@

install: $(BUILD_STAMP)

# A re-run continues an interrupted sweep and recomputes nothing already stored.
run: install
	$(BIN)/netsens sweep $(DEFAULT_STUDY)
	$(BIN)/netsens explain $(DEFAULT_STUDY)
	@echo "report: $$($(BIN)/netsens report $(DEFAULT_STUDY))"

# --strict (also set in mkdocs.yml): a warning, such as a link to a missing page or
# anchor, fails the build.
docs: install $(EXTRAS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# A plain `linux` tag, not manylinux: the native module links Debian's libotf2
# (libopen-trace-format2.so.10), which the wheel does not carry; the machine that
# installs it needs Debian's libopen-trace-format2-10.
WHEEL_DIR := target/wheels
wheel: $(BIN)/maturin | deps
	rm -f $(WHEEL_DIR)/netsens-*.whl
	$(BIN)/maturin build --release --compatibility linux --out $(WHEEL_DIR)

lint: install install-live
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check $(PY_SOURCES)
	$(BIN)/ruff format --check $(PY_SOURCES)

# The wheel is built first: tests/test_wheel.py installs it into a fresh venv.
test: install install-live lint test-deps slurm-deps wheel $(EXTRAS_STAMP)
	cargo test --workspace --profile ci
	$(BIN)/pytest -q tests
	$(MAKE) fuzz FUZZ_SECONDS=60

bench: install
	cargo bench -p netsens-core --bench engine --bench programs --bench sensitivity
	cargo bench -p netsens-apps --bench apps
	cargo bench -p netsens-trace --bench read
	$(BIN)/python scripts/bench_trace.py
	$(BIN)/python scripts/bench_sensitivity.py
	$(BIN)/python scripts/bench_compare.py
	$(BIN)/python scripts/bench_one_run.py
	$(BIN)/python scripts/bench_study.py --study $(DEFAULT_STUDY)
	$(BIN)/python scripts/bench_study.py --study studies/das1998.toml --target 900 \
		--with studies/das1998-reference.toml --with studies/das1998-structures.toml \
		--with studies/das1998-star.toml --with studies/das1998-ring.toml
	$(BIN)/python scripts/bench_study.py --study studies/das1998-paper.toml --target 900 --fast-only \
		--with studies/das1998-paper-reference.toml
	$(BIN)/netsens sweep studies/isca97-paper.toml
	$(BIN)/python scripts/isca97_statements.py --size paper
	$(BIN)/python scripts/bench_startup.py
ifneq ($(LOGGOPSIM),)
	$(BIN)/python scripts/bench_goal.py --loggopsim $(LOGGOPSIM)
else
	@echo "bench_goal: skipped; LOGGOPSIM=DIR (txt2bin and LogGOPSim built with -O3) races the GOAL front end"
endif
	$(MAKE) bench-scale

SCALE_LOG2 ?= 23
bench-scale: install
	$(BIN)/python scripts/bench_scale.py --log2-ranks $(SCALE_LOG2)

# Fuzzing: cargo-fuzz drives libFuzzer with AddressSanitizer, which needs nightly
# flags (-Zsanitizer); RUSTC_BOOTSTRAP=1 lets the installed stable toolchain accept
# them. New inputs go to target/fuzz-corpus/ (the seeds in fuzz/corpus/ stay as they
# are); a crash is saved under fuzz/artifacts/ and fails make (the later targets
# do not run).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := goal platform_toml units

.PHONY: fuzz cargo-fuzz
cargo-fuzz:
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

fuzz: cargo-fuzz
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p target/fuzz-corpus/$$t; \
	  (cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run $$t ../target/fuzz-corpus/$$t corpus/$$t -- \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 -print_final_stats=1) \
	    || exit 1; \
	done

FORCE:
