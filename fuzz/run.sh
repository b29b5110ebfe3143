#!/usr/bin/env bash
# Fuzz the parsers with cargo-fuzz (libFuzzer), each target for MINUTES of CPU time (default 10),
# seeded with the captured pages and seed texts. Not part of CI: it needs a nightly toolchain
# and cargo-fuzz (`rustup toolchain install nightly && cargo install cargo-fuzz`).
#
#   fuzz/run.sh [MINUTES] [TARGET...]     targets: page api ballot wordcount deadline
#
# Crashes are copied to fuzz/regressions/TARGET/, which parsers/tests/fuzz_regressions.rs
# replays in CI (commit them with the fix). A summary per target goes to fuzz/out/summary.txt.
set -euo pipefail
cd "$(dirname "$0")"
minutes=${1:-10}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(page api ballot wordcount deadline)
jobs=$(nproc)
fixtures=../tests/fixtures

seed() {
  local t=$1 dir=corpus/$1
  mkdir -p "$dir"
  case $t in
    page)
      find "$fixtures" -name '*.html' -o -name '*.xml' -o -name '*.json' | grep -v MANIFEST | head -400 |
        while read -r f; do cp "$f" "$dir/$(basename "$f")"; done ;;
    api)
      find "$fixtures" -path '*mobile*' -name '*.json' -o -path '*pm*' -name '*.json' -o -path '*poll*' |
        while read -r f; do [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"; done ;;
    ballot|wordcount)
      cp "$fixtures"/seeds/* "$dir/" 2>/dev/null || true
      printf '投票对象：李逵\n投票理由：划水' > "$dir/ballot1.txt"
      printf '改票对象：冷雪\n改票理由：改主意了' > "$dir/ballot2.txt"
      printf '大灰狼 第2天 第1次 投票的对象是 李逵 原因是 可疑' > "$dir/ballot3.txt"
      printf '票 小飞' > "$dir/ballot4.txt" ;;
    deadline)
      printf '截止时间：2026年11月29日 21:00（以论坛显示时间为准）' > "$dir/deadline1.txt"
      printf '投票截止时间：１２月２日２１：００' > "$dir/deadline2.txt"
      printf '12月2日晚9点截止，改票截止：20:00' > "$dir/deadline3.txt"
      printf '投票截止前20分钟，即20：40起不再接受托票' > "$dir/deadline4.txt" ;;
  esac
}

mkdir -p out regressions
: > out/summary.txt
cargo +nightly fuzz build --release "${targets[@]/#/}" >&2 2>/dev/null || cargo +nightly fuzz build --release >&2
for t in "${targets[@]}"; do
  seed "$t"
  mkdir -p "out/$t" "regressions/$t"
  secs=$((minutes * 60 / jobs))
  echo "fuzzing $t: $jobs jobs x ${secs}s = $minutes CPU-minutes" >&2
  start=$(date +%s)
  cargo +nightly fuzz run --release "$t" "corpus/$t" -- \
    -jobs="$jobs" -workers="$jobs" -max_total_time="$secs" -rss_limit_mb=2048 \
    -max_len=1048576 -timeout=10 -artifact_prefix="out/$t/" >"out/$t/log.txt" 2>&1 || true
  end=$(date +%s)
  crashes=$(find "out/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l || true)
  execs=$( (grep -ho 'Done [0-9]* runs' fuzz-*.log 2>/dev/null || true) | awk '{s+=$2} END {print s+0}')
  find "out/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) \
    -exec cp {} "regressions/$t/" \;
  rm -f fuzz-*.log
  printf '%-10s %3d CPU-min  wall %4ds  executions %s  crashes/timeouts/ooms %d  corpus %d\n' \
    "$t" "$minutes" "$((end - start))" "$execs" "$crashes" "$(ls "corpus/$t" | wc -l)" | tee -a out/summary.txt
done
