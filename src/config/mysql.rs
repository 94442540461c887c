//! `[mysql]`: the SQL front end (the MySQL protocol, database `pinba`), its address, who may
//! connect, and its bounds.

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{invalid, ConfigError};
use crate::units::{ByteSize, HumanDuration};

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct MysqlConfig {
    /// Address of the MySQL-protocol listener; `""` turns the SQL front end off.
    pub listen: String,
    /// With `password`, the only user name accepted (`mysql_native_password`); both empty: any
    /// user name, no password.
    pub user: String,
    pub password: String,
    /// Sessions open at once; a connection beyond it is refused with MySQL's "Too many
    /// connections". Sized for connection pools: an idle session holds a socket and a few KiB
    /// (its SQLite, made at its first statement, a few hundred KiB more).
    pub max_connections: usize,
    /// A statement running longer than this is stopped with an error (its session stays usable);
    /// the time it waits for a slot and the time its rows wait for a client that stopped
    /// reading count in it.
    pub max_query_time: HumanDuration,
    /// Statements that run at once, in slots of their own: no SQL load makes an HTTP query
    /// (`http.max_concurrent_queries`) wait or fail.
    pub max_concurrent_queries: usize,
    /// Statements that may wait for a slot (up to `max_query_time`); one beyond them gets
    /// error 1203 at once.
    pub max_queued_queries: usize,
    /// A connection that has not logged in this long after it was accepted is closed, so that
    /// half-open connections cannot hold every `max_connections` place.
    pub handshake_timeout: HumanDuration,
    /// A session that sends nothing this long is closed (MySQL's `wait_timeout`, which
    /// `@@wait_timeout` answers, in seconds).
    pub wait_timeout: HumanDuration,
    /// The largest command a client may send (`@@max_allowed_packet`): a longer one gets error
    /// 1153 and is read past without being kept. Also SQLite's bound on a value's length.
    pub max_allowed_packet: ByteSize,
    /// Memory SQL statements may hold together: SQLite's (sorts, groupings, temporary tables,
    /// values, every session's engine) and the rows read and not yet sent. Counted in
    /// `limits.max_memory`, and never more than what the budget has left below its tight mark;
    /// a statement that needs more fails with error 1041. Sorts never spill to disk.
    pub max_memory: ByteSize,
    /// pinba2's `pinba_default_history_time_sec`: the window of a table whose pinba2 comment
    /// says `default_history_time` (`CREATE TABLE`, `import-sql`'s conversion reads 60 s).
    pub pinba2_default_history_time: HumanDuration,
}

impl Default for MysqlConfig {
    fn default() -> MysqlConfig {
        MysqlConfig {
            listen: "127.0.0.1:30306".into(),
            user: String::new(),
            password: String::new(),
            max_connections: 256,
            max_query_time: HumanDuration(Duration::from_secs(30)),
            max_concurrent_queries: 4,
            max_queued_queries: 64,
            handshake_timeout: HumanDuration(Duration::from_secs(10)),
            wait_timeout: HumanDuration(Duration::from_secs(600)),
            max_allowed_packet: ByteSize(16 << 20),
            max_memory: ByteSize(256 << 20),
            pinba2_default_history_time: HumanDuration(Duration::from_secs(
                crate::config::import::PINBA2_DEFAULT_HISTORY_TIME,
            )),
        }
    }
}

impl MysqlConfig {
    /// The listener's address, `None` when the front end is off.
    pub fn addr(&self) -> Option<SocketAddr> {
        self.listen.parse().ok()
    }

    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        check_listen(&self.listen, "mysql.listen")?;
        if !self.user.is_empty() && self.password.is_empty() {
            return Err(invalid(
                "mysql.password",
                "is empty while mysql.user is set: set both, or neither (any user, no password)",
            ));
        }
        if self.user.is_empty() && !self.password.is_empty() {
            return Err(invalid(
                "mysql.user",
                "is empty while mysql.password is set: set both, or neither",
            ));
        }
        if self.max_connections == 0 || self.max_connections > 10_000 {
            return Err(invalid(
                "mysql.max_connections",
                format!("{} is out of range 1..=10000", self.max_connections),
            ));
        }
        let t = self.max_query_time.0;
        if t < Duration::from_millis(100) || t > Duration::from_secs(3600) {
            return Err(invalid(
                "mysql.max_query_time",
                "must be between 100ms and 1h",
            ));
        }
        if self.max_concurrent_queries == 0 || self.max_concurrent_queries > 1024 {
            return Err(invalid(
                "mysql.max_concurrent_queries",
                format!("{} is out of range 1..=1024", self.max_concurrent_queries),
            ));
        }
        if self.max_queued_queries > 10_000 {
            return Err(invalid(
                "mysql.max_queued_queries",
                format!("{} is out of range 0..=10000", self.max_queued_queries),
            ));
        }
        let t = self.handshake_timeout.0;
        if t < Duration::from_millis(100) || t > Duration::from_secs(300) {
            return Err(invalid(
                "mysql.handshake_timeout",
                "must be between 100ms and 5m",
            ));
        }
        let t = self.wait_timeout.0;
        if t < Duration::from_millis(100) || t > Duration::from_secs(365 * 86_400) {
            return Err(invalid(
                "mysql.wait_timeout",
                "must be between 100ms and 365d",
            ));
        }
        let p = self.max_allowed_packet.0;
        if !(1 << 10..=1 << 30).contains(&p) {
            return Err(invalid(
                "mysql.max_allowed_packet",
                format!("{p} bytes is out of range 1KiB..=1GiB"),
            ));
        }
        let w = self.pinba2_default_history_time.0;
        if w < Duration::from_secs(1)
            || w > Duration::from_secs(30 * 86_400)
            || w.subsec_nanos() != 0
        {
            return Err(invalid(
                "mysql.pinba2_default_history_time",
                "must be whole seconds between 1s and 30d (a report's window)",
            ));
        }
        let m = self.max_memory.0;
        if m < 16 << 20 {
            return Err(invalid(
                "mysql.max_memory",
                format!("{m} bytes is below 16MiB (the sessions' engines alone take some)"),
            ));
        }
        Ok(())
    }
}

/// `mysql.listen` (or `--mysql`, named as `key`): an address like 127.0.0.1:30306, or `""`.
pub(super) fn check_listen(addr: &str, key: &str) -> Result<(), ConfigError> {
    if addr.is_empty() {
        return Ok(());
    }
    addr.parse::<SocketAddr>().map_err(|e| {
        invalid(
            key,
            format!("`{addr}` is not an address like 127.0.0.1:30306, nor \"\" (off) ({e})"),
        )
    })?;
    Ok(())
}
