#!/bin/bash
# The 16-core experiment of ../shared/fidelity16 re-run on the current code, with warm
# traces (docs/measurements/fidelity.md says what it measured before).
#
#   bash scripts/fidelity16_rerun.sh prepare [DEVKIT]  here, on the build machine: builds
#        netsens-mpi-run and the PMPI library from this tree, copies DEVKIT (default
#        ../shared/fidelity16/devkit) to fidelity16-kit/ (git-ignored), packs its
#        bundle there (build_bundle.sh) and writes the two platforms its run.sh uses
#   bash scripts/fidelity16_rerun.sh device            on the 16-core machine, from the
#        repository root with fidelity16-kit/ beside it: the kit's run.sh (calibration
#        x3, live at 16 and 8 ranks, then traces), writing to $OUT, then calibrations
#        with G = 2 and 10 ns/B injected ($OUT/calibrate-G{2,10}ns/calibration.json:
#        G_long, the long messages' G, must come out at the injected G; alone, after a
#        device run: bash scripts/fidelity16_rerun.sh injected-g), then calibrations
#        whose largest size is 2, 4, 32 and 128 KiB ($OUT/calibrate-max-M: the per-byte
#        cost by size band; alone, after a device run: ... size-bands; on a machine
#        of its own, the kit's calibrations and the bands only, a minute or less:
#        bash scripts/fidelity16_rerun.sh device-bands)
#   bash scripts/fidelity16_rerun.sh analyze DIR       here: DIR holds what $OUT returned;
#        the kit's analyze.py, then scripts/fidelity_table.py on the returned data and
#        scripts/calibration_bands.py on the size bands' calibrations (alone: ... bands DIR)
#
# What differs from the first run: the traces of DEVKIT_WARM_APPS (default "radb mg ft")
# record DEVKIT_TRACE_REPEAT (default 5, the live jobs' --repeat) runs in one job
# (netsens-mpi-run --repeat, the recording paused between runs), so `netsens replay`
# reports their median run, as `live --repeat 5` does (with 3 runs, the first cold, the
# median is the slower of two warm runs: mg at 8 ranks replayed 10.82 ms where its other
# warm run gave 9.55); em3d-write stays one run (three would pass the 64 MiB that
# comes back). The calibrations record o_s_stream and o_r_stream (the streaming
# overheads) beside the ping-pong's o_s and o_r. DEVKIT_TRACES=0 skips the traces (more
# live rounds in a device job: set E ran `DEVKIT_INSTALL=0 DEVKIT_TRACES=0
# DEVKIT_ROUNDS=1 bash fidelity16-kit/run.sh` in turns with a kit of another commit's
# netsens-mpi-run, to compare two backends on one machine).
#
# Time on 16 free cores: the kit's budget (DEVKIT_BUDGET_S, 280 s) plus packing, about
# 5 to 6 minutes in all; give the device command 540 s.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KIT=$ROOT/fidelity16-kit

prepare() {
  local devkit=${1:-$ROOT/../shared/fidelity16/devkit}
  [[ -f $devkit/run.sh ]] || { echo "error: no devkit at $devkit" >&2; exit 2; }
  make -s -C "$ROOT/native/pmpi"
  (cd "$ROOT" && MPICC=mpicc.openmpi cargo build --release -q -p netsens-mpi --bin netsens-mpi-run)
  rm -rf "$KIT"
  cp -r "$devkit" "$KIT"
  chmod -R u+w "$KIT"
  # The ranks' platforms (compute costs; what is injected comes from NETSENS_*).
  mkdir -p "$KIT/platforms"
  "$ROOT/.venv/bin/python" - "$KIT/platforms" <<'EOF'
import sys
from pathlib import Path
from netsens import _core
zero = {"L": "0ps", "o": "0ps", "g": "0ps", "G": "0ps/B", "O": "0ps/B"}
out = Path(sys.argv[1])
(out / "base.toml").write_text(_core.platform_toml("loggopsim", zero))
(out / "o50us.toml").write_text(_core.platform_toml("loggopsim", zero | {"o": "50us"}))
EOF
  # Warm traces: the traced job runs the application several times (one archive).
  local warm='$( [[ " ${DEVKIT_WARM_APPS:-radb mg ft} " == *" $app "* ]] \&\& echo --repeat "${DEVKIT_TRACE_REPEAT:-5}" )'
  sed -i "s|--out \"\$t/live\"\$|--out \"\$t/live\" $warm|" "$KIT/run.sh"
  grep -q 'DEVKIT_WARM_APPS' "$KIT/run.sh" || { echo "error: run.sh's trace step was not found" >&2; exit 2; }
  # DEVKIT_TRACES=0: live jobs and calibrations only (more live rounds in less time).
  sed -i 's|^  for R in \$RANKS_LIST; do trace_all "\$R"; done|  [[ ${DEVKIT_TRACES:-1} == 1 ]] \&\& for R in $RANKS_LIST; do trace_all "$R"; done|' "$KIT/run.sh"
  grep -q 'DEVKIT_TRACES' "$KIT/run.sh" || { echo "error: run.sh's trace loop was not found" >&2; exit 2; }
  # The kit's analysis imports the module by its place before python/netsens was split.
  sed -i 's/from netsens.validate import/from netsens.live.validate import/' "$KIT/analyze.py"
  NETSENS_MAIN=$ROOT bash "$KIT/build_bundle.sh"
  echo "ready: $(du -sh "$KIT" | cut -f1) in $KIT; on the device: bash scripts/fidelity16_rerun.sh device"
}

