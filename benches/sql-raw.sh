#!/usr/bin/env bash
# A GROUP BY over the raw `request` table while ingesting (issue 58's figure): pinbad with a raw
# pool of POOL requests (default 200,000) of SCRIPTS scripts, loaded by pinbad-blast at RATE
# (default 20k/s) until the pool is full; then, for DURATION, one PyMySQL session runs
#   SELECT script_name, COUNT(*), AVG(req_time) FROM request GROUP BY script_name
# in a loop (each statement timed from its send to its last row, in the client) while curl
# queries the HTTP API's top-100 (as benches/e2e.sh) and the traffic goes on. Prints one JSON
# object: the statement's times (median, p90, max, count, rows), the HTTP query's p50/p99, the
# requests pooled at the end and ingest loss (pinbad-blast --check).
#
# Usage: benches/sql-raw.sh        Env: RATE=20000 POOL=200000 SCRIPTS=1000 DURATION=30s
#        STATEMENT="..." (another statement to time)
#        UDP_PORT=39302 HTTP_PORT=39380 MYSQL_PORT=39306 NICE=10
#        PINBAD=target/release/pinbad (another build's binary, to compare on the same machine)
# Bounded: every blast run stops by itself; only 127.0.0.1 is targeted; pinbad is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common/http_top100.sh

RATE=${RATE:-20000}
POOL=${POOL:-200000}
SCRIPTS=${SCRIPTS:-1000}
DURATION=${DURATION:-30s}
UDP_PORT=${UDP_PORT:-39302}
HTTP_PORT=${HTTP_PORT:-39380}
MYSQL_PORT=${MYSQL_PORT:-39306}
NICE=${NICE:-10}
PINBAD=${PINBAD:-target/release/pinbad}
STATEMENT=${STATEMENT:-"SELECT script_name, COUNT(*), AVG(req_time) FROM request GROUP BY script_name"}

# One build of the library for both (pinbad-blast needs the `corpus` feature).
cargo build --release --features corpus --bin pinbad --bin pinbad-blast >&2
/usr/bin/python3 -c 'import pymysql' || { echo "benches/sql-raw.sh needs python3-pymysql" >&2; exit 1; }
work=$(mktemp -d)
PID=""
trap 'kill $PID 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
request_pool_size = $POOL
timer_pool_size = $((POOL * 12))
tag_pool_size = $((POOL * 40))
[mysql]
max_query_time = "5m"
EOF
nice -n "$NICE" "$PINBAD" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" \
  --http "127.0.0.1:$HTTP_PORT" --mysql "127.0.0.1:$MYSQL_PORT" > "$work/stdout" 2> "$work/stderr" &
PID=$!
for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null || { echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1; }
URL="http://127.0.0.1:$HTTP_PORT"

# Fill the pool, unmeasured (its capacity's worth of requests and a tenth more).
fill=$(( (POOL * 11 / 10 + RATE - 1) / RATE ))
nice -n "$NICE" target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" \
  --duration "${fill}s" --scripts "$SCRIPTS" --json > "$work/fill.json"

nice -n "$NICE" target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" \
  --duration "$DURATION" --scripts "$SCRIPTS" --check "$URL" --json > "$work/blast.json" &
BLAST=$!
end=$((SECONDS + ${DURATION%s} - 1))
( http_top100 "$URL" "$end" > "$work/http" ) &
QPID=$!
/usr/bin/python3 - "$MYSQL_PORT" "$((${DURATION%s} - 2))" "$STATEMENT" > "$work/sql" <<'PY'
import pymysql, sys, time
port, seconds, statement = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
start = time.monotonic()
conn = pymysql.connect(host="127.0.0.1", port=port, user="bench", database="pinba")
cur = conn.cursor()
while time.monotonic() - start < seconds:
    t0 = time.perf_counter()
    cur.execute(statement)
    rows = cur.fetchall()
    print(time.perf_counter() - t0, len(rows), flush=True)
    time.sleep(0.1)
cur.execute("SELECT COUNT(*) FROM request")
print("pool", cur.fetchall()[0][0])
PY
wait "$QPID" "$BLAST" || true

/usr/bin/python3 - "$work" <<'PY'
import json, sys, statistics
work = sys.argv[1]
def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else None
lines = [l.split() for l in open(f"{work}/sql") if l.strip()]
pooled = [int(l[1]) for l in lines if l[0] == "pool"]
lines = [l for l in lines if l[0] != "pool"]
ts = [float(l[0]) for l in lines]
out = {"group_by": {"count": len(ts), "median_s": statistics.median(ts) if ts else None,
                    "p90_s": pct(ts, 90), "max_s": max(ts) if ts else None,
                    "rows": int(lines[-1][1]) if lines else None}}
http = [float(l) for l in open(f"{work}/http") if l.strip()]
out["http_top100_ms"] = {"count": len(http), "p50": (pct(http, 50) or 0) * 1000,
                         "p99": (pct(http, 99) or 0) * 1000}
out["pooled_requests_at_end"] = pooled[0] if pooled else None
blast = json.load(open(f"{work}/blast.json"))
out["ingest"] = {k: blast.get(k) for k in ("packets_sent", "received", "loss_packets", "loss_percent")}
print(json.dumps(out, indent=1))
PY
