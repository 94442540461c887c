//! pinbad: a Pinba server.
//!
//! ```text
//!  UDP ─► receiver ──► decode ──► intern ──► record::Batch ──► ring ──► merger ──► pool ──► report
//!  threads "pinbad-recv-N", a SO_REUSEPORT      bounded      thread "pinbad-merger":       │
//!  socket each: recvmmsg, allowlist, strings    ArrayQueue   insert, expire, reports       ▼
//!  to dictionary ids                                        (+ "pinbad-merge-N")     api (axum, "pinbad-http")
//! ```
//!
//! The modules, one per pipeline stage or service, bottom layer first (docs/ARCHITECTURE.md,
//! "Layers": each imports only modules listed before it; tests/integration/layers.rs checks it):

// Durations ("15m") and sizes ("8MiB") as the config and the API write them.
pub mod units;
// The state files' little-endian codec: a checksumming writer, a bounds-checked reader.
pub mod codec;
// Small state files written whole or not at all, and durably (temp file, rename, syncs).
pub mod durable;
// Request ids that never repeat per instance: a block reserved ahead in `state_dir/ids.json`.
pub mod ids;
// Moments an operator names (a deploy): `state_dir/marks.json`, bounded, drawn on charts.
pub mod marks;
// Giving freed memory back to the OS after a burst has expired.
pub mod memory;
// The memory budget (`limits.max_memory`): what every holder accounts, whether it is tight.
pub mod budget;
// SQLite's allocator: SQL sessions' memory counted and bounded apart from the rest of SQLite's.
pub mod sqlite_heap;
// One shutdown signal for threads and the HTTP server.
pub mod shutdown;
// Work prepared in parallel, handed on in one order (the merge shards' rounds).
pub mod turns;
// Log output: text or JSON lines on stderr (`[log]`).
pub mod logging;
// Sparse log-linear histograms for percentiles.
pub mod histogram;
// Per-stage counts and times, switchable at run time (GET/PATCH /api/v1/instruments).
pub mod instruments;
// Self-instrumentation counters.
pub mod counters;
// Batch (decoded, not interned) and the compact pooled Record/Timer/TagPair.
pub mod record;
// Interned strings, swept by age.
pub mod dictionary;
// prost types of proto/pinba.proto: the reference codec (feature `corpus`: tests, benches, blast).
#[cfg(feature = "corpus")]
pub mod proto;
// Pinba protobuf bytes → accepted requests in a Batch, rejections counted.
pub mod decode;
// The bounded temp ring between receivers and merger, with a batch free list.
pub mod ring;
// Fixed-capacity cyclic rings of requests, timers and tags; one removal path.
pub mod pool;
// `[[rewrite]]` rules: names folded before they are interned.
pub mod rewrite;
// Decoded requests → pool records of dictionary ids (receivers, and the merger for raw batches).
pub mod intern;
// UDP sockets and receive threads: datagrams in, interned batches out.
pub mod receiver;
// Sockets passed by systemd (a `.socket` unit), kept open across restarts.
pub mod activation;
// Report definitions, the incremental engine, queries, run-time state.
pub mod report;
// TOML config, CLI overrides, defaults, validation.
pub mod config;
// Where merged rounds leave the pipeline for the stream, sinks and metrics (bounded, never blocks).
pub mod tap;
// The state the threads share (config, counters, clock, pool, dictionary, reports).
pub mod state;
// The merge loop: intern, insert into the pool, expire, update reports.
pub mod merger;
// Raw requests as JSON objects (the API, the stream, the file sink) and the filter clients give.
pub mod ndjson;
// The live stream of merged requests (GET /api/v1/stream), one tap per client.
pub mod stream;
// Sinks: every merged request to NDJSON files or ClickHouse, one tap and thread per sink.
pub mod sink;
// Report history: closed ticks summed into steps in {state_dir}/history.sqlite ("pinbad-history").
pub mod history;
// Request logs: the slowest, heaviest and failing requests per step and group, in
// {state_dir}/request_log.sqlite ("pinbad-reqlog").
pub mod reqlog;
// The pool and the reports' windows written at shutdown and restored at start (`state_dir`).
pub mod snapshot;
// Requests received while stopping, saved beside the snapshot and merged first at the next start.
pub mod pending;
// Closed report ticks appended to {state_dir}/ticklog as they close, restored after a crash ("pinbad-ticklog").
pub mod ticklog;
// pinbad's own figures, declared once: /api/v1/status, /metrics and the dashboard's health table.
pub mod status;
// GET /metrics: status counters and monotonic report series for Prometheus (a tap, "pinbad-metrics").
pub mod metrics;
// The built-in dashboard at `/`: embedded HTML, CSS and JavaScript that read the API.
pub mod dashboard;
// SQL over the MySQL protocol: pinba_engine's tables, evaluated by SQLite over virtual tables.
pub mod sql;
// HTTP/JSON API (axum).
pub mod api;
// Seeded PHP-like datagram generator for pinbad-blast, tests and benches (feature `corpus`).
#[cfg(feature = "corpus")]
pub mod corpus;
// Beside the pipeline:
// Wires the stages together and owns the threads.
pub mod app;
// The command-line subcommands beside the daemon: `check-config`, `import-sql`.
pub mod cli;
