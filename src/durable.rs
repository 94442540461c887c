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
    // One probe per process: two daemons checking one directory do not remove each other's. One
    // left by a crash (the same pid comes back: 1, in a container) is removed first, and the
    // probe made anew, never opened through a link someone planted in a shared directory.
    let probe = dir.join(format!(".pinbad-write-check-{}", std::process::id()));
    match std::fs::remove_file(&probe) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(std::io::Error::new(
                e.kind(),
                format!("cannot create files in {}: {e}", dir.display()),
            ))
        }
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot create files in {}: {e}", dir.display()),
            )
        })?;
    std::fs::remove_file(&probe)
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

    /// The probe leaves nothing, and a link planted under its name (a shared directory) is
    /// removed, not followed: the file it points to keeps its content.
    #[test]
    fn the_probe_leaves_nothing_and_follows_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep me").unwrap();
        let probe = dir
            .path()
            .join(format!(".pinbad-write-check-{}", std::process::id()));
        std::os::unix::fs::symlink(&target, &probe).unwrap();
        probe_dir(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        assert!(probe.symlink_metadata().is_err(), "the probe is gone");
        could_create(&dir.path().join("a/b/c")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
