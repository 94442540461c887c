//! MySQL's named locks (`GET_LOCK`, `RELEASE_LOCK`, `IS_FREE_LOCK`, `IS_USED_LOCK`,
//! `RELEASE_ALL_LOCKS`): advisory locks the server's sessions share, which cron jobs take so
//! that one run at a time reads the reports. A lock is its session's until released or the
//! session ends; the session that holds it may take it again (each taking counted, as
//! MariaDB's are), and names compare byte by byte (MariaDB's do). Bounded: at most
//! [`MAX_LOCKS`] names are held, taking at most [`MAX_NAME_BYTES`] together, and a wait ends at
//! its timeout or the statement's deadline, whichever is first.

use parking_lot::{Condvar, Mutex};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Result};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The bytes of lock names the server holds at most (beyond, `GET_LOCK` is NULL: MySQL's
/// answer where it could not take a lock for want of memory).
pub const MAX_NAME_BYTES: usize = 4 << 20;
/// The names the server holds at most (likewise).
pub const MAX_LOCKS: usize = 65_536;

/// A lock's holder: its session, and how many times it took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    session: u32,
    count: u64,
}

/// The locks held, and their names' bytes.
#[derive(Debug, Default)]
struct Names {
    held: HashMap<Vec<u8>, Held>,
    bytes: usize,
}

/// The server's named locks.
#[derive(Debug, Default)]
pub struct Locks {
    held: Mutex<Names>,
    /// Notified whenever a lock is released.
    released: Condvar,
}

/// What `GET_LOCK` came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// Taken (1).
    Yes,
    /// Another session held it past the timeout (0).
    TimedOut,
    /// Not taken: the names held are at their bound (NULL).
    Full,
    /// The statement's deadline came first.
    Stopped,
}

impl Locks {
    /// `GET_LOCK(name, timeout)` for `session`: waits while another session holds `name`, up
    /// to `timeout` or `deadline`.
    pub fn get(
        &self,
        name: &[u8],
        session: u32,
        timeout: Duration,
        deadline: Option<Instant>,
    ) -> Taken {
        let until = Instant::now().checked_add(timeout);
        let mut names = self.held.lock();
        loop {
            match names.held.get_mut(name) {
                Some(h) if h.session == session => {
                    h.count += 1;
                    return Taken::Yes;
                }
                Some(_) => {}
                None => {
                    if names.bytes + name.len() > MAX_NAME_BYTES || names.held.len() >= MAX_LOCKS {
                        return Taken::Full;
                    }
                    names.bytes += name.len();
                    names.held.insert(name.to_vec(), Held { session, count: 1 });
                    return Taken::Yes;
                }
            }
            let now = Instant::now();
            let stop = deadline.is_some_and(|d| now >= d);
            if stop {
                return Taken::Stopped;
            }
            if until.is_some_and(|u| now >= u) {
                return Taken::TimedOut;
            }
            let wake = match (until, deadline) {
                (Some(u), Some(d)) => u.min(d),
                (Some(u), None) => u,
                (None, Some(d)) => d,
                (None, None) => now + Duration::from_secs(1),
            };
            self.released.wait_until(&mut names, wake);
        }
    }

    /// `RELEASE_LOCK(name)` for `session`: 1 released (once of its takings), 0 held by
    /// another session, NULL held by none.
    pub fn release(&self, name: &[u8], session: u32) -> Option<i64> {
        let mut names = self.held.lock();
        let h = names.held.get_mut(name)?;
        if h.session != session {
            return Some(0);
        }
        h.count -= 1;
        if h.count == 0 {
            names.held.remove(name);
            names.bytes -= name.len();
            self.released.notify_all();
        }
        Some(1)
    }

    /// `RELEASE_ALL_LOCKS()` for `session` (and its end): the takings released.
    pub fn release_all(&self, session: u32) -> u64 {
        let mut names = self.held.lock();
        let mut released = 0;
        let mut freed = 0;
        names.held.retain(|name, h| {
            let mine = h.session == session;
            if mine {
                released += h.count;
                freed += name.len();
            }
            !mine
        });
        names.bytes -= freed;
        if released > 0 {
            self.released.notify_all();
        }
        released
    }

    /// `IS_USED_LOCK(name)`: the session that holds it.
    pub fn holder(&self, name: &[u8]) -> Option<u32> {
        self.held.lock().held.get(name).map(|h| h.session)
    }
}

/// A warning a lock function raises: its code and words.
pub type Raise = Box<dyn Fn(u16, String) + Send + Sync>;

