#!/usr/bin/env python3
"""The scaling table of issue 57: readers x offered rates, one prepared run.

For each reader count it starts one pinbad (the default report set + the four timer-tag report
shapes of benches/e2e.sh, 15-second ticks), warms it up once until the window is full, then
offers each rate in turn for --duration seconds and measures: what was lost anywhere (never
received, or dropped at the temp ring), the CPU per packet of the whole daemon and of each
thread (the busiest one's inverse is the ceiling however many cores the host has), and the null
server (`pinbad-blast --receive`, as many readers) at the same rate.

Needs only python3 and two binaries (no cargo, no curl), so that it runs as one command on a
host where nothing can be installed:
    benches/scaling.py --pinbad target/release/pinbad --blast target/release/pinbad-blast \
        --readers 1,2,4,8 --rates 100k,400k,800k,1.2M,1.6M --out target/scaling.json
Prints a Markdown table (BENCHMARKS.md "Scaling out") and writes every figure as JSON after each
row. `--edge 50k` then bisects each reader count's highest rate with nothing lost, to within
50k/s. `--deadline S` ends the run (the table so far) rather than start a step that would end
past S seconds, for a host lent for minutes; `--logs DIR` keeps each daemon's log.
Sends only to 127.0.0.1, bounded in count and time; every process it starts it stops by PID.
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import urllib.request

SHAPES = [
    ("tag_info_group", '["timer_tag:group"]'),
    ("tag_report_group", '["script_name", "timer_tag:group"]'),
    ("tag2_info_group_server", '["timer_tag:group", "timer_tag:server"]'),
    ("tag_report2_op", '["script_name", "hostname", "server_name", "timer_tag:op"]'),
]
CLK = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count()


def host_ticks():
    """The host's busy and total CPU ticks, all cores (/proc/stat's first line)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