device() {
  [[ -f $KIT/root.tar.gz ]] || { echo "error: $KIT has no bundle; run prepare first" >&2; exit 2; }
  export OUT=${OUT:-$ROOT/fidelity16-out}
  bash "$KIT/run.sh"
  injected_g
  size_bands
}

# Only the calibrations, on a machine of its own: the kit installs the MPI and runs its
# smoke test and three calibrations (no live runs, no traces: no application), then
# the size bands.
device_bands() {
  [[ -f $KIT/root.tar.gz ]] || { echo "error: $KIT has no bundle; run prepare first" >&2; exit 2; }
  export OUT=${OUT:-$ROOT/fidelity16-out}
  DEVKIT_RANKS=2 DEVKIT_APPS=" " bash "$KIT/run.sh"
  size_bands
}

# One calibration on two ranks, as `calibrate --live` runs it, with the MPI and the
# netsens binaries the kit's run.sh installed (DEVKIT_WORK/ns): calibration DIR
# G_FS_PER_B [netsens-mpi-run options].
calibration() {
  local ns=${DEVKIT_WORK:-/tmp/netsens-devkit}/ns d=$1 gap=$2
  shift 2
  mkdir -p "$d"
  OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_base_warn_component_unused=0 \
    timeout -k 5 60 mpirun.openmpi --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 \
    -np 2 --bind-to core:overload-allowed --map-by core -x LD_PRELOAD="$ns/lib/libnetsens-pmpi.so" \
    -x NETSENS_L_PS=0 -x NETSENS_O_PS=0 -x NETSENS_O_FS_PER_B=0 -x NETSENS_GAP_PS=0 \
    -x NETSENS_GAP_FS_PER_B="$gap" "$ns/bin/netsens-mpi-run" --calibrate --reps 40 "$@" \
    --out "$d" > "$d/stdout.txt" 2> "$d/stderr.txt" < /dev/null
}

# G injected, as `calibrate --live --G 2ns/B` runs it.
injected_g() {
  local g rc
  for g in 2 10; do
    calibration "$OUT/calibrate-G${g}ns" $((g * 1000000)) && rc=0 || rc=$?
    echo "calibration with G = $g ns/B injected: rc=$rc; $(ls "$OUT/calibrate-G${g}ns")"
  done
}

# The per-byte cost by size band, nothing injected: the long-message fit of a
# calibration whose largest size is M spans a quarter of M (above S) to M
# (scripts/calibration_bands.py reads them; a few seconds each).
SIZE_BANDS="2048 4096 32768 131072"
size_bands() {
  local m rc
  for m in $SIZE_BANDS; do
    calibration "$OUT/calibrate-max-$m" 0 --max-size "$m" && rc=0 || rc=$?
    echo "calibration up to $m B: rc=$rc; $(ls "$OUT/calibrate-max-$m")"
  done
}

analyze() {
  local dir=${1:?usage: fidelity16_rerun.sh analyze DIR}
  "$ROOT/.venv/bin/python" "$KIT/analyze.py" "$dir"
  "$ROOT/.venv/bin/python" "$ROOT/scripts/fidelity_table.py" "$dir" \
    --platform "calibrated=$dir/analysis/machine.toml" --platform "paid=$dir/analysis/machine.toml" \
    --o calibrated --paid paid --apps "${APPS:-radb-small,em3d-write-small,mg-tiny,ft-tiny}"
  bands "$dir"
}

# The per-byte cost by size band (size-bands), with the first calibration's 1 MiB.
bands() {
  local dir=${1:-} bands=() m first
  [[ -d $dir ]] || { echo "error: no folder '$dir' (usage: fidelity16_rerun.sh bands DIR)" >&2; exit 2; }
  for m in $SIZE_BANDS; do
    [[ -f $dir/calibrate-max-$m/calibration.json ]] && bands+=("$m=$dir/calibrate-max-$m")
  done
  first=$(find "$dir" -path '*calibrate-1/calibration.json' | head -1)
  [[ -n $first ]] && bands+=("1048576=$(dirname "$first")")
  if ((${#bands[@]})); then
    "$ROOT/.venv/bin/python" "$ROOT/scripts/calibration_bands.py" "${bands[@]}"
  fi
}

case ${1:-} in
  prepare) shift; prepare "$@" ;;
  device) device ;;
  injected-g) OUT=${OUT:-$ROOT/fidelity16-out} injected_g ;;
  size-bands) OUT=${OUT:-$ROOT/fidelity16-out} size_bands ;;
  device-bands) device_bands ;;
  bands) shift; bands "$@" ;;
  analyze) shift; analyze "$@" ;;
  *) sed -n '2,32p' "$0"; exit 2 ;;
esac
