//! The one integration-test binary: every test starts the real `pinbad` binary on port 0, sends
//! real UDP datagrams and reads the real HTTP API (and `alloc` counts the decoder's allocations
//! with this binary's global allocator; `blast` runs the load generator's null server).

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

mod activation;
mod alloc;
mod blast;
mod browser;
mod common;
mod compare;
mod core;
mod dashboard;
mod docs;
mod errors;
mod exit;
mod history;
mod hostile;
mod http;
mod remote;
mod ids;
mod import;
mod installed;
mod ingest;
mod layers;
mod logs;
mod marks;
mod memory;
mod openapi;
mod packaging;
mod php;
mod pinboard;
mod prometheus;
mod raw;
mod reports;
mod request_logs;
mod restarts;
mod rewrite;
mod sent;
mod clickhouse;
mod sinks;
mod fleet;
mod snapshot;
mod sql;
mod sql_bounds;
mod sql_generated;
mod sql_mariadb;
mod state;
mod stream;
