//! The file sink (`kind = "file"`): one JSON object per request and line, in the shape of
//! `/api/v1/requests` (with `timers` when `timers = true`), appended to `path`.
//!
//! Rotation: when the file reaches `max_bytes` or `max_age`, it is renamed to
//! `PATH.YYYY-MM-DDTHH-MM-SS.mmmZ` (its rotation time, UTC, so names sort in time order), a new
//! `PATH` is opened, and a short-lived thread ("pinbad-sink-gz") compresses the rotated file to
//! `….gz` (with `gzip = true`) and removes the oldest rotated files beyond `keep`. One
//! compression runs at a time; the sink thread only waits for the previous one at the next
//! rotation. Runs on the sink's thread; each round's lines are written in one go, and a write that
//! fails part-way (a full disk) is cut back off the file, so a line is either written whole or
//! counted `failed`. A rotation that fails (the directory not writable) is tried again after
//! 10 s (`ROTATE_RETRY`), not at every round. At shutdown the file is synced (`close`).
//!
//! Files are also handled by others: every [`PATH_CHECK`] the sink checks that `path` is still
//! the file it writes, and opens a new one when it was moved or removed (logrotate's default
//! `create` mode, an operator's `mv`/`rm`), instead of writing into the moved or deleted file
//! until its own rotation; a file truncated in place (`copytruncate`) is followed, since each
//! write takes the file's length as it is. A file found ending in an unfinished line (a crash or
//! a kill in the middle of a write) is cut back to its last whole line when opened, so the next
//! line does not continue it. The age for `max_age` is the file's own (its creation time where
//! the filesystem keeps one), not the process's: a daemon restarted more often than `max_age`
//! still rotates.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Output, SinkStats};
use crate::config::FileConfig;
use crate::dictionary::Dictionary;
use crate::ndjson::write_request;
use crate::record::RequestView;

/// How long after a failed rotation the next is tried (and its warning logged again).
const ROTATE_RETRY: Duration = Duration::from_secs(10);

/// How often the sink checks that `path` is still the file it writes (one `stat` each time).
pub const PATH_CHECK: Duration = Duration::from_secs(1);

/// The open file and the lines encoded for it.
pub struct FileOutput {
    config: FileConfig,
    /// `None` after a write error: reopened at the next write.
    file: Option<File>,
    bytes: u64,
    opened: Instant,
    /// Lines of the rounds encoded since the last write.
    buf: Vec<u8>,
    lines: u64,
    /// The compression of the previous rotated file, if it may still run.
    compressor: Option<JoinHandle<()>>,
    last_error_log: Option<Instant>,
    /// Unix ms in the name of the last rotated file.
    last_rotation_ms: u64,
    /// After a failed rotation: not tried again before this.
    rotate_after: Option<Instant>,
    /// When `path` was last checked to be the open file ([`PATH_CHECK`]).
    path_checked: Instant,
}

impl FileOutput {
    /// Opens (creates, appends to) the file and its directory.
    pub fn open(config: FileConfig) -> std::io::Result<FileOutput> {
        let file = open_append(&config.path)?;
        let bytes = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(FileOutput {
            config,
            opened: created(&file),
            file: Some(file),
            bytes,
            buf: Vec::with_capacity(1 << 20),
            lines: 0,
            compressor: None,
            last_error_log: None,
            last_rotation_ms: 0,
            rotate_after: None,
            path_checked: Instant::now(),
        })
    }

    /// Opens a new file at `path` when the open one is no longer there (moved or removed by
    /// someone else); the lines written since are in the moved file, where its mover expects
    /// them.
    fn follow_path(&mut self) {
        use std::os::unix::fs::MetadataExt;
        self.path_checked = Instant::now();
        let Some(open) = self.file.as_ref().and_then(|f| f.metadata().ok()) else {
            return; // reopened at the next write anyway
        };
        let same = std::fs::metadata(&self.config.path)
            .is_ok_and(|m| m.dev() == open.dev() && m.ino() == open.ino());
        if same {
            return;
        }
        if let Some(f) = self.file.take() {
            if let Err(e) = f.sync_all() {
                tracing::warn!(path = %self.config.path.display(), error = %e, "File sink cannot sync the file it was writing when it was moved");
            }
        }
        tracing::info!(path = %self.config.path.display(), "File sink: the file was moved or removed; writing a new one");
        match open_append(&self.config.path) {
            Ok(f) => {
                self.bytes = f.metadata().map(|m| m.len()).unwrap_or(0);
                self.opened = created(&f);
                self.file = Some(f);
            }
            // Tried again at the next write (counted `failed` if it still cannot).
            Err(e) => {
                tracing::warn!(path = %self.config.path.display(), error = %e, "File sink cannot open")
            }
        }
    }