/// Registers the lock functions on `conn` for session `session`: a wait ends at `deadline()`
/// (the statement's) with `stopped`'s error; a negative timeout is NULL with MariaDB's warning
/// 1411, raised through `raise`.
pub fn register(
    conn: &Connection,
    locks: Arc<Locks>,
    session: u32,
    deadline: impl Fn() -> Option<Instant> + Send + Sync + 'static,
    stopped: &'static str,
    raise: Raise,
) -> Result<()> {
    let volatile = FunctionFlags::SQLITE_UTF8;
    let l = Arc::clone(&locks);
    conn.create_scalar_function("get_lock", 2, volatile, move |ctx| {
        let Some(name) = name(ctx) else {
            return Ok(None);
        };
        let seconds = match ctx.get_raw(1) {
            ValueRef::Null => return Ok(None),
            ValueRef::Integer(i) => i as f64,
            ValueRef::Real(r) => r,
            v @ (ValueRef::Text(_) | ValueRef::Blob(_)) => {
                let text = String::from_utf8_lossy(v.as_bytes().unwrap_or_default());
                text.trim().parse::<f64>().unwrap_or(0.0)
            }
        };
        // MariaDB reads the timeout as whole seconds: below -1 second it is refused.
        if seconds.trunc() < 0.0 {
            raise(
                1411,
                format!("Incorrect timeout value: '{seconds}' for function get_lock"),
            );
            return Ok(None);
        }
        let timeout = Duration::from_secs_f64(seconds.clamp(0.0, 1e9));
        Ok(match l.get(&name, session, timeout, deadline()) {
            Taken::Yes => Some(1),
            Taken::TimedOut => Some(0),
            Taken::Full => None,
            Taken::Stopped => return Err(rusqlite::Error::UserFunctionError(stopped.into())),
        })
    })?;
    let l = Arc::clone(&locks);
    conn.create_scalar_function("release_lock", 1, volatile, move |ctx| {
        Ok(name(ctx).and_then(|n| l.release(&n, session)))
    })?;
    let l = Arc::clone(&locks);
    conn.create_scalar_function("is_free_lock", 1, volatile, move |ctx| {
        Ok(name(ctx).map(|n| i64::from(l.holder(&n).is_none())))
    })?;
    let l = Arc::clone(&locks);
    conn.create_scalar_function("is_used_lock", 1, volatile, move |ctx| {
        Ok(name(ctx).and_then(|n| l.holder(&n)).map(i64::from))
    })?;
    conn.create_scalar_function("release_all_locks", 0, volatile, move |_| {
        Ok(Value::Integer(locks.release_all(session) as i64))
    })?;
    Ok(())
}

/// A lock's name: NULL or empty names none.
fn name(ctx: &Context<'_>) -> Option<Vec<u8>> {
    let bytes = match ctx.get_raw(0) {
        ValueRef::Null => return None,
        ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
        ValueRef::Integer(i) => i.to_string().into_bytes(),
        ValueRef::Real(r) => r.to_string().into_bytes(),
    };
    (!bytes.is_empty()).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lock is its session's: taken again by it (each taking released once), refused to
    /// another until released, and all of a session's released together.
    #[test]
    fn a_lock_is_one_sessions_until_released() {
        let locks = Locks::default();
        let now = Duration::ZERO;
        assert_eq!(locks.get(b"job", 1, now, None), Taken::Yes);
        assert_eq!(locks.get(b"job", 1, now, None), Taken::Yes);
        assert_eq!(locks.get(b"job", 2, now, None), Taken::TimedOut);
        assert_eq!(locks.get(b"Job", 2, now, None), Taken::Yes);
        assert_eq!(locks.holder(b"job"), Some(1));
        assert_eq!(locks.release(b"job", 2), Some(0));
        assert_eq!(locks.release(b"job", 1), Some(1));
        assert_eq!(locks.holder(b"job"), Some(1));
        assert_eq!(locks.release(b"job", 1), Some(1));
        assert_eq!(locks.release(b"job", 1), None);
        assert_eq!(locks.holder(b"job"), None);
        assert_eq!(locks.get(b"a", 3, now, None), Taken::Yes);
        assert_eq!(locks.get(b"a", 3, now, None), Taken::Yes);
        assert_eq!(locks.get(b"b", 3, now, None), Taken::Yes);
        assert_eq!(locks.release_all(3), 3);
        assert_eq!(locks.release_all(3), 0);
        assert_eq!(locks.holder(b"Job"), Some(2));
    }

    /// A wait ends when the holder releases, at the timeout, or at the deadline, and the
    /// names held are bounded.
    #[test]
    fn waits_end_and_names_are_bounded() {
        let locks = Arc::new(Locks::default());
        assert_eq!(locks.get(b"job", 1, Duration::ZERO, None), Taken::Yes);
        let waiter = {
            let locks = Arc::clone(&locks);
            std::thread::spawn(move || locks.get(b"job", 2, Duration::from_secs(600), None))
        };
        // (The waiter takes the lock whenever it is released, before or after it waits.)
        assert_eq!(locks.release(b"job", 1), Some(1));
        assert_eq!(waiter.join().unwrap(), Taken::Yes);
        assert_eq!(locks.holder(b"job"), Some(2));
        let past = Instant::now();
        assert_eq!(
            locks.get(b"job", 1, Duration::from_secs(600), Some(past)),
            Taken::Stopped
        );
        let start = Instant::now();
        assert_eq!(
            locks.get(b"job", 1, Duration::from_millis(20), None),
            Taken::TimedOut
        );
        assert!(start.elapsed() >= Duration::from_millis(20));
        let big = vec![b'x'; MAX_NAME_BYTES];
        assert_eq!(locks.get(&big, 1, Duration::ZERO, None), Taken::Full);
        assert_eq!(locks.release_all(2), 1);
        assert_eq!(locks.get(&big, 1, Duration::ZERO, None), Taken::Yes);
        assert_eq!(locks.release(&big, 1), Some(1));
        for i in 0..MAX_LOCKS {
            assert_eq!(
                locks.get(&i.to_le_bytes(), 4, Duration::ZERO, None),
                Taken::Yes
            );
        }
        assert_eq!(locks.get(b"one more", 4, Duration::ZERO, None), Taken::Full);
        assert_eq!(locks.release_all(4), MAX_LOCKS as u64);
        assert_eq!(locks.get(&big, 1, Duration::ZERO, None), Taken::Yes);
    }
}
