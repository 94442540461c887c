//! `[mysql]`: the SQL front end (the MySQL protocol, database `pinba`), its address, who may
//! connect, and its bounds.

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{invalid, ConfigError};
use crate::units::HumanDuration;

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
    /// connections".
    pub max_connections: usize,
    /// A statement running longer than this is stopped with an error (its session stays usable).
    pub max_query_time: HumanDuration,
}

impl Default for MysqlConfig {
    fn default() -> MysqlConfig {
        MysqlConfig {
            listen: "127.0.0.1:30306".into(),
            user: String::new(),
            password: String::new(),
            max_connections: 32,
            max_query_time: HumanDuration(Duration::from_secs(30)),
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
