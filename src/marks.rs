//! Marks: moments an operator names (a deploy, a config change), kept in
//! `{state_dir}/marks.json` so that charts can draw them, Grafana can show them as annotations
//! (the SQL table `marks`) and a comparison can start or end at one.
//!
//! - **Bounded**: at most [`MAX_MARKS`] marks; adding one past the bound drops the one added
//!   first (the smallest id: the oldest entry, which is not always the earliest time, but never
//!   the one just added), counted in `dropped` (the status's `marks`). A mark's text is at most
//!   [`MAX_TEXT_BYTES`], its server and script names at most [`MAX_NAME_BYTES`]: the whole
//!   file stays under a megabyte and a list answers in one piece.
//! - **Durable**: every change is written whole and synced ([`crate::durable::write_json`])
//!   before it is answered; a write that fails leaves the marks as they were and the change is
//!   refused (the API's 500), so an answered 201 or 204 survives a power loss.
//! - **Checked when read back**: a file that does not parse, or holds a mark out of bounds, a
//!   repeated id or an id not below `next_id`, is set aside as `marks.json.damaged` and the start
//!   goes on without marks (the status's `state_files`): losing marks is better than a restart
//!   loop. More than [`MAX_MARKS`] (a file edited by hand) keeps the latest added, the rest
//!   counted as dropped.
//! - **Readers never wait for a write**: a change is made on a copy, written, and only then
//!   swapped in; readers (the API, every SQL statement over `marks`) clone an `Arc` under a
//!   short lock.
//!
//! Threads: read at start-up on the main thread; changed from the API's blocking pool; read
//! from the API and the SQL sessions.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};

use crate::durable::{OnDamage, SetAside};

/// The file's name in `state_dir`.
pub const FILE: &str = "marks.json";

/// Most marks kept: a deploy an hour for six weeks. A chart draws those in its range; a list
/// of them all is under 1 MB even with every text and name at its longest (~0.9 KB a mark).
pub const MAX_MARKS: usize = 1000;

/// Longest text of a mark, in bytes: a line naming a deploy (a version, a commit, who).
pub const MAX_TEXT_BYTES: usize = 256;

/// Longest `server_name` or `script_name` of a mark, in bytes (pinba's own fields are shorter).
pub const MAX_NAME_BYTES: usize = 256;

/// Latest time a mark may have: unix ms of 5138 (what `units::parse_time_ms` reads at most).
pub const MAX_TIME_MS: i64 = 100_000_000_000_000;

/// The file's format version.
const VERSION: u32 = 1;

/// One mark.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    /// Unique per state directory, never reused (`next_id` is kept in the file).
    pub id: u64,
    /// The moment it marks, unix milliseconds.
    pub time_ms: i64,
    /// What happened there.
    pub text: String,
    /// The server it concerns, if one (a deploy of one site).
    #[serde(default)]
    pub server_name: Option<String>,
    /// The script it concerns, if one.
    #[serde(default)]
    pub script_name: Option<String>,
    /// When it was added, unix milliseconds.
    pub created_ms: i64,
}

/// A mark as asked for (`POST /api/v1/marks`), before it has an id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewMark {
    pub time_ms: i64,
    pub text: String,
    pub server_name: Option<String>,
    pub script_name: Option<String>,
}

impl NewMark {
    /// Why this mark cannot be kept, if it cannot: an empty or too long text or name, a time
    /// before 1970 or past [`MAX_TIME_MS`].
    pub fn check(&self) -> Result<(), String> {
        if self.text.trim().is_empty() {
            return Err("`text` is empty: say what happened (\"deploy v1.4.2\")".into());
        }
        if self.text.len() > MAX_TEXT_BYTES {
            return Err(format!(
                "`text` is {} bytes, above {MAX_TEXT_BYTES}",
                self.text.len()
            ));
        }
        for (field, v) in [
            ("server_name", &self.server_name),
            ("script_name", &self.script_name),
        ] {
            match v {
                Some(v) if v.is_empty() => {
                    return Err(format!("`{field}` is empty (leave it out instead)"))
                }
                Some(v) if v.len() > MAX_NAME_BYTES => {
                    return Err(format!(
                        "`{field}` is {} bytes, above {MAX_NAME_BYTES}",
                        v.len()
                    ))
                }
                _ => {}
            }
        }
        if !(0..MAX_TIME_MS).contains(&self.time_ms) {
            return Err(format!(
                "`time` ({} ms) is before 1970 or too far ahead",
                self.time_ms
            ));
        }
        Ok(())
    }
}

