//! pinbad: a Pinba server.
//!
//! ```text
//!  UDP ─► receiver ──► decode ──► record::Batch ──► ring ──► merger ──► pool ──► report (+ histogram)
//!  (threads "pinbad-recv-N":      (bytes + spans,   (bounded   (thread "pinbad-merger":     │
//!   recvmmsg, allowlist)           no allocation)    ArrayQueue) intern, insert, expire,    ▼
//!                                                                 add/subtract reports)   api (tokio
//!                                                                                          "pinbad-http")
//! ```
//! One line per module, in the order data flows:
pub mod receiver; // UDP sockets and receive threads: datagrams in, batches out
pub mod decode; // Pinba protobuf bytes → accepted requests in a Batch, rejections counted
pub mod record; // Batch (decoded, not interned) and the compact pooled Record/Timer/TagPair
pub mod ring; // the bounded temp ring between receivers and merger, with a batch free list
pub mod merger; // the merge loop: intern, insert into the pool, expire, update reports
pub mod pool; // fixed-capacity cyclic rings of requests, timers and tags; one removal path
pub mod report; // report definitions, the incremental engine, queries
pub mod histogram; // sparse log-linear histograms for percentiles
pub mod api; // HTTP/JSON API (axum)
// Beside the pipeline:
pub mod app; // wires the stages together, owns threads and shared state
pub mod config; // TOML config, CLI overrides, defaults, validation
pub mod counters; // self-instrumentation counters
pub mod dictionary; // interned strings with reference counts
pub mod proto; // prost types of proto/pinba.proto: the reference codec
pub mod shutdown; // one shutdown signal for threads and the HTTP server
pub mod corpus; // seeded PHP-like datagram generator for pinbad-blast, tests and benches