def children_cpu():
    """CPU seconds of the finished child processes (the senders), user + system."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def rate_value(text):
    m = re.fullmatch(r"([0-9.]+)([kKmM]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a rate: {text!r}")
    scale = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[m.group(2)]
    return int(float(m.group(1)) * scale)


def config(state_dir, args, readers, threads, shards, extra=()):
    lines = [
        f'state_dir = "{state_dir}"',
        f'stats_history = "{args.history}"',
        f"report_ticks = {args.ticks}",
        f"request_pool_size = {args.pool}",
        f"timer_pool_size = {args.pool * 12}",
        f"tag_pool_size = {args.pool * 40}",
        f'temp_pool_memory = "{args.temp_pool}"',
        "[udp]",
        f"readers = {readers}",
        "[merge]",
        f"threads = {threads}",
        f"shards = {shards}",
        *[f"{k} = {v}" for k, v in extra],
        *([f"nice = {args.nice}"] if args.nice is not None and "nice" not in dict(extra) else []),
        "[limits]",
        "max_reports = 1000",
    ]
    for name, keys in SHAPES[: args.timer_reports]:
        lines += ["[[report]]", f'name = "{name}"', f"keys = {keys}"]
    return "\n".join(lines) + "\n"


def thread_ticks(pid):
    """CPU ticks per thread name (threads of one name summed), and in all."""
    out, total = {}, 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # the thread ended meanwhile
        ticks = int(fields[11]) + int(fields[12])
        out[name] = out.get(name, 0) + ticks
        total += ticks
    return out, total


def blast(args, target, rate, seconds, check=None):
    cmd = [args.blast, "--target", target, "--rate", str(rate), "--duration", f"{seconds}s",
           "--senders", str(args.senders), "--json"]
    if check:
        cmd += ["--check", check]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
    if done.returncode != 0:
        sys.exit(f"pinbad-blast failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def null_server(args, readers, rate, port):
    """The null server's CPU per datagram at `rate` with `readers` receiving threads."""
    recv = subprocess.Popen(
        [args.blast, "--receive", f"127.0.0.1:{port}", "--readers", str(readers),
         "--duration", f"{args.duration + 60}s", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 10
        # Bound once its port is in /proc/net/udp; where that file does not list it (a sandboxed
        # kernel), after two seconds.
        bound_by = time.monotonic() + 2
        while f":{port:04X} " not in open("/proc/net/udp").read() and time.monotonic() < bound_by:
            if time.monotonic() > deadline or recv.poll() is not None:
                sys.exit("the null server did not bind")
            time.sleep(0.05)
        blast(args, f"127.0.0.1:{port}", rate, args.duration)
        out, _ = recv.communicate(timeout=args.duration + 90)
        return json.loads(out)
    finally:
        if recv.poll() is None:
            recv.kill()
            recv.wait()


START = time.monotonic()


def time_left(args, needed):
    """Whether a step of `needed` seconds still ends before --deadline."""
    return args.deadline is None or time.monotonic() - START + needed <= args.deadline


def next_probe(measured, step):
    """The next rate to try in the search for the highest rate with nothing lost (`--edge`):
    halfway between the highest rate measured with 0 lost and the lowest with a loss, until
    they are within `step`; None when done or when either is missing."""
    clean = [r for r, lost in measured if lost == 0]
    lossy = [r for r, lost in measured if lost]
    if not lossy:
        return None
    if not clean:
        # Every rate lost some: step down by a third until one does not (not below 100k).
        lower = min(lossy) * 2 // 3
        return lower if lower >= 100_000 else None
    lo = max(clean)
    hi = min([r for r in lossy if r > lo], default=None)
    if hi is None or hi - lo <= step:
        return None
    return (lo + hi) // 2


def merge_waited_ms(url):
    """How long the merge shards have waited for merge threads' queues (`merge.waited_ms`), and
    for their turns (`merge.turn_waited_ms`)."""
    status = json.load(urllib.request.urlopen(f"{url}/api/v1/status", timeout=30))
    merge = status.get("merge", {})
    return merge.get("waited_ms", 0), merge.get("turn_waited_ms", 0)


def thread_counts(pid):
    """How many receivers, merge threads and merge shards the daemon runs (by thread name), so
    that a run of the automatic defaults says what they came to on this host."""
    names = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            continue
    count = lambda prefix: sum(n.startswith(prefix) for n in names)
    return {"readers": count("pinbad-recv-"), "merge_threads": count("pinbad-merge-") + count("pinbad-merger"),
            "shards": count("pinbad-merger") + count("pinbad-shard-")}


def run_config(args, readers, threads, shards, extra, work, rows):
    """One daemon with `readers`, `threads` merge threads and `shards` merge shards (each 0:
    the daemon's automatic value for this host) and the `extra` [merge] keys, warmed up once,
    then every rate in turn."""
    label = "-".join([str(readers), str(threads), str(shards)] + [f"{k}{v}" for k, v in extra])
    state = os.path.join(work, f"state-{label}")
    path = os.path.join(work, f"pinbad-{label}.toml")
    with open(path, "w") as f:
        f.write(config(state, args, readers, threads, shards, extra))
    log = open(os.path.join(work, f"stdout-{label}"), "w+")
    daemon = subprocess.Popen([args.pinbad, "--config", path, "--udp", "127.0.0.1:0",
                               "--http", "127.0.0.1:0"], stdout=log, stderr=subprocess.DEVNULL)
    try:
        udp = http = None
        deadline = time.monotonic() + 60
        while not (udp and http):
            if time.monotonic() > deadline or daemon.poll() is not None:
                sys.exit(f"pinbad did not start (readers {readers})")
            log.seek(0)
            text = log.read()
            udp = (re.search(r"listening udp (\S+)", text) or [None, None])[1]
            http = (re.search(r"listening http (\S+)", text) or [None, None])[1]
            time.sleep(0.1)
        url = f"http://{http}"
        # Warm-up, once: the window and the pool full at the first rate (the steady state).
        blast(args, udp, args.warmup_rate, args.warmup, check=url)
        ran = thread_counts(daemon.pid)
        pending = list(args.rates)
        measured = []  # (rate, lost_percent) of this reader count
        while pending or (args.edge and next_probe(measured, args.edge)):
            edge = not pending
            rate = pending.pop(0) if pending else next_probe(measured, args.edge)
            null_here = (args.null and not edge
                         and (args.null_rates is None or rate in args.null_rates))
            if not time_left(args, args.duration + 8 + (args.duration + 6) * null_here):
                print(f"deadline: {label} stops before {rate}/s", file=sys.stderr)
                break
            waited0, turn_waited0 = merge_waited_ms(url)
            t0, all0 = thread_ticks(daemon.pid)
            h0, c0 = host_ticks(), children_cpu()
            sent = blast(args, udp, rate, args.duration, check=url)
            h1, c1 = host_ticks(), children_cpu()
            time.sleep(2)  # what was received is merged (the check waited for the count)
            t1, all1 = thread_ticks(daemon.pid)
            status = json.load(urllib.request.urlopen(f"{url}/api/v1/status", timeout=30))
            received = sent.get("received") or 0
            stored = (sent.get("accepted") or 0) - (sent.get("temp_pool_dropped") or 0)
            per_thread = {k: round((t1[k] - t0.get(k, 0)) / CLK * 1e6 / received, 3)
                          for k in t1 if received and t1[k] > t0.get(k, 0)}
            busiest = max(per_thread, key=per_thread.get) if per_thread else None
            row = {
                "config": "defaults" if (readers, threads, shards, extra) == (0, 0, 0, ()) else "set",
                "merge_keys": dict(extra),
                "readers": ran["readers"], "merge_threads": ran["merge_threads"], "shards": ran["shards"],
                "shards_asked": shards, "rate_asked": rate,
                "pps_sent": sent.get("pps"), "sent": sent.get("packets_sent"), "received": received,
                "lost_percent": round(100.0 * (sent["packets_sent"] - stored) / sent["packets_sent"], 3)
                if sent.get("packets_sent") else None,
                "host_cores_busy": round(NCPU * (h1[0] - h0[0]) / max(1, h1[1] - h0[1]), 2),
                "host_cores_idle": round(NCPU - NCPU * (h1[0] - h0[0]) / max(1, h1[1] - h0[1]), 2),
                "sender_cpu_us_per_packet": round((c1 - c0) * 1e6 / sent["packets_sent"], 3)
                if sent.get("packets_sent") else None,
                "merger_waited_ms": status.get("merge", {}).get("waited_ms", 0) - waited0,
                "turn_waited_ms": status.get("merge", {}).get("turn_waited_ms", 0) - turn_waited0,
                "kernel_drops": sent.get("kernel_drops"), "temp_pool_dropped": sent.get("temp_pool_dropped"),
                "cpu_us_per_packet": round((all1 - all0) / CLK * 1e6 / received, 3) if received else None,
                "thread_cpu_us_per_packet": per_thread,
                "busiest_thread": busiest, "busiest_us_per_packet": per_thread.get(busiest),
                "report_threads": {r["name"]: [r.get("thread")] + r.get("parts_on", [])
                                   for r in status.get("reports", [])
                                   if r.get("parts_on") or not r["name"].startswith("report_by_")},
            }
            if null_here:
                null = null_server(args, ran["readers"], rate, args.null_port)
                row["null_cpu_us_per_packet"] = round(null["cpu_us_per_datagram"], 3)
            row["merge_status"] = status.get("merge")
            row["edge_probe"] = edge
            measured.append((rate, row["lost_percent"]))
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            with open(args.out, "w") as f:
                json.dump(rows, f, indent=1)
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        if args.logs:
            log.seek(0)
            with open(os.path.join(args.logs, f"pinbad-{label}.log"), "w") as f:
                f.write(log.read())
        log.close()


def markdown(rows):
    out = ["| readers / merge threads / shards | offered | sent | lost % | CPU µs per packet (× null) "
           "| busiest thread, µs per packet | its ceiling | merger / turn waited ms | idle cores |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = (f" ({r['cpu_us_per_packet'] / r['null_cpu_us_per_packet']:.2f}×)"
                 if r.get("null_cpu_us_per_packet") and r.get("cpu_us_per_packet") else "")
        busiest = r.get("busiest_us_per_packet")
        ceiling = f"{1 / busiest:.2f}M/s" if busiest else "–"
        shape = f"{r['readers']} / {r['merge_threads']} / {r['shards']}"
        if r.get("config") == "defaults":
            shape += " (defaults)"
        shape += "".join(f", {k} {v}" for k, v in (r.get("merge_keys") or {}).items())
        out.append(f"| {shape} | {r['rate_asked'] / 1e3:g}k | {(r['pps_sent'] or 0) / 1e3:.0f}k "
                   f"| {r['lost_percent']} | {r['cpu_us_per_packet']}{ratio} "
                   f"| {(r['busiest_thread'] or '–').replace('pinbad-', '')} {busiest} | {ceiling} "
                   f"| {r['merger_waited_ms']} / {r['turn_waited_ms']} | {r['host_cores_idle']} |")
    return "\n".join(out)


def runs_value(text):
    """`--runs`: READERS:THREADS:SHARDS[/KEY=VALUE...], comma-separated."""
    runs = []
    for run in text.split(","):
        shape, *keys = run.split("/")
        readers, threads, shards = (int(x) for x in shape.split(":"))
        extra = tuple(tuple(k.split("=", 1)) for k in keys)
        runs.append((readers, threads, shards, extra))
    return runs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pinbad", default="target/release/pinbad")
    p.add_argument("--blast", default="target/release/pinbad-blast")
    p.add_argument("--readers", default="1,2,4,8", type=lambda s: [int(x) for x in s.split(",")])
    p.add_argument("--rates", default="100k,400k,800k,1.2M,1.6M",
                   type=lambda s: [rate_value(x) for x in s.split(",")])
    p.add_argument("--merge-threads", type=int, default=8, help="[merge] threads (0: automatic)")
    p.add_argument("--shards", default="0", type=lambda s: [int(x) for x in s.split(",")],
                   help="[merge] shards, each a run of every reader count (0: automatic)")
    p.add_argument("--runs", default=None, type=runs_value,
                   help="instead of --readers x --shards: runs as READERS:THREADS:SHARDS, each "
                        "with optional [merge] keys (8:8:2/queue_requests=131072/nice=0), "
                        "comma-separated")
    p.add_argument("--defaults", action=argparse.BooleanOptionalAction, default=False,
                   help="first, a run with the daemon's automatic readers, merge threads and shards")
    p.add_argument("--temp-pool", default="256MiB", help="temp_pool_memory: the ring between receivers and merger")
    p.add_argument("--nice", type=int, default=None,
                   help="[merge] nice (unset: the daemon's automatic, sized from the cores)")
    p.add_argument("--warmup-rate", default="100k", type=rate_value)
    p.add_argument("--timer-reports", type=int, default=4, choices=range(0, 5))
    p.add_argument("--senders", type=int, default=8)
    p.add_argument("--warmup", type=int, default=35, help="seconds, longer than --history")
    p.add_argument("--duration", type=int, default=10, help="seconds measured per rate")
    p.add_argument("--history", default="30s")
    p.add_argument("--ticks", type=int, default=2)
    p.add_argument("--pool", type=int, default=1_000_000)
    p.add_argument("--null", action=argparse.BooleanOptionalAction, default=True)
    p.add_argument("--null-rates", default=None, type=lambda s: [rate_value(x) for x in s.split(",")],
                   help="rates at which to run the null server too (default: each)")
    p.add_argument("--deadline", type=float, default=None,
                   help="seconds: start no step that would end after this")
    p.add_argument("--edge", type=rate_value, default=None,
                   help="after the rates, search between the highest rate with 0 lost and the "
                        "lowest with a loss until they are this close (e.g. 50k)")
    p.add_argument("--logs", default=None, help="folder to keep each daemon's log in")
    p.add_argument("--null-port", type=int, default=39102)
    p.add_argument("--out", default="target/scaling.json")
    args = p.parse_args()
    rows = []
    runs = [(0, 0, 0, ())] if args.defaults else []
    if args.runs:
        runs += args.runs
    else:
        runs += [(r, args.merge_threads, s, ()) for r in args.readers for s in args.shards]
    with tempfile.TemporaryDirectory() as work:
        for readers, threads, shards, extra in runs:
            if not time_left(args, args.warmup + 15 + args.duration + 8):
                print(f"deadline: no run of {readers}-{threads}-{shards} {extra}", file=sys.stderr)
                break
            run_config(args, readers, threads, shards, extra, work, rows)
    print(markdown(rows))


if __name__ == "__main__":
    main()
