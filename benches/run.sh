#!/usr/bin/env bash
# Every performance figure in one run, side by side with its target, and the Python peers on the
# same pages in alternating pairs: BeautifulSoup + lxml (what a judge's script does today),
# selectolax (lexbor) on the whole page, and selectolax on the page cut at the post landmarks
# as bansha cuts it (the strongest).
#
#   benches/run.sh            # about 8 minutes after the build; figures in bench-out/
#   BANSHA_BENCH_QUICK=1 benches/run.sh   # a smoke run (short loops), not figures
#
# Needs: a Rust toolchain and python3 with venv (the peer's packages come from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench-out
mkdir -p "$out"

if [ ! -x "$out/venv/bin/python" ]; then
  python3 -m venv "$out/venv"
fi
"$out/venv/bin/pip" install -q --disable-pip-version-check 'beautifulsoup4>=4.12,<5' 'lxml>=5,<7' 'selectolax>=0.3,<2'

echo "bansha figures (cargo bench --bench figures) …" >&2
cargo bench --locked --bench figures -- --out "$out/figures.json" >&2

pairs=3
seconds=3
if [ -n "${BANSHA_BENCH_QUICK:-}" ]; then pairs=1; seconds=0.3; fi
cargo build --release --locked --bin bansha >&2
mapfile -t desktop < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["parse"]["files"]["desktop"]))' "$out/figures.json")
mapfile -t api < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["parse"]["files"]["api"]))' "$out/figures.json")
echo "bansha posts against the Python peers, $pairs alternating pairs each …" >&2
"$out/venv/bin/python" benches/peer/pairs.py "${CARGO_TARGET_DIR:-target}/release/bansha" "$out/venv/bin/python" "$pairs" "$seconds" \
  --desktop "${desktop[@]}" --api "${api[@]}" > "$out/pairs.json"

python3 benches/peer/table.py "$out/figures.json" "$out/pairs.json" | tee "$out/table.txt"
