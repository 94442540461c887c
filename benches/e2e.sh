#!/usr/bin/env bash
# End-to-end load benchmark: a release pinbad with the default report set plus 4 timer-tag reports,
# loaded by pinbad-blast at fixed rates and at the highest rate one sender reaches, all on loopback.
#
# Per rate it prints: packets sent, received, accepted, loss (sent - received, and the kernel's
# UDP RcvbufErrors delta; total_loss_percent also counts requests dropped at the temp ring), server CPU per packet (utime+stime delta from /proc/PID/stat / packets),
# peak RSS (VmHWM), and the latency of the top-100 query with 3 percentiles while loaded (p50/p99:
# curl's total, from the request sent, and the server's handler time).
# At the end: each report's rows and update cost, and the pipeline stages' instruments (mean ns).
#
# Usage: benches/e2e.sh [RATES...]        (default: 20000 50000 100000 0; 0 = as fast as possible)
# Env:   DURATION=20s  SCRIPTS=1000 HOSTS=20  OUT=target/e2e.json  POOL=1000000
#        TIMER_REPORTS=N timer-tag reports (default 4: the four shapes below; more repeat them
#        under other names; 0: the default report set only)
#        TIMER_REPORTS_MIXED=N: instead, N timer-tag reports over 12 different key sets: the
#        four shapes, then each with `timer_tag:op` or `status` added, then with `hostname` or
#        `schema` added as well (beyond 12 they repeat under other names). A real configuration
#        mixes tags and the request fields they key on; this is the variety's cost.
#        TIMER_REPORTS_DISTINCT=N: instead, N timer-tag reports whose key sets all differ: the
#        four shapes, then each non-empty subset of group/server/op with none, one or two of
#        script_name, hostname, server_name, status, schema (at most 113; no two can share).
#        HISTORY=10s TICKS=10: the reports' window, short so that it is full (ticks expire)
#        for most of each run: the steady state. MERGE_THREADS=0 (automatic) or a number;
#        MERGE_NICE=N: `merge.nice` (default: automatic, 5 up to 8 cores). GATHERING=10ms: `stats_gathering_period`.
#        FAMILIES=false: every report updated on its own (what report families save).
#        REQUEST_FAMILIES=true|false: `merge.request_families` (default true).
#        SHARE_TABLES=true|false: `merge.share_tables` (unset: the config says nothing, the
#          default `true` holds, and a build from before shared tables runs too).
#        SPLIT_REPORTS=true|false: `merge.split_reports` (unset: the default `true`).
#        SHARDS=N: `merge.shards`, the merger and its followers (unset: automatic, one per four
#        readers).
#        LATTICE=true|false: `merge.lattice` (unset: the default `false`).
#        TAPS=on: one stream subscriber (curl -N to /dev/null), a file sink and a ClickHouse
#        sink (a clickhouse-server started from a temporary directory unless CLICKHOUSE_URL is
#        given); TAPS=off: the same sinks configured but `enabled = false`, no subscriber;
#        unset: none (the baseline). Their figures (sent, dropped) are added to each row.
#        TEMP_POOL=256MiB: `temp_pool_memory`. MAX_MEMORY=20GiB: `limits.max_memory` (unset: "auto",
#          half the host's memory); each row gets the budget's figures over the measured run
#          (`memory`: the limit, what was accounted at the end, the tight episodes and the rows
#          refused), since a tight budget refuses new rows and folds reports' coldest rows.
#        TICKLOG=true|false: `ticklog.enabled` (unset: the config says nothing, the default
#          `true` holds, and a build from before the tick log runs too); each row gets the tick log's
#        write rate over the measured run (`ticklog.written_bytes_per_s`) and its size on disk.
#        READERS=N: `udp.readers` (unset: the config says nothing, the automatic default holds).
#        SENDERS=8: pinbad-blast's senders, each on a socket of its own (another flow: with several
#          readers, each on its own SO_REUSEPORT socket, the kernel spreads flows over them as it
#          spreads many PHP workers' sockets); the null server gets the same readers.
#        PINBAD_BIN=path: the daemon to measure (default target/release/pinbad; A/B runs).
#        QUERIES=off: no query loop while loading (the CPU per packet of ingest alone; the
#        loop's ~18 top-100 queries a second cost ~0.27 µs per packet at 100k/s here).
#        NULL=on: after each rate's measured run, the null server (`pinbad-blast --receive`,
#        which receives as pinbad does and drops everything) takes the same traffic for the
#        same DURATION on UDP_PORT+1; the row gets its CPU per packet (`null_cpu_us_per_packet`:
#        the kernel's share, which no change to pinbad removes) and pinbad's above it.
#        WARMUP=0s (seconds, like DURATION): before each rate's measured run, send at that rate
#        for this long, unmeasured: with WARMUP > HISTORY the measurement starts with the window
#        and the pool full (the steady state), leaving out a cold start's first fill (tables
#        growing, pages faulted in). The warm-up's figures go into the row as "warmup".
# Bounded: every blast run stops by itself after DURATION; only 127.0.0.1 is targeted.
set -euo pipefail
cd "$(dirname "$0")/.."