    fn write(&mut self, stats: &SinkStats) {
        if self.buf.is_empty() {
            return;
        }
        if self.file.is_none() {
            match open_append(&self.config.path) {
                Ok(f) => {
                    self.opened = created(&f);
                    self.file = Some(f);
                }
                Err(e) => {
                    self.failed(stats, &e);
                    return;
                }
            }
        }
        let Some(f) = &mut self.file else { return };
        // The file's length as it is (truncated in place by someone else, `bytes` is stale):
        // what a failed write is cut back to.
        if let Ok(m) = f.metadata() {
            self.bytes = m.len();
        }
        let result = f.write_all(&self.buf);
        match result {
            Ok(()) => {
                stats.sent.fetch_add(self.lines, Relaxed);
                self.bytes += self.buf.len() as u64;
            }
            Err(e) => {
                // What went in before the error is cut off again: the next write must not
                // continue a half line. `bytes` is the file's length before this write.
                if let Some(f) = self.file.take() {
                    let _ = f.set_len(self.bytes);
                }
                self.failed(stats, &e);
            }
        }
        self.buf.clear();
        self.lines = 0;
    }

    /// Counts the encoded lines as failed and drops them, logging the error at most every 10 s
    /// (a full disk must not flood the log).
    fn failed(&mut self, stats: &SinkStats, e: &std::io::Error) {
        stats.failed.fetch_add(self.lines, Relaxed);
        if self
            .last_error_log
            .is_none_or(|t| t.elapsed() >= Duration::from_secs(10))
        {
            tracing::warn!(path = %self.config.path.display(), error = %e, "File sink cannot write; lines counted as failed");
            self.last_error_log = Some(Instant::now());
        }
        self.buf.clear();
        self.lines = 0;
    }

    fn rotate(&mut self, stats: &SinkStats) {
        let path = self.config.path.clone();
        // Names sort in rotation order: each is at least 1 ms after the previous one.
        let now_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut ms = now_ms.max(self.last_rotation_ms + 1);
        let name = |ms: u64| {
            let t = UNIX_EPOCH + Duration::from_millis(ms);
            let stamp = humantime::format_rfc3339_millis(t)
                .to_string()
                .replace(':', "-");
            suffixed(&path, &stamp)
        };
        let mut rotated = name(ms);
        while rotated.exists() || suffixed(&rotated, "gz").exists() {
            ms += 1;
            rotated = name(ms);
        }
        self.last_rotation_ms = ms;
        if let Some(f) = self.file.take() {
            if let Err(e) = f.sync_all() {
                tracing::warn!(path = %path.display(), error = %e, "File sink cannot sync the file it rotates");
            }
        }
        if let Err(e) = std::fs::rename(&path, &rotated) {
            tracing::warn!(path = %path.display(), error = %e, retry_in = ?ROTATE_RETRY, "File sink cannot rotate");
            self.rotate_after = Some(Instant::now() + ROTATE_RETRY);
            return;
        }
        self.rotate_after = None;
        stats.rotations.fetch_add(1, Relaxed);
        match open_append(&path) {
            Ok(f) => self.file = Some(f),
            Err(e) => tracing::warn!(path = %path.display(), error = %e, "File sink cannot open"),
        }
        self.bytes = 0;
        self.opened = Instant::now();
        // One compression at a time: the previous one has usually long finished.
        if let Some(t) = self.compressor.take() {
            let _ = t.join();
        }
        let (gzip, keep) = (self.config.gzip, self.config.keep);
        let spawned = std::thread::Builder::new()
            .name("pinbad-sink-gz".into())
            .spawn(move || {
                if gzip {
                    if let Err(e) = compress(&rotated) {
                        tracing::warn!(path = %rotated.display(), error = %e, "Cannot gzip a rotated file; kept as is");
                    }
                }
                prune(&path, keep);
            });
        match spawned {
            Ok(t) => self.compressor = Some(t),
            Err(e) => tracing::warn!(error = %e, "Cannot start the compression thread"),
        }
    }
}

impl Output for FileOutput {
    fn encode(&mut self, v: &RequestView<'_>, unix_ms: u64, dict: &Dictionary) {
        write_request(&mut self.buf, v, dict, unix_ms, self.config.timers);
        self.buf.push(b'\n');
        self.lines += 1;
    }

