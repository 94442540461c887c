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
}