/// What `marks.json` holds.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    version: u32,
    /// The id the next mark gets.
    next_id: u64,
    /// In the order added (ids ascending).
    marks: Vec<Mark>,
}

impl Saved {
    /// Why a file read back cannot be used, if it cannot (see the module docs).
    fn nonsense(&self) -> Option<String> {
        if self.version != VERSION {
            return Some(format!(
                "version {} (this pinbad reads {VERSION})",
                self.version
            ));
        }
        let mut last = None;
        for m in &self.marks {
            if m.id >= self.next_id {
                return Some(format!(
                    "mark {} is not below next_id {}",
                    m.id, self.next_id
                ));
            }
            if last.is_some_and(|l| m.id <= l) {
                return Some(format!("mark {} is out of order or repeated", m.id));
            }
            last = Some(m.id);
            let new = NewMark {
                time_ms: m.time_ms,
                text: m.text.clone(),
                server_name: m.server_name.clone(),
                script_name: m.script_name.clone(),
            };
            if let Err(why) = new.check() {
                return Some(format!("mark {}: {why}", m.id));
            }
        }
        None
    }
}

/// Why a change was refused.
#[derive(Debug, thiserror::Error)]
pub enum MarksError {
    /// The mark asked for is out of bounds (a 400).
    #[error("{0}")]
    Invalid(String),
    /// No mark has that id (a 404).
    #[error("no mark with id {0}")]
    NotFound(u64),
    /// The file could not be written; nothing changed (a 500).
    #[error("the marks could not be saved ({0}); nothing changed")]
    Io(String),
}

/// The marks of a state directory. See the module docs.
pub struct Marks {
    /// `None`: not backed by a file (unit tests): changes are kept in memory only.
    path: Option<PathBuf>,
    /// What readers see: the marks as last written.
    current: RwLock<Arc<Saved>>,
    /// One change at a time (each a whole write of the file).
    write: Mutex<()>,
    /// Marks dropped past [`MAX_MARKS`] since the start.
    dropped: AtomicU64,
    /// Writes of the file that failed (each change refused).
    write_failures: AtomicU64,
    /// The file, when start-up found it damaged and set it aside (the status).
    set_aside: Option<SetAside>,
}

impl Marks {
    /// Marks kept in memory only.
    pub fn unbacked() -> Marks {
        Marks {
            path: None,
            current: RwLock::new(Arc::new(Saved {
                version: VERSION,
                ..Saved::default()
            })),
            write: Mutex::new(()),
            dropped: AtomicU64::new(0),
            write_failures: AtomicU64::new(0),
            set_aside: None,
        }
    }

    /// Reads `{state_dir}/marks.json` (none yet: no marks). A damaged one is handled as
    /// `on_damage` says (set aside at a start, said by `check-config`) and the marks start empty.
    pub fn open(state_dir: &Path, on_damage: OnDamage) -> Marks {
        let path = state_dir.join(FILE);
        let mut marks = Marks {
            path: Some(path.clone()),
            ..Marks::unbacked()
        };
        let instead = "starting without marks";
        let saved = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<Saved>(&bytes) {
                Ok(saved) => match saved.nonsense() {
                    None => Some(saved),
                    Some(why) => {
                        marks.set_aside = on_damage.handle(&path, &why, instead);
                        None
                    }
                },
                Err(e) => {
                    marks.set_aside = on_damage.handle(&path, &format!("damaged ({e})"), instead);
                    None
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                marks.set_aside = on_damage.handle(&path, &format!("cannot read it: {e}"), instead);
                None
            }
        };
        if let Some(mut saved) = saved {
            let over = saved.marks.len().saturating_sub(MAX_MARKS);
            if over > 0 {
                saved.marks.drain(..over);
                marks.dropped.store(over as u64, Relaxed);
                tracing::warn!(path = %path.display(), dropped = over, max = MAX_MARKS, "More marks than kept: the first added dropped");
            }
            tracing::info!(path = %path.display(), marks = saved.marks.len(), "Loaded marks");
            marks.current = RwLock::new(Arc::new(saved));
        }
        marks
    }