RATES=("$@")
[ ${#RATES[@]} -gt 0 ] || RATES=(20000 50000 100000 0)
DURATION=${DURATION:-20s}
WARMUP=${WARMUP:-0s}
HISTORY=${HISTORY:-10s}
TICKS=${TICKS:-10}
MERGE_THREADS=${MERGE_THREADS:-0}
MERGE_NICE=${MERGE_NICE:-}
GATHERING=${GATHERING:-}
FAMILIES=${FAMILIES:-true}
REQUEST_FAMILIES=${REQUEST_FAMILIES:-true}
TIMER_REPORTS=${TIMER_REPORTS:-4}
TIMER_REPORTS_MIXED=${TIMER_REPORTS_MIXED:-}
TIMER_REPORTS_DISTINCT=${TIMER_REPORTS_DISTINCT:-}
SCRIPTS=${SCRIPTS:-1000}
HOSTS=${HOSTS:-20}
POOL=${POOL:-1000000}
TEMP_POOL=${TEMP_POOL:-256MiB}
TICKLOG=${TICKLOG:-}
SHARE_TABLES=${SHARE_TABLES:-}
SPLIT_REPORTS=${SPLIT_REPORTS:-}
SHARDS=${SHARDS:-}
LATTICE=${LATTICE:-}
OUT=${OUT:-target/e2e.json}
READERS=${READERS:-}
SENDERS=${SENDERS:-8}
UDP_PORT=${UDP_PORT:-39002}
HTTP_PORT=${HTTP_PORT:-39080}

# The daemon as it ships; pinbad-blast needs the `corpus` feature (its datagram generator).
cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
work=$(mktemp -d)
CHPID=""; SPID=""
trap 'kill "$PID" $SPID $CHPID 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
TAPS=${TAPS:-}
if [ -n "$TAPS" ] && [ -z "${CLICKHOUSE_URL:-}" ]; then
  CH_HTTP=${CH_HTTP:-39123}
  . benches/clickhouse.sh
  start_clickhouse "$work/ch" "$CH_HTTP"
fi

cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
stats_history = "$HISTORY"
report_ticks = $TICKS
${GATHERING:+stats_gathering_period = \"$GATHERING\"}
request_pool_size = $POOL
timer_pool_size = $((POOL * 12))
tag_pool_size = $((POOL * 40))
temp_pool_memory = "$TEMP_POOL"
${READERS:+[udp]}
${READERS:+readers = $READERS}
[merge]
threads = $MERGE_THREADS
${MERGE_NICE:+nice = $MERGE_NICE}
families = $FAMILIES
request_families = $REQUEST_FAMILIES
${SHARE_TABLES:+share_tables = $SHARE_TABLES}
${SPLIT_REPORTS:+split_reports = $SPLIT_REPORTS}
${SHARDS:+shards = $SHARDS}
${LATTICE:+lattice = $LATTICE}
[limits]
max_reports = 1000
${MAX_MEMORY:+max_memory = \"$MAX_MEMORY\"}
${TICKLOG:+[ticklog]}
${TICKLOG:+enabled = $TICKLOG}
EOF
shapes=('keys = ["timer_tag:group"]' 'keys = ["script_name", "timer_tag:group"]'
  'keys = ["timer_tag:group", "timer_tag:server"]' 'keys = ["script_name", "hostname", "server_name", "timer_tag:op"]')
names=(tag_info_group tag_report_group tag2_info_group_server tag_report2_op)
if [ -n "$TIMER_REPORTS_DISTINCT" ]; then
  # N key sets, all different: the four shapes, then each non-empty subset of the timer tags
  # group/server/op with none, one or two of the request fields (113 in all).
  TIMER_REPORTS=$TIMER_REPORTS_DISTINCT
  python3 - "$TIMER_REPORTS" >> "$work/pinbad.toml" <<'PY'
import itertools, sys
n = int(sys.argv[1])
shapes = [["timer_tag:group"], ["script_name", "timer_tag:group"],
          ["timer_tag:group", "timer_tag:server"],
          ["script_name", "hostname", "server_name", "timer_tag:op"]]
fields = ["script_name", "hostname", "server_name", "status", "schema"]
tags = ["timer_tag:group", "timer_tag:server", "timer_tag:op"]
sets = [list(s) for s in shapes]
for k in range(3):
    for f in itertools.combinations(fields, k):
        for m in range(1, 4):
            for t in itertools.combinations(tags, m):
                keys = list(f) + list(t)
                if sorted(keys) not in [sorted(s) for s in sets]:
                    sets.append(keys)
if n > len(sets):
    sys.exit(f"TIMER_REPORTS_DISTINCT: at most {len(sets)} distinct key sets")
for i, keys in enumerate(sets[:n]):
    print(f'[[report]]\nname = "timers_distinct_{i}"\nkeys = [{", ".join(chr(34) + k + chr(34) for k in keys)}]')
PY
elif [ -n "$TIMER_REPORTS_MIXED" ]; then
  # The 12 key sets: level 0 the four shapes; level 1 adds op, status, op, status; level 2 adds
  # hostname, schema, hostname, schema on top of level 1.
  shapes=('"timer_tag:group"' '"script_name", "timer_tag:group"' '"timer_tag:group", "timer_tag:server"'
    '"script_name", "hostname", "server_name", "timer_tag:op"'
    '"timer_tag:group", "timer_tag:op"' '"script_name", "timer_tag:group", "status"'
    '"timer_tag:group", "timer_tag:server", "timer_tag:op"' '"script_name", "hostname", "server_name", "timer_tag:op", "status"'
    '"timer_tag:group", "timer_tag:op", "hostname"' '"script_name", "timer_tag:group", "status", "schema"'
    '"timer_tag:group", "timer_tag:server", "timer_tag:op", "hostname"'
    '"script_name", "hostname", "server_name", "timer_tag:op", "status", "schema"')
  TIMER_REPORTS=$TIMER_REPORTS_MIXED
  for ((i = 0; i < TIMER_REPORTS; i++)); do
    printf '[[report]]\nname = "timers_mixed_%d"\nkeys = [%s]\n' "$i" "${shapes[i % 12]}" >> "$work/pinbad.toml"
  done
else
  for ((i = 0; i < TIMER_REPORTS; i++)); do
    suffix=""; [ "$i" -lt 4 ] || suffix="_$i"
    printf '[[report]]\nname = "%s%s"\n%s\n' "${names[i % 4]}" "$suffix" "${shapes[i % 4]}" >> "$work/pinbad.toml"
  done
fi

if [ -n "$TAPS" ]; then
  enabled=true; [ "$TAPS" = on ] || enabled=false
  cat >> "$work/pinbad.toml" <<EOF
[[sink]]
name = "file"
kind = "file"
enabled = $enabled
path = "$work/requests.ndjson"
max_bytes = "256MiB"
keep = 2
[[sink]]
name = "clickhouse"
kind = "clickhouse"
enabled = $enabled
url = "$CLICKHOUSE_URL"
create_tables = true
EOF
fi

"${PINBAD_BIN:-target/release/pinbad}" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" --http "127.0.0.1:$HTTP_PORT" \
  > "$work/stdout" 2> "$work/stderr" &
PID=$!
for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
if ! kill -0 "$PID" 2>/dev/null; then
  echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1
fi
URL="http://127.0.0.1:$HTTP_PORT"
CLK=$(getconf CLK_TCK)
if [ "$TAPS" = on ]; then
  curl -sN "$URL/api/v1/stream" > /dev/null &
  SPID=$!
fi

cpu_ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# CPU ticks per thread name (each thread on its own: pinbad-recv-0, pinbad-recv-1; threads of one
# name, the HTTP runtime's, summed), as JSON.
thread_ticks() {
  for t in /proc/"$PID"/task/*; do awk -v n="$(cat "$t/comm")" '{print n, $14 + $15}' "$t/stat"; done |
    awk '{a[$1] += $2} END {printf "{"; s=""; for (k in a) {printf "%s\"%s\": %d", s, k, a[k]; s=", "}; print "}"}'
}
rcvbuf_errors() { awk '/^Udp:/ && $2 ~ /^[0-9]+$/ {print $6}' /proc/net/snmp; }

echo "[" > "$OUT"
first=1
for rate in "${RATES[@]}"; do
  # Let the previous run's requests leave nothing half-merged.
  sleep 1
  if [ "${WARMUP%s}" -gt 0 ]; then
    # Unmeasured: fills the window and the pool; --check waits until the daemon has counted it all.
    target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$rate" --duration "$WARMUP" \
      --senders "$SENDERS" --scripts "$SCRIPTS" --hosts "$HOSTS" --check "$URL" --json > "$work/warmup.json"
  fi
  cpu0=$(cpu_ticks); drops0=$(rcvbuf_errors); thread_ticks > "$work/threads0.json"
  curl -s "$URL/api/v1/status" > "$work/status0.json"; date +%s.%N > "$work/t0"
  # Query loop while loading: the top-100 of the biggest request report, 3 percentiles.
  ( end=$((SECONDS + ${DURATION%s})); [ "${QUERIES:-on}" = off ] && end=0; while [ $SECONDS -lt $end ]; do
      curl -s -o /dev/null -w '%{time_total} %{time_pretransfer}\n' \
        "$URL/api/v1/reports/report_by_hostname_and_script?limit=100&percentiles=50,95,99" || true
      sleep 0.05
    done > "$work/latency" ) &
  QPID=$!
  target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$rate" --duration "$DURATION" \
    --senders "$SENDERS" --scripts "$SCRIPTS" --hosts "$HOSTS" --check "$URL" --json > "$work/blast.json"
  wait "$QPID" || true
  # Let the sinks deliver what they hold (counted in the CPU figure), then keep their figures.
  sleep 3
  curl -s "$URL/api/v1/status" > "$work/taps.json"; date +%s.%N > "$work/t1"
  curl -s "$URL/api/v1/instruments" > "$work/instruments-rate.json"
  cpu1=$(cpu_ticks); drops1=$(rcvbuf_errors); thread_ticks > "$work/threads1.json"
  rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
  echo '{}' > "$work/null.json"
  if [ "${NULL:-}" = on ]; then
    # The null server on the next port, the same sender at the same rate and duration.
    readers=$(grep -l '^pinbad-recv-' /proc/"$PID"/task/*/comm 2>/dev/null | wc -l)
    target/release/pinbad-blast --receive "127.0.0.1:$((UDP_PORT + 1))" --duration "$((${DURATION%s} + 60))s" \
      --readers "${readers:-1}" --json > "$work/null.json" 2> /dev/null &
    NPID=$!
    for _ in $(seq 100); do awk -v p="$(printf ':%04X' $((UDP_PORT + 1)))" '$2 ~ p {f=1} END {exit !f}' /proc/net/udp && break; sleep 0.1; done
    target/release/pinbad-blast --target "127.0.0.1:$((UDP_PORT + 1))" --rate "$rate" --duration "$DURATION" \
      --senders "$SENDERS" --scripts "$SCRIPTS" --hosts "$HOSTS" > /dev/null
    wait "$NPID"
  fi
  python3 - "$work/blast.json" "$work/latency" "$rate" "$cpu0" "$cpu1" "$CLK" "$drops0" "$drops1" "$rss_kib" "$first" "$TIMER_REPORTS" "${TIMER_REPORTS_MIXED:+mixed}${TIMER_REPORTS_DISTINCT:+distinct}" >> "$OUT" <<'PY'
import json, os, sys
blast = json.load(open(sys.argv[1]))
# Per query: curl's total, and from the request sent to the last byte (total - pretransfer: without
# curl's own connect and set-up, which wait for a core like any process on a loaded machine).
times = [[float(v) * 1000 for v in x.split()] for x in open(sys.argv[2]) if x.strip()]
lat = sorted(t[0] for t in times)
after_sent = sorted(t[0] - t[1] for t in times if len(t) > 1)
rate, cpu0, cpu1, ticks, d0, d1, rss, first = sys.argv[3:11]
pct = lambda p: lat[min(len(lat) - 1, int(p / 100 * len(lat)))] if lat else None
received = blast.get("received", 0) or 0
sent = blast.get("packets_sent", 0) or 0
# Lost anywhere: never received (kernel), or received but dropped at the temp ring (merger behind).
stored = (blast.get("accepted", 0) or 0) - (blast.get("temp_pool_dropped", 0) or 0)
cpu_us = (int(cpu1) - int(cpu0)) / int(ticks) * 1e6
row = {
    "rate_asked": int(rate), "sent": blast.get("packets_sent"), "pps_achieved": blast.get("pps"),
    "received": received, "accepted": blast.get("accepted"), "loss": blast.get("loss_packets"), "kernel_drops": blast.get("kernel_drops"), "temp_pool_dropped": blast.get("temp_pool_dropped"),
    "loss_percent": blast.get("loss_percent"),
    "total_loss_percent": round(100.0 * (sent - stored) / sent, 3) if sent else None, "kernel_rcvbuf_errors": int(d1) - int(d0),
    "cpu_us_per_packet": round(cpu_us / received, 3) if received else None,
    "peak_rss_mib": round(int(rss) / 1024, 1), "timer_reports": int(sys.argv[11]),
    "timer_report_shapes": sys.argv[12] if len(sys.argv) > 12 and sys.argv[12] else "four",
    "query_ms_p50": round(pct(50), 2) if lat else None, "query_ms_p99": round(pct(99), 2) if lat else None,
    "queries": len(lat),
    "query_ms_p99_after_sent": round(after_sent[min(len(after_sent) - 1, int(0.99 * len(after_sent)))], 2) if after_sent else None,
}
# The query handler's own time (the `query` instrument, since the daemon started: this rate and
# any before it).
for i in json.load(open(sys.argv[1].replace("blast.json", "instruments-rate.json")))["instruments"]:
    if i["name"] == "query" and (i.get("call_ns") or {}).get("p50") is not None:
        row["query_server_ms_p50"] = round(i["call_ns"]["p50"] / 1e6, 2)
        row["query_server_ms_p99"] = round(i["call_ns"]["p99"] / 1e6, 2)
status = json.load(open(sys.argv[1].replace("blast.json", "taps.json")))
# The longest merge round since start: a step that held the merger (a drain, a tick) shows here.
row["merge_max_ms"] = status.get("merge", {}).get("max_ms")
# Since start: the merge shards' waits for the merge threads' queues and for their turns.
row["merge_waited_ms"] = status.get("merge", {}).get("waited_ms")
row["merge_turn_waited_ms"] = status.get("merge", {}).get("turn_waited_ms")
# Each report's merge thread and, split, the threads counting its parts (`merge.split_reports`).
row["report_threads"] = {r["name"]: [r.get("thread")] + r.get("parts_on", []) for r in status.get("reports", [])
                         if r.get("parts_on") or not r["name"].startswith("report_by_")}
# CPU per packet by thread (sinks: "pinbad-sink-NAME", cut to 15 characters by the kernel;
# the stream's tasks and the queries run on "pinbad-http").
t0 = json.load(open(sys.argv[1].replace("blast.json", "threads0.json")))
t1 = json.load(open(sys.argv[1].replace("blast.json", "threads1.json")))
if received:
    per_thread = {k: round((t1[k] - t0.get(k, 0)) / int(ticks) * 1e6 / received, 3) for k in sorted(t1)}
    row["thread_cpu_us_per_packet"] = per_thread
    # The busiest thread's cost per packet: 1 / it is the rate at which that thread fills a core,
    # the ceiling of the whole server however many cores it has.
    busiest = max(per_thread, key=per_thread.get)
    row["busiest_thread"] = {"name": busiest, "cpu_us_per_packet": per_thread[busiest],
                             "ceiling_pps": round(1e6 / per_thread[busiest]) if per_thread[busiest] else None}
status = json.load(open(sys.argv[1].replace("blast.json", "taps.json")))
if status.get("sinks"):
    row["taps"] = {s["name"]: {k: s[k] for k in ("enabled", "sent", "dropped", "failed", "current_queued")}
                   for s in status["sinks"]}
    row["taps"]["stream"] = {k: status["stream"][k] for k in ("current_clients", "sent", "dropped")}
s0 = json.load(open(sys.argv[1].replace("blast.json", "status0.json")))
# The memory budget over the measured run: tight at any point means rows were refused or folded.
m0, m1 = s0.get("memory", {}), status.get("memory", {})
if m1:
    row["memory"] = {
        "limit_bytes": m1.get("limit_bytes"), "used_bytes_at_end": m1.get("used_bytes"),
        "tight_episodes": m1.get("tight_episodes", 0) - m0.get("tight_episodes", 0),
        "rows_refused": m1.get("rows_refused", 0) - m0.get("rows_refused", 0),
    }
# The tick log's writes over the measured run (its thread's CPU is in thread_cpu_us_per_packet).
seconds = float(open(sys.argv[1].replace("blast.json", "t1")).read()) - float(open(sys.argv[1].replace("blast.json", "t0")).read())
if status.get("ticklog", {}).get("enabled"):
    t0, t1 = s0["ticklog"], status["ticklog"]
    row["ticklog"] = {
        "written_bytes_per_s": round((t1["written_bytes"] - t0["written_bytes"]) / seconds),
        "written_ticks": t1["written_ticks"] - t0["written_ticks"],
        "bytes": t1["bytes"], "dropped_ticks": t1["dropped_ticks"],
    }
null = json.load(open(sys.argv[1].replace("blast.json", "null.json")))
if null.get("cpu_us_per_datagram") is not None:
    row["null_cpu_us_per_packet"] = round(null["cpu_us_per_datagram"], 3)
    row["null_received"] = null["received"]
    if row["cpu_us_per_packet"] is not None:
        row["cpu_over_null_us_per_packet"] = round(row["cpu_us_per_packet"] - null["cpu_us_per_datagram"], 3)
# The unmeasured warm-up before it (WARMUP): a cold start's figures.
warmup = sys.argv[1].replace("blast.json", "warmup.json")
if os.path.exists(warmup):
    w = json.load(open(warmup))
    row["warmup"] = {k: w.get(k) for k in ("packets_sent", "received", "temp_pool_dropped")}
print(("" if first == "1" else ",") + json.dumps(row))
print(json.dumps(row), file=sys.stderr)
PY
  first=0
done
echo "]" >> "$OUT"
curl -s "$URL/api/v1/status" > "$work/status.json"
curl -s "$URL/api/v1/instruments" > "$work/instruments.json"
python3 - "$work/status.json" "$work/instruments.json" <<'PY' >&2
import json, sys
s = json.load(open(sys.argv[1]))
print("status: pool", s["current_pool_used"], "/", s["pool_capacity"], "timers", s["current_timer_pool_used"],
      "dictionary", s["dictionary_size"], "temp_pool_dropped", s["temp_pool_dropped"], "merge max ms", s["merge"]["max_ms"])
for r in s["reports"]:
    print(f'  {r["name"]:40} rows {r["rows"]:>8} update {r["update_ns_per_request"]:.0f} ns/req')
# The pipeline's stages since start (reports are listed above): wall time per event.
for i in json.load(open(sys.argv[2]))["instruments"]:
    if not i["name"].startswith("report:") and i["count"]:
        calls = i.get("call_ns")
        extra = f' p50 {calls["p50"]} p99 {calls["p99"]} ns (server side)' if calls and calls["p99"] else ""
        print(f'  stage {i["name"]:34} count {i["count"]:>10} mean {i["total_ns"] / i["count"]:.0f} ns{extra}')
PY
echo "results in $OUT" >&2
