#!/usr/bin/env bash
# The simulator over the pure tally (issue 33, tests/sim): N seeded games on m103, chuhan,
# jiaohui and qipan (ballots by private message), each day's tally checked against the
# simulator's own oracle and invariants. The first seed is drawn fresh unless given (printed, so
# a finding replays with BANSHA_SIM_SEED=...); a failing seed is shrunk and printed with the
# command that replays it. Prints seeds/s and simulated game-days/s.
#
#   scripts/sim.sh --seeds N [--start S] [--release] [--service]
#
# --service runs the whole-service simulator (tests/simd) instead of the tally's.
#
# --release builds with the `profiling` profile (the release build with line tables and symbols):
# about 70 seeds/s there against 6–8 in a debug build (2 shared cores).
# Exits non-zero on the first failing seed.
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=1000
start=""
profile=()
service=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    --start) start="$2"; shift 2 ;;
    --release) profile=(--profile profiling); shift ;;
    --service) service=1; shift ;;
    *) echo "usage: scripts/sim.sh --seeds N [--start S] [--release] [--service]" >&2; exit 2 ;;
  esac
done
if [ -n "$service" ]; then
  export BANSHA_SIMD_SEEDS="$seeds"
  export BANSHA_SIMD_START="${start:-$(( $(od -An -N6 -tu8 /dev/urandom | tr -d ' ') % 1000000000000 ))}"
  cargo test --locked "${profile[@]}" --test simd seeds -- --nocapture 2>&1 | grep -E '^simd|fails|shrunk|replay|^day|test result'
  exit "${PIPESTATUS[0]}"
fi
export BANSHA_SIM_SEEDS="$seeds"
export BANSHA_SIM_START="${start:-$(( $(od -An -N6 -tu8 /dev/urandom | tr -d ' ') % 1000000000000 ))}"
cargo test --locked "${profile[@]}" --test sim seeds -- --nocapture 2>&1 | grep -E '^sim|simulator|shrunk|replay|^  |^day|^seed|test result'
