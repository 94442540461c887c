#!/usr/bin/env bash
# GET /metrics under load: pinbad with the default report set plus one exported report
# (`prometheus = true`, keys script_name) filled to limits.max_metric_series (100,000 series),
# while pinbad-blast sends RATE requests/s on loopback for DURATION; meanwhile /metrics is scraped
# SCRAPES times, one a second. Prints the scrape times and sizes, and every loss counter.
#
#   RATE=50000 DURATION=40s SCRAPES=20 SCRIPTS=6000 benches/metrics-scrape.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${RATE:-50000}
DURATION=${DURATION:-40s}
SCRAPES=${SCRAPES:-20}
SCRIPTS=${SCRIPTS:-6000}
UDP=${UDP:-127.0.0.1:39302}
HTTP=${HTTP:-127.0.0.1:39380}

cargo build --release --bin pinbad -q
cargo build --release --features corpus --bin pinbad-blast -q
dir=$(mktemp -d)
cat > "$dir/pinbad.toml" <<EOF
state_dir = "$dir/state"
[udp]
listen = ["$UDP"]
[http]
listen = "$HTTP"
[[report]]
name = "scripts"
keys = ["script_name"]
prometheus = true
EOF
target/release/pinbad --config "$dir/pinbad.toml" 2>"$dir/pinbad.log" >/dev/null &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "http://$HTTP/healthz" >/dev/null && break; sleep 0.1; done

# Enough distinct datagrams that every script appears (Zipf popularity).
target/release/pinbad-blast --target "$UDP" --rate "$RATE" --duration "$DURATION" \
  --scripts "$SCRIPTS" --pool 300000 --check "http://$HTTP" >"$dir/blast.txt" 2>&1 &
blast=$!

series() { curl -s "http://$HTTP/metrics" | awk '$1 == "pinbad_metric_series" {print $2}'; }
for _ in $(seq 300); do
  s=$(series); [ "${s%.*}" -ge 99000 ] 2>/dev/null && break; sleep 0.1
done
losses() { curl -s "http://$HTTP/metrics" | grep -E '^pinbad_(kernel_drops_total|temp_pool_dropped_total|metric_requests_dropped_total|requests_accepted_total) ' | tr '\n' ' '; echo; }
echo "series before the scrapes: $(series)"
echo "before the scrapes: $(losses)"
: >"$dir/times"
for _ in $(seq "$SCRAPES"); do
  curl -s -o /dev/null -w '%{time_total} %{size_download}\n' "http://$HTTP/metrics" >>"$dir/times"
  sleep 1
done
echo "after the scrapes:  $(losses)"
wait $blast
[ -s "$dir/times" ] && sort -n "$dir/times" | awk '{t[NR]=$1; b=$2} END {
  printf "scrapes %d: min %.1f ms, median %.1f ms, max %.1f ms, %.1f MB each\n",
    NR, t[1]*1000, t[int((NR+1)/2)]*1000, t[NR]*1000, b/1e6 }'
curl -s "http://$HTTP/metrics" | grep -E '^pinbad_(metric_series|metric_series_lost_total|metric_rounds_dropped_total|metric_requests_dropped_total|temp_pool_dropped_total|kernel_drops_total|requests_accepted_total|requests_merged_total) '
tail -n 4 "$dir/blast.txt"