    /// The file, when [`Marks::open`] found it damaged and set it aside.
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    /// Every mark, in the order added.
    fn all(&self) -> Arc<Saved> {
        Arc::clone(&self.current.read())
    }

    /// The marks whose time is within `from_ms..=to_ms`, by time (then id).
    pub fn list(&self, from_ms: i64, to_ms: i64) -> Vec<Mark> {
        let all = self.all();
        let mut out: Vec<Mark> = all
            .marks
            .iter()
            .filter(|m| (from_ms..=to_ms).contains(&m.time_ms))
            .cloned()
            .collect();
        out.sort_by_key(|m| (m.time_ms, m.id));
        out
    }

    /// How many marks there are.
    pub fn len(&self) -> usize {
        self.current.read().marks.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds a mark (`created_ms`: now), written before it is answered; past [`MAX_MARKS`] the
    /// first added is dropped (counted).
    pub fn add(&self, new: NewMark, created_ms: i64) -> Result<Mark, MarksError> {
        new.check().map_err(MarksError::Invalid)?;
        let _one = self.write.lock();
        let mut next = (*self.all()).clone();
        let mark = Mark {
            id: next.next_id,
            time_ms: new.time_ms,
            text: new.text,
            server_name: new.server_name,
            script_name: new.script_name,
            created_ms,
        };
        next.next_id += 1;
        next.marks.push(mark.clone());
        let over = next.marks.len().saturating_sub(MAX_MARKS);
        next.marks.drain(..over);
        self.save(next)?;
        self.dropped.fetch_add(over as u64, Relaxed);
        tracing::info!(id = mark.id, time_ms = mark.time_ms, text = %mark.text, "Mark added");
        Ok(mark)
    }

    /// Removes the mark `id`, written before it is answered.
    pub fn delete(&self, id: u64) -> Result<Mark, MarksError> {
        let _one = self.write.lock();
        let mut next = (*self.all()).clone();
        let at = next
            .marks
            .iter()
            .position(|m| m.id == id)
            .ok_or(MarksError::NotFound(id))?;
        let gone = next.marks.remove(at);
        self.save(next)?;
        tracing::info!(id, text = %gone.text, "Mark deleted");
        Ok(gone)
    }

    /// Writes `next` (when backed by a file) and makes it what readers see; on a failure,
    /// nothing changes. Called holding `write`.
    fn save(&self, next: Saved) -> Result<(), MarksError> {
        if let Some(path) = &self.path {
            if let Err(e) = crate::durable::write_json(path, &next) {
                self.write_failures.fetch_add(1, Relaxed);
                tracing::warn!(path = %path.display(), error = %e, "Cannot save the marks; the change is refused");
                return Err(MarksError::Io(format!("{}: {e}", path.display())));
            }
        }
        *self.current.write() = Arc::new(next);
        Ok(())
    }

    /// The status's `marks`: how many, the bound, and what was dropped or failed.
    pub fn status(&self) -> serde_json::Value {
        serde_json::json!({
            "count": self.len(),
            "max": MAX_MARKS,
            "dropped": self.dropped.load(Relaxed),
            "write_failures": self.write_failures.load(Relaxed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(time_ms: i64, text: &str) -> NewMark {
        NewMark {
            time_ms,
            text: text.into(),
            server_name: None,
            script_name: None,
        }
    }

    #[test]
    fn marks_are_kept_across_an_open_listed_by_time_and_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let marks = Marks::open(dir.path(), OnDamage::SetAside);
        assert!(marks.is_empty());
        let a = marks.add(new(2_000, "second"), 10).unwrap();
        let b = marks
            .add(
                NewMark {
                    server_name: Some("shop".into()),
                    ..new(1_000, "first")
                },
                11,
            )
            .unwrap();
        assert_eq!((a.id, b.id), (0, 1));
        let again = Marks::open(dir.path(), OnDamage::SetAside);
        let listed = again.list(0, i64::MAX);
        assert_eq!(listed, vec![b.clone(), a.clone()]);
        assert_eq!(again.list(1_500, 2_500), vec![a.clone()]);
        assert_eq!(again.delete(0).unwrap(), a);
        assert!(matches!(again.delete(0), Err(MarksError::NotFound(0))));
        // Ids are not reused after a delete and a restart.
        let third = Marks::open(dir.path(), OnDamage::SetAside);
        assert_eq!(third.list(0, i64::MAX), vec![b]);
        assert_eq!(third.add(new(3_000, "third"), 12).unwrap().id, 2);
    }

    #[test]
    fn past_the_bound_the_first_added_is_dropped_and_counted() {
        let marks = Marks::unbacked();
        for i in 0..MAX_MARKS as i64 + 3 {
            // Times descending: the first added is the latest, and still the one dropped.
            marks.add(new(10_000_000 - i, "deploy"), 0).unwrap();
        }
        assert_eq!(marks.len(), MAX_MARKS);
        let ids: Vec<u64> = marks.all().marks.iter().map(|m| m.id).collect();
        assert_eq!(ids.first(), Some(&3));
        assert_eq!(marks.status()["dropped"], 3);
    }

    #[test]
    fn marks_out_of_bounds_are_refused() {
        let marks = Marks::unbacked();
        let long = "x".repeat(MAX_TEXT_BYTES + 1);
        for (bad, needle) in [
            (new(1, " "), "`text` is empty"),
            (new(1, &long), "above 256"),
            (new(-1, "x"), "before 1970"),
            (new(MAX_TIME_MS, "x"), "too far ahead"),
            (
                NewMark {
                    script_name: Some(String::new()),
                    ..new(1, "x")
                },
                "`script_name` is empty",
            ),
        ] {
            let e = marks.add(bad, 0).unwrap_err();
            assert!(
                matches!(&e, MarksError::Invalid(w) if w.contains(needle)),
                "{e}"
            );
        }
        assert!(marks.is_empty());
    }

    /// A file that does not parse, or holds what no pinbad writes, is set aside and the start
    /// goes on without marks; `check-config` only says so.
    #[test]
    fn a_damaged_file_is_set_aside() {
        for text in [
            "{not json",
            r#"{"version": 1, "next_id": 1, "marks": [{"id": 1, "time_ms": 5, "text": "x", "created_ms": 0}]}"#,
            r#"{"version": 1, "next_id": 9, "marks": [{"id": 1, "time_ms": 5, "text": "", "created_ms": 0}]}"#,
            r#"{"version": 2, "next_id": 0, "marks": []}"#,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(FILE);
            std::fs::write(&path, text).unwrap();
            let checked = Marks::open(dir.path(), OnDamage::Warn);
            assert!(checked.set_aside().is_none() && path.exists(), "{text}");
            let marks = Marks::open(dir.path(), OnDamage::SetAside);
            assert!(marks.set_aside().is_some(), "{text}");
            assert!(marks.is_empty() && !path.exists(), "{text}");
            assert!(dir.path().join("marks.json.damaged").exists());
            // A new mark is written afresh.
            marks.add(new(1, "after"), 0).unwrap();
            assert_eq!(Marks::open(dir.path(), OnDamage::SetAside).len(), 1);
        }
    }

    /// A write that fails (the file's place taken by a directory) refuses the change and leaves
    /// the marks as they were.
    #[test]
    fn a_failed_write_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let marks = Marks::open(dir.path(), OnDamage::SetAside);
        marks.add(new(1, "kept"), 0).unwrap();
        std::fs::create_dir(dir.path().join("marks.json.tmp")).unwrap();
        assert!(matches!(
            marks.add(new(2, "lost"), 0),
            Err(MarksError::Io(_))
        ));
        assert!(matches!(marks.delete(0), Err(MarksError::Io(_))));
        assert_eq!(marks.len(), 1);
        assert_eq!(marks.status()["write_failures"], 2);
    }
}