    fn work(&mut self, stats: &SinkStats, _now: Instant) {
        if self.path_checked.elapsed() >= PATH_CHECK {
            self.follow_path();
        }
        self.write(stats);
        let full = self.bytes >= self.config.max_bytes.0;
        let old = self.bytes > 0 && self.opened.elapsed() >= self.config.max_age.0;
        if (full || old) && self.rotate_after.is_none_or(|t| Instant::now() >= t) {
            self.rotate(stats);
        }
    }

    fn pending(&self) -> u64 {
        self.lines
    }

    fn close(&mut self, stats: &SinkStats, _deadline: Instant) {
        self.write(stats);
        if let Some(f) = &self.file {
            // Written lines are counted `sent`; a failed sync (a full disk or a lost NFS server
            // often shows only here) may have lost some of them: said, at least.
            if let Err(e) = f.sync_all() {
                tracing::warn!(path = %self.config.path.display(), error = %e, "File sink cannot sync at shutdown; lines written since the last sync may be lost");
            }
        }
        if let Some(t) = self.compressor.take() {
            let _ = t.join();
        }
    }
}

/// Opens `path` for appending (creating it and its directory), cut back to its last whole line.
/// Whether [`FileOutput::open`] could open `path`, leaving nothing created or changed
/// (`check-config`): an existing regular file opens for appending; a FIFO or device is asked
/// with `access(2)` (opening a FIFO waits for its reader, and closing it ends the reader's input);
/// otherwise a file is created and removed in its nearest existing directory.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    if let Ok(meta) = path.metadata() {
        if !meta.is_file() && !meta.is_dir() {
            use std::os::unix::ffi::OsStrExt;
            let c = std::ffi::CString::new(path.as_os_str().as_bytes())
                .map_err(std::io::Error::other)?;
            // SAFETY: `c` is a NUL-terminated path that outlives the call; access(2) only reads it.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            return Ok(());
        }
        return std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop);
    }
    // A missing file: its nearest existing directory must take new files (and, for the missing
    // directories between, new directories).
    crate::durable::could_create(path.parent().unwrap_or(Path::new(".")))
}

fn open_append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let cut = cut_unfinished_line(path, &file)?;
    if cut > 0 {
        tracing::warn!(path = %path.display(), bytes = cut, "File sink: the file ended in an unfinished line (a write cut short by a crash); cut back to its last whole line");
    }
    Ok(file)
}

/// Cuts `file` (open for appending at `path`) back to just after its last newline, if it does not
/// end with one (or to nothing, if it has none); returns the bytes cut. Reads backwards from the
/// end, a block at a time, through a handle of its own: the appending one stays write-only, as
/// the sink needs it. Only a regular file that can be read is cut.
fn cut_unfinished_line(path: &Path, file: &File) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let m = file.metadata()?;
    if !m.is_file() || m.len() == 0 {
        return Ok(0); // a FIFO, `/dev/stdout`, a new file: nothing to cut
    }
    let Ok(reader) = File::open(path) else {
        return Ok(0); // write-only to us: left as it is
    };
    let len = m.len();
    let mut end = len;
    let mut block = vec![0u8; 64 << 10];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        reader.read_exact_at(chunk, start)?;
        if end == len && chunk.last() == Some(&b'\n') {
            return Ok(0);
        }
        if let Some(at) = chunk.iter().rposition(|&b| b == b'\n') {
            let keep = start + at as u64 + 1;
            file.set_len(keep)?;
            return Ok(len - keep);
        }
        end = start;
    }
    file.set_len(0)?;
    Ok(len)
}

/// When `file` was created (its birth time where the filesystem keeps one), as an `Instant`, for
/// `max_age`; now when that is unknown or the file is empty.
fn created(file: &File) -> Instant {
    let now = Instant::now();
    let Ok(m) = file.metadata() else { return now };
    if m.len() == 0 {
        return now;
    }
    m.created()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .and_then(|age| now.checked_sub(age))
        .unwrap_or(now)
}

/// `path` with `.suffix` appended to its file name.
fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".");
    s.push(suffix);
    PathBuf::from(s)
}

