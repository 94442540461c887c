//! Small state files (`reports.json`, `sinks.json`) written whole or not at all, and durably.
//!
//! A temporary file beside the target is written and synced, renamed over the target, and then
//! the directory is synced too: without that last step the rename itself may not survive a power
//! loss, and a change the API already answered (a report created: 201) would be gone after it.

use std::io::Write;
use std::path::Path;

/// Writes `value` as pretty JSON to `path` (creating its directory): the file holds either the
/// old content or the whole new one, whatever happens meanwhile.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    std::fs::File::open(dir)?.sync_all()
}

/// Whether a file can be created in the directory `dir`: one is, and removed at once (asking
/// `access(2)` is not enough: root passes it where nothing can be created, as in `/proc` or on a
/// read-only mount).
pub fn probe_dir(dir: &Path) -> std::io::Result<()> {
    static PROBES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let cannot = |e: std::io::Error| {
        std::io::Error::new(
            e.kind(),
            format!("cannot create files in {}: {e}", dir.display()),
        )
    };
    // A name of its own per call (pid, clock, count): two daemons checking one directory, even
    // two containers' pid 1 on a shared volume, never meet on one name and never remove each
    // other's probe. `create_new` (O_EXCL) follows no link planted under the name; a name taken
    // (a probe a crash left, a neighbour's) is passed over for the next.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut tries = 0;
    loop {
        let n = PROBES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let probe = dir.join(format!(
            ".pinbad-write-check-{}-{nanos}-{n}",
            std::process::id()
        ));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
        {
            Ok(_) => return std::fs::remove_file(&probe),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 8 => tries += 1,
            Err(e) => return Err(cannot(e)),
        }
    }
}

/// Whether `path` (a file or directory, with any missing parents) could be created, creating
/// nothing that stays: [`probe_dir`] in its nearest existing directory (`path` itself when it is
/// one). What `check-config` asks where the start would create.
pub fn could_create(path: &Path) -> std::io::Result<()> {
    let dir = path
        .ancestors()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .find(|d| d.exists())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    probe_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_creates_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/state.json");
        write_json(&path, &serde_json::json!({"a": 1})).unwrap();
        write_json(&path, &serde_json::json!({"a": 2})).unwrap();
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back["a"], 2);
        assert!(!dir.path().join("sub/state.json.tmp").exists());
        // The temporary file cannot be made (its name taken by a directory): an error, and the
        // old file untouched.
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::write(ro.join("s.json"), "old").unwrap();
        std::fs::create_dir(ro.join("s.json.tmp")).unwrap(); // the temporary name taken
        assert!(write_json(&ro.join("s.json"), &1).is_err());
        assert_eq!(std::fs::read_to_string(ro.join("s.json")).unwrap(), "old");
    }

    /// Probes leave nothing, and probes at once in one directory do not meet: four threads of
    /// one process (one pid, as two containers' pid 1 on a shared volume) probing together all
    /// succeed (with one name per pid, one removed another's or found it there).
    #[test]
    fn probes_at_once_do_not_meet_and_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        probe_dir(dir.path()).unwrap();
                    }
                });
            }
        });
        could_create(&dir.path().join("a/b/c")).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}
