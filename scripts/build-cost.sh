#!/usr/bin/env bash
# What a first build costs (issue 32): a cold `cargo build --release` in an empty target
# directory, with CPU time, wall time, the largest single rustc's memory and the peak of all
# the build's processes together (sampled every 0.1 s from /proc).
#
#   scripts/build-cost.sh [TARGET_DIR] [-- extra cargo args]
#
# Prints one line per rustc (crate, max RSS in MB) sorted by memory, the crates that took the most
# CPU, then the summary.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-/tmp/bansha-build-cost}
shift || true
[ "${1:-}" = "--" ] && shift
rm -rf "$target"
log=$(mktemp)
wrapper=$(mktemp)
cat > "$wrapper" <<'W'
#!/usr/bin/env bash
# RUSTC_WRAPPER: run rustc, log its crate name, max RSS and CPU seconds.
name=unknown
prev=
for a in "$@"; do
  [ "$prev" = "--crate-name" ] && name=$a
  prev=$a
done
exec /usr/bin/time -a -o "$BUILD_COST_LOG" -f "$name %M %U %S" "$@"
W
chmod +x "$wrapper"
cargo fetch --locked >/dev/null
sampler() {
  # The sum of the RSS of every process under the build (cargo, rustc, linkers, build scripts).
  local peak=0
  while kill -0 "$1" 2>/dev/null; do
    local all
    all=$(pstree -p -T "$1" 2>/dev/null | grep -o '([0-9]*)' | tr -d '()' | xargs -r ps -o rss= -p 2>/dev/null | awk '{s+=$1} END {print s+0}')
    [ "$all" -gt "$peak" ] && peak=$all
    echo "$peak" > "$log.peak"
    sleep 0.1
  done
}
start=$(date +%s)
BUILD_COST_LOG=$log RUSTC_WRAPPER=$wrapper CARGO_TARGET_DIR=$target \
  /usr/bin/time -o "$log.time" -f "%U %S %M" cargo build --release --locked "$@" &
pid=$!
sampler "$pid" &
wait "$pid"
end=$(date +%s)
sleep 0.3
sort -k2 -n -r "$log" | awk 'NR <= 12 {printf "%-28s %6.0f MB\n", $1, $2/1024}'
echo "most CPU (s):"
awk '{printf "%-28s %7.1f\n", $1, $3 + $4}' "$log" | sort -k2 -n -r | head -15
read -r user sys _ < "$log.time"
echo "crates compiled: $(wc -l < "$log")"
echo "cpu: user ${user}s + system ${sys}s = $(echo "$user + $sys" | bc) s; wall $((end - start)) s"
echo "largest rustc: $(sort -k2 -n -r "$log" | awk 'NR == 1 {printf "%s %.2f GB", $1, $2/1048576}')"
echo "all processes together, peak: $(awk '{printf "%.2f GB", $1/1048576}' "$log.peak")"
echo "binary: $(stat -c %s "$target/release/bansha" | awk '{printf "%.1f MB (%d bytes)", $1/1e6, $1}')"
echo "target/: $(du -sh "$target" | cut -f1)"
rm -f "$wrapper" "$log" "$log.time" "$log.peak"
