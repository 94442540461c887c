#!/usr/bin/env bash
# The SQL front end's cost while ingesting: pinbad with the default report set, loaded by
# pinbad-blast at RATE (default 100k/s) with SCRIPTS (default 10000) scripts, so that
# report_by_script_name holds ~10k rows and the raw pool its POOL requests; during the measured
# run, the mariadb client runs in turn
#   A: SELECT * FROM report_by_script_name                       (the whole 10k-row report)
#   B: SELECT hostname, COUNT(*), SUM(req_time) FROM request GROUP BY hostname   (the whole pool)
# while a loop queries the HTTP API's top-100 (as benches/e2e.sh). Prints one JSON object: each
# statement's wall times (median, p99, count, rows), ingest loss (pinbad-blast --check), the HTTP
# query's p99, and the RSS a session adds (sessions opened and kept idle after a query, divided).
#
# Usage: benches/sql.sh            Env: RATE=100000 DURATION=30s WARMUP=15s SCRIPTS=10000
#        POOL=1000000 SESSIONS=16 UDP_PORT=39202 HTTP_PORT=39280 MYSQL_PORT=39206
# Bounded: every blast run stops by itself; only 127.0.0.1 is targeted; pinbad is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common/http_top100.sh

RATE=${RATE:-100000}
DURATION=${DURATION:-30s}
WARMUP=${WARMUP:-15s}
SCRIPTS=${SCRIPTS:-10000}
POOL=${POOL:-1000000}
SESSIONS=${SESSIONS:-64}
UDP_PORT=${UDP_PORT:-39202}
HTTP_PORT=${HTTP_PORT:-39280}
MYSQL_PORT=${MYSQL_PORT:-39206}

# The daemon as it ships; pinbad-blast needs the `corpus` feature (its datagram generator).
cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
command -v mariadb > /dev/null || { echo "benches/sql.sh needs the mariadb client" >&2; exit 1; }
work=$(mktemp -d)
PID=""; HOLD=""
trap 'kill $PID $HOLD 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
stats_history = "5m"
request_pool_size = $POOL
timer_pool_size = $((POOL * 12))
tag_pool_size = $((POOL * 40))
[limits]
max_query_limit = 100000
[mysql]
max_query_time = "5m"
max_connections = $((SESSIONS + 8))
EOF
target/release/pinbad --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" \
  --http "127.0.0.1:$HTTP_PORT" --mysql "127.0.0.1:$MYSQL_PORT" > "$work/stdout" 2> "$work/stderr" &
PID=$!
for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null || { echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1; }
URL="http://127.0.0.1:$HTTP_PORT"
sql() { mariadb -h 127.0.0.1 -P "$MYSQL_PORT" -u bench --batch pinba -e "$1"; }

# Fill the window and the pool, unmeasured.
target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "$WARMUP" \
  --scripts "$SCRIPTS" --check "$URL" --json > "$work/warmup.json"

end=$((SECONDS + ${DURATION%s}))
( http_top100 "$URL" "$end" > "$work/http" ) &
QPID=$!
( while [ $SECONDS -lt $end ]; do
    for q in A B; do
      case $q in
        A) stmt="SELECT * FROM report_by_script_name" ;;
        B) stmt="SELECT hostname, COUNT(*), SUM(req_time) FROM request GROUP BY hostname" ;;
      esac
      t0=$(date +%s.%N)
      rows=$(sql "$stmt" | wc -l)
      t1=$(date +%s.%N)
      echo "$q $(echo "$t1 - $t0" | bc -l) $((rows - 1))"
    done
  done > "$work/sql" ) &
SQLPID=$!
target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "$DURATION" \
  --scripts "$SCRIPTS" --check "$URL" --json > "$work/blast.json"
wait "$QPID" "$SQLPID" || true

# A session's memory: SESSIONS sessions, each after a query, held open (once the traffic has
# stopped and the memory the burst freed has gone back, so that the difference is theirs).
rss() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }
sleep 8
rss0=$(rss)
python3 - "$MYSQL_PORT" "$SESSIONS" > /dev/null 2>&1 <<'PY' &
import socket, subprocess, sys, time
port, n = sys.argv[1], int(sys.argv[2])
procs = [subprocess.Popen(["mariadb", "-h", "127.0.0.1", "-P", port, "-u", "bench", "pinba"],
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL) for _ in range(n)]
for p in procs:
    p.stdin.write(b"SELECT COUNT(*) FROM request; SELECT * FROM info;\n"); p.stdin.flush()
time.sleep(30)
PY
HOLD=$!
for _ in $(seq 100); do
  cur=$(curl -s "$URL/api/v1/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["mysql"]["current_sessions"])')
  [ "$cur" -ge "$SESSIONS" ] && break; sleep 0.1
done
sleep 2
rss1=$(rss)
kill "$HOLD" 2>/dev/null || true

python3 - "$work" "$rss0" "$rss1" "$SESSIONS" <<'PY'
import json, sys, statistics
work, rss0, rss1, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else None
out = {}
lines = [l.split() for l in open(f"{work}/sql") if l.strip()]
for q, name in (("A", "select_star_report_by_script_name"), ("B", "group_by_over_raw_pool")):
    ts = [float(l[1]) for l in lines if l[0] == q]
    rows = [int(l[2]) for l in lines if l[0] == q]
    out[name] = {"count": len(ts), "median_s": statistics.median(ts) if ts else None,
                 "p99_s": pct(ts, 99), "rows_median": statistics.median(rows) if rows else None}
http = [float(l) for l in open(f"{work}/http") if l.strip()]
out["http_top100_p99_ms"] = (pct(http, 99) or 0) * 1000
blast = json.load(open(f"{work}/blast.json"))
out["ingest"] = {k: blast.get(k) for k in ("packets_sent", "received", "loss_packets", "loss_percent", "kernel_drops", "temp_pool_dropped")}
out["session_rss_kib"] = (rss1 - rss0) / n
print(json.dumps(out, indent=1))
PY
