#!/usr/bin/env bash
# render-report.sh renders a full-size sample report (237 heads × 50 rules,
# 20 epochs × 1,000 batches; see TestWriteSample in internal/report) and
# screenshots it in headless Chromium, to check the page in a real browser.
#
# Usage: scripts/render-report.sh [HTML [PNG]]   (default /tmp/x.html /tmp/report.png)
# WINDOW_SIZE=W,H overrides the window size (default 1280,2000).
# Chromium is installed from Debian (apt-get install chromium) when missing.
set -euo pipefail

cd "$(dirname "$0")/.."
html=$(realpath -m "${1:-/tmp/x.html}")
png=$(realpath -m "${2:-/tmp/report.png}")
size=${WINDOW_SIZE:-1280,2000}

if ! command -v chromium >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
	$sudo apt-get update
	$sudo apt-get install -y chromium
fi

rm -f "$html" "$png"
go test ./internal/report -run '^TestWriteSample$' -count=1 -args -sample="$html"
test -s "$html" || { echo "render-report: no sample written to $html" >&2; exit 1; }
if grep -Eq '(src|href)="(https?:)?//' "$html"; then
	echo "render-report: $html references the network" >&2
	exit 1
fi

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$profile" --screenshot="$png" --window-size="$size" \
	"file://$html" 2>"$profile/chromium.log" || {
	cat "$profile/chromium.log" >&2
	exit 1
}

# The PNG must exist, carry the PNG signature, have the window's size and
# not be trivially small (a blank page compresses to a few kilobytes).
test -s "$png" || { echo "render-report: no screenshot at $png" >&2; exit 1; }
sig=$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')
[ "$sig" = "89504e470d0a1a0a" ] || { echo "render-report: $png is not a PNG" >&2; exit 1; }
w=$((16#$(od -An -tx1 -j16 -N4 "$png" | tr -d ' \n')))
h=$((16#$(od -An -tx1 -j20 -N4 "$png" | tr -d ' \n')))
bytes=$(stat -c %s "$png")
if [ "$bytes" -lt 30000 ]; then
	echo "render-report: $png is only $bytes bytes: blank page?" >&2
	exit 1
fi
echo "render-report: $html ($(stat -c %s "$html") bytes) -> $png (${w}x${h}, $bytes bytes)"
