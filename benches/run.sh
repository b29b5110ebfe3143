#!/usr/bin/env bash
# Every performance figure in one run, side by side with its target, and the Python peer
# (requests + BeautifulSoup + lxml, what a judge's script does today) on the same pages.
#
#   benches/run.sh            # about 4 minutes; figures in bench-out/
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
"$out/venv/bin/pip" install -q --disable-pip-version-check 'beautifulsoup4>=4.12,<5' 'lxml>=5,<7'

echo "bansha figures (cargo bench --bench figures) …" >&2
cargo bench --locked --bench figures -- --out "$out/figures.json" >&2

budget=5
[ -n "${BANSHA_BENCH_QUICK:-}" ] && budget=0.3
mapfile -t desktop < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["parse"]["files"]["desktop"]))' "$out/figures.json")
mapfile -t api < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["parse"]["files"]["api"]))' "$out/figures.json")
echo "the Python peer on the same pages …" >&2
"$out/venv/bin/python" benches/peer/parse_peer.py "$budget" "${desktop[@]}" -- "${api[@]}" > "$out/peer.json"

python3 benches/peer/table.py "$out/figures.json" "$out/peer.json" | tee "$out/table.txt"