/// Gzips `path` to `path.gz` (through a temporary file, so a `.gz` is always whole), then removes
/// `path`. A temporary file that fails (a full disk) is removed, not left to accumulate.
fn compress(path: &Path) -> std::io::Result<()> {
    let gz = suffixed(path, "gz");
    let tmp = suffixed(path, "gz.tmp");
    let written = (|| {
        let mut input = File::open(path)?;
        let out = File::create(&tmp)?;
        let mut enc = flate2::write::GzEncoder::new(
            std::io::BufWriter::new(out),
            flate2::Compression::fast(),
        );
        std::io::copy(&mut input, &mut enc)?;
        let out = enc.finish()?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &gz)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::remove_file(path)
}

/// Whether `file_name` is a rotated file of the file named `name`: `NAME.STAMP` or
/// `NAME.STAMP.gz`, STAMP as [`FileOutput::rotate`] writes it (`2026-11-24T22-43-00.123Z`). Only
/// those are pruned: another sink's `NAME.slow`, or an operator's `NAME.bak`, are not ours.
fn is_rotated(file_name: &str, name: &str) -> bool {
    let Some(rest) = file_name
        .strip_prefix(name)
        .and_then(|r| r.strip_prefix('.'))
    else {
        return false;
    };
    let stamp = rest.strip_suffix(".gz").unwrap_or(rest);
    const SHAPE: &[u8] = b"dddd-dd-ddTdd-dd-dd.dddZ";
    stamp.len() == SHAPE.len()
        && stamp.bytes().zip(SHAPE).all(|(b, &s)| match s {
            b'd' => b.is_ascii_digit(),
            _ => b == s,
        })
}

/// Removes the oldest rotated files of `path` beyond `keep` (names sort in rotation order).
fn prune(path: &Path, keep: usize) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let name = name.to_string_lossy();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut rotated: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| is_rotated(&n, &name))
        })
        .collect();
    rotated.sort();
    let excess = rotated.len().saturating_sub(keep);
    for p in &rotated[..excess] {
        if let Err(e) = std::fs::remove_file(p) {
            tracing::warn!(path = %p.display(), error = %e, "Cannot remove an old rotated file");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ByteSize;
    use std::io::Read;

    /// `check-config`'s probe creates nothing, passes where the sink could open its file, and
    /// fails where it could not (a path under a regular file).
    #[test]
    fn check_writable_creates_nothing_and_finds_what_cannot_open() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("logs/2026/r.ndjson");
        check_writable(&deep).unwrap();
        assert!(!dir.path().join("logs").exists(), "nothing created");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no probe left"
        );
        // Where nothing can be created, even by root (access(2) lets root pass there).
        for proc in ["/proc/pinbad-check.ndjson", "/proc/a/b/pinbad-check.ndjson"] {
            let e = check_writable(Path::new(proc)).unwrap_err();
            assert!(
                e.to_string().contains("cannot create files in /proc"),
                "{e}"
            );
        }
        // A FIFO without a reader: answered at once (opening it would wait for one).
        let fifo = dir.path().join("fifo.ndjson");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        check_writable(&fifo).unwrap();
        std::fs::remove_file(&fifo).unwrap();
        let file = dir.path().join("r.ndjson");
        std::fs::write(&file, b"{}\n").unwrap();
        check_writable(&file).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"{}\n");
        let e = check_writable(&file.join("x.ndjson")).unwrap_err();
        assert!(e.to_string().contains("is not a directory"), "{e}");
        // Under a directory this process may not write into (root may write anywhere).
        // SAFETY: geteuid(2) takes nothing and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            use std::os::unix::fs::PermissionsExt;
            let ro = dir.path().join("ro");
            std::fs::create_dir(&ro).unwrap();
            std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
            let e = check_writable(&ro.join("r.ndjson")).unwrap_err();
            assert!(e.to_string().contains("cannot create files in"), "{e}");
        }
    }

    #[test]
    fn rotated_files_are_gzipped_and_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("logs/r.ndjson");
        let config = FileConfig {
            path: path.clone(),
            max_bytes: ByteSize(1024),
            keep: 2,
            ..Default::default()
        };
        let mut out = FileOutput::open(config).unwrap();
        let stats = SinkStats::default();
        for round in 0..5 {
            for i in 0..30 {
                let line = format!("{{\"round\":{round},\"i\":{i},\"pad\":\"{:40}\"}}\n", "");
                out.buf.extend_from_slice(line.as_bytes());
                out.lines += 1;
            }
            out.work(&stats, Instant::now());
        }
        out.close(&stats, Instant::now());
        assert_eq!(stats.sent.load(Relaxed), 150);
        assert_eq!(stats.rotations.load(Relaxed), 5);
        let mut names: Vec<String> = std::fs::read_dir(dir.path().join("logs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        // Each round filled the file past max_bytes: 5 rotations, 2 kept, an empty current file.
        assert_eq!(names.len(), 3, "{names:?}");
        assert_eq!(names[0], "r.ndjson");
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        assert!(names[1..].iter().all(|n| n.ends_with(".gz")), "{names:?}");
        // The newest rotated file holds the last round, whole.
        let mut text = String::new();
        flate2::read::GzDecoder::new(File::open(dir.path().join("logs").join(&names[2])).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text.lines().count(), 30);
        assert!(text.lines().all(|l| l.starts_with("{\"round\":4,")));
    }

    /// `n` lines of `tag` encoded and written, as a round would.
    fn lines(out: &mut FileOutput, stats: &SinkStats, tag: &str, n: usize) {
        for i in 0..n {
            out.buf
                .extend_from_slice(format!("{{\"{tag}\":{i}}}\n").as_bytes());
            out.lines += 1;
        }
        out.work(stats, Instant::now());
    }

    /// Moved away (logrotate's default) or removed: the next lines go to a new file at `path`,
    /// not into the moved or deleted one. Truncated in place (`copytruncate`): followed.
    #[test]
    fn a_moved_removed_or_truncated_file_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.ndjson");
        let moved = dir.path().join("r.ndjson.1");
        let mut out = FileOutput::open(FileConfig {
            path: path.clone(),
            ..Default::default()
        })
        .unwrap();
        let stats = SinkStats::default();
        lines(&mut out, &stats, "a", 3);
        std::fs::rename(&path, &moved).unwrap();
        out.follow_path();
        lines(&mut out, &stats, "b", 2);
        let text = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_eq!(
            text(&moved).lines().count(),
            3,
            "the moved file keeps its lines"
        );
        assert_eq!(text(&path), "{\"b\":0}\n{\"b\":1}\n");
        std::fs::remove_file(&path).unwrap();
        out.follow_path();
        lines(&mut out, &stats, "c", 1);
        assert_eq!(text(&path), "{\"c\":0}\n");
        // Truncated in place: the sink's idea of the size follows (rotation by size).
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        lines(&mut out, &stats, "d", 1);
        assert_eq!(text(&path), "{\"d\":0}\n");
        assert_eq!(out.bytes, 8);
        assert_eq!(stats.sent.load(Relaxed), 7);
        assert_eq!(stats.failed.load(Relaxed), 0);
    }

    /// A file left ending in an unfinished line (a write cut short by a crash) is cut back to
    /// its last whole line when opened, so the next line starts a line of its own.
    #[test]
    fn an_unfinished_last_line_is_cut_off_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.ndjson");
        let config = FileConfig {
            path: path.clone(),
            ..Default::default()
        };
        let stats = SinkStats::default();
        // A whole line, then 100 KB of an unfinished one (longer than the block read back).
        let long = "x".repeat(100 << 10);
        std::fs::write(&path, format!("{{\"a\":0}}\n{{\"b\":\"{long}")).unwrap();
        let mut out = FileOutput::open(config.clone()).unwrap();
        lines(&mut out, &stats, "c", 1);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":0}\n{\"c\":0}\n"
        );
        // No newline at all: nothing whole to keep. A whole file is left as it is.
        std::fs::write(&path, "{\"b\":").unwrap();
        drop(FileOutput::open(config.clone()).unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        std::fs::write(&path, "{\"a\":0}\n").unwrap();
        drop(FileOutput::open(config).unwrap());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\":0}\n");
    }

    /// Pruning removes this sink's oldest rotated files only: not another sink's file whose name
    /// starts with this one's (`r.ndjson.slow` and its rotated files), nor an operator's copy.
    #[test]
    fn pruning_leaves_files_that_are_not_this_sinks_rotations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.ndjson");
        let others = [
            "r.ndjson.slow",
            "r.ndjson.slow.2020-01-01T00-00-00.000Z",
            "r.ndjson.bak",
            "r.ndjson.2020-01-01T00-00-00.000Z.gz.tmp",
        ];
        let ours = [
            "r.ndjson.2020-01-01T00-00-00.000Z.gz",
            "r.ndjson.2020-01-01T00-00-01.000Z",
            "r.ndjson.2020-01-01T00-00-02.000Z.gz",
        ];
        for n in others.iter().chain(&ours) {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        prune(&path, 1);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want: Vec<String> = others.iter().map(|n| n.to_string()).collect();
        want.push(ours[2].to_string());
        want.sort();
        assert_eq!(left, want);
        assert!(is_rotated("r.ndjson.2026-11-24T22-43-00.123Z", "r.ndjson"));
        assert!(!is_rotated(
            "r.ndjson.2026-11-24T22-43-00.123Z.gz.tmp",
            "r.ndjson"
        ));
        assert!(!is_rotated(
            "r.ndjsonx.2026-11-24T22-43-00.123Z",
            "r.ndjson"
        ));
    }
}
