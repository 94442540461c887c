//! The one integration-test binary: every test starts the real `pinbad` binary on port 0, sends
//! real UDP datagrams and reads the real HTTP API.

mod common;
mod core;
mod php;
mod reports;
