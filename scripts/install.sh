#!/bin/sh
# Install bansha where its systemd unit looks (README.md, "Setting up a real game", step 1):
#   /usr/local/bin/bansha                  the unit's ExecStart
#   /etc/systemd/system/bansha.service     the unit
#   /etc/bansha/, /etc/bansha/credentials/ the configs, and the secrets handed to the service
#                                          (README.md, "Secrets under the service")
# Build first, as yourself (`cargo build --release --locked`), then `sudo scripts/install.sh`.
# DESTDIR=DIR stages the files under DIR instead of / (the tests and .ci/run do);
# BANSHA_BIN=PATH installs another binary than target/release/bansha.
set -eu
cd "$(dirname "$0")/.."
bin="${BANSHA_BIN:-${CARGO_TARGET_DIR:-target}/release/bansha}"
if [ ! -x "$bin" ]; then
  echo "找不到 $bin：请先以自己的身份运行 cargo build --release --locked，再运行 sudo scripts/install.sh" >&2
  exit 1
fi
d="${DESTDIR:-}"
install -D -m 0755 "$bin" "$d/usr/local/bin/bansha"
install -D -m 0644 systemd/bansha.service "$d/etc/systemd/system/bansha.service"
install -d -m 0755 "$d/etc/bansha"
install -d -m 0700 "$d/etc/bansha/credentials"
echo "已安装：$d/usr/local/bin/bansha，$d/etc/systemd/system/bansha.service；配置放在 $d/etc/bansha，密码等机密放在 $d/etc/bansha/credentials（见 README 的“Secrets under the service”）"
if [ -z "$d" ] && command -v systemctl >/dev/null 2>&1; then
  systemctl daemon-reload || true
fi
