//! The state directory's files: small ones (`reports.json`, `sinks.json`) written whole or not
//! at all, and durably; who may read what pinbad writes there; damaged files set aside; the lock
//! that keeps a second daemon out.
//!
//! - **Durable writes** ([`write_json`]): a temporary file beside the target is written and
//!   synced, renamed over the target, and then the directory is synced too: without that last
//!   step the rename itself may not survive a power loss, and a change the API already answered
//!   (a report created: 201) would be gone after it.
//! - **Modes** ([`restrict`], [`file_mode`], [`create_file`]): state files hold raw URLs, host
//!   names and report rows, so they are created 0600, or 0640 when `state_dir_group` names a
//!   group that may read them. Set once at start-up, before any state file is written: the
//!   process's umask (which every file created after it follows, SQLite's `-wal` and `-shm` and
//!   the snapshot's temporary file too), and the mode [`create_file`] asks for explicitly.
//! - **Damaged files** ([`set_aside`]): a state file that cannot be parsed is renamed
//!   `NAME.damaged` and the start goes on without it (counted in the status), as the snapshot's
//!   `.skipped`: a restart loop is worse than what it held. `reports.json`, `sinks.json`,
//!   `ids.json` and the SQLite stores (`history::store::open_setting_aside`) go this way.
//! - **The lock** ([`lock_dir`]): the state directory itself and `{state_dir}/lock`, both locked
//!   with flock(2) for as long as the daemon runs, the file holding its pid, so that a second
//!   daemon on the same directory refuses to start naming the first instead of overwriting its
//!   snapshot; a lock file deleted meanwhile does not let it in.
//!
//! Runs at start-up on the main thread, and (durable writes) on the API's blocking pool.

use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

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
        let mut f = create_file(&tmp)?;
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

/// Mode of the state files: 0600, or 0640 once [`restrict`] was given a group. Process-wide
/// because the umask it goes with is.
static FILE_MODE: AtomicU32 = AtomicU32::new(0o600);

/// The mode state files are created with: 0600, or 0640 with `state_dir_group`.
pub fn file_mode() -> u32 {
    FILE_MODE.load(Relaxed)
}

/// Creates (or truncates) a state file for writing, with [`file_mode`] (the umask [`restrict`]
/// set gives the same; this says it where the file is made, and holds in the unit tests, which
/// set no umask).
pub fn create_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(file_mode())
        .open(path)
}

/// The files of a state directory that [`restrict`] gives the state files' mode when an earlier
/// version (or a hand) left them with another: the names, and what starts with them (`-wal`, `.damaged`,
/// `.skipped`, ...). Anything else in the directory is left as it is. A new state file adds
/// its name here.
pub const STATE_FILES: &[&str] = &[
    "reports.json",
    "sinks.json",
    "ids.json",
    "marks.json",
    "snapshot.bin",
    "pending.bin",
    "history.sqlite",
    "request_log.sqlite",
    LOCK_FILE,
];

/// Who may read the state directory, from `state_dir_group` (see [`group_id`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// The group that may read the state files (0640) and enter the directory; `None`: only
    /// pinbad's user (0600).
    pub group: Option<u32>,
}

/// Sets the mode of every file the process creates from now on: the umask 077 (files 0600,
/// directories 0700), or 027 with a group (0640, 0750), and the mode [`create_file`] asks for.
/// Every file follows it, sink files included. The umask is the process's: call it once, from
/// the start-up's thread, before any file is created.
pub fn set_file_mode(access: Access) {
    let (mask, mode) = match access.group {
        Some(_) => (0o027, 0o640),
        None => (0o077, 0o600),
    };
    FILE_MODE.store(mode, Relaxed);
    // SAFETY: umask(2) cannot fail; it only swaps the process's mask.
    unsafe { libc::umask(mask) };
}

/// Makes the state directory `dir` (locked, see [`lock_dir`]) as private as `access` says:
/// - with a group, `dir` is given to it, mode 0750, with the set-group-id bit (2750) unless the
///   group is the process's own (systemd's `Group=`, whose units often forbid that bit:
///   `RestrictSUIDSGID=`), so that every file created in it belongs to the group, whichever
///   module creates it;
/// - the [`STATE_FILES`] already there with another mode (an earlier version made them 0644)
///   are given [`file_mode`] (and the group), each logged.
pub fn restrict(dir: &Path, access: Access) -> std::io::Result<()> {
    let mode = file_mode();
    if let Some(gid) = access.group {
        chown_group(dir, gid)?;
        // SAFETY: getegid has no preconditions and cannot fail.
        let own = unsafe { libc::getegid() } == gid;
        let dir_mode = if own { 0o750 } else { 0o2750 };
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(dir_mode)).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "cannot set the mode of {} to {dir_mode:o}: {e}",
                    dir.display()
                ),
            )
        })?;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !STATE_FILES.iter().any(|f| name.starts_with(f)) {
            continue;
        }
        // Not followed: a link is not ours to change.
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if !meta.is_file() || meta.uid() != uid {
            continue;
        }
        let other_mode = meta.mode() & 0o7777 != mode;
        let regroup = access.group.is_some_and(|g| meta.gid() != g);
        if !other_mode && !regroup {
            continue;
        }
        let path = entry.path();
        let done = access
            .group
            .filter(|_| regroup)
            .map_or(Ok(()), |g| chown_group(&path, g))
            .and_then(|()| std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)));
        match done {
            Ok(()) => tracing::info!(
                path = %path.display(),
                was = format!("{:o}", meta.mode() & 0o7777),
                now = format!("{mode:o}"),
                "State file given the state files' mode"
            ),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "Cannot set a state file's mode")
            }
        }
    }
    Ok(())
}

/// Gives `path` to group `gid` (its owner unchanged).
fn chown_group(path: &Path, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(path, None, Some(gid)).map_err(|e| {
        std::io::Error::new(
            e.kind(),
            format!(
                "cannot give {} to group {gid}: {e} (pinbad's user must own it and be in the group)",
                path.display()
            ),
        )
    })
}

/// The group id of `state_dir_group`: a group name, or a number.
pub fn group_id(name: &str) -> std::io::Result<u32> {
    if let Ok(gid) = name.parse::<u32>() {
        return Ok(gid);
    }
    let c_name = std::ffi::CString::new(name)
        .map_err(|_| std::io::Error::other("a group name holds no NUL byte"))?;
    let mut buf = vec![0 as libc::c_char; 16 << 10];
    loop {
        // SAFETY: `group` and `found` are out-parameters getgrnam_r fills; `buf` is ours and its
        // length is passed; the strings it points into are not read after `buf` is dropped.
        let mut group: libc::group = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::group = std::ptr::null_mut();
        let rc = unsafe {
            libc::getgrnam_r(
                c_name.as_ptr(),
                &mut group,
                buf.as_mut_ptr(),
                buf.len(),
                &mut found,
            )
        };
        if rc == libc::ERANGE && buf.len() < (1 << 20) {
            buf.resize(buf.len() * 4, 0);
            continue;
        }
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc));
        }
        if found.is_null() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("no group named `{name}`"),
            ));
        }
        return Ok(group.gr_gid);
    }
}

/// A damaged state file moved aside at start-up ([`set_aside`]), as the status shows it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SetAside {
    /// The file's name in the state directory (`reports.json`).
    pub file: String,
    /// Where it went (`None`: the rename failed; logged).
    pub moved_to: Option<PathBuf>,
    /// Why it could not be used.
    pub reason: String,
}

/// What is done with a damaged state file: a start sets it aside; `check-config`, which changes
/// nothing, says that a start would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDamage {
    SetAside,
    Warn,
}

impl OnDamage {
    /// [`set_aside`] (the record for the status), or a warning saying it would be.
    pub fn handle(self, path: &Path, reason: &str, instead: &str) -> Option<SetAside> {
        match self {
            OnDamage::SetAside => Some(set_aside(path, reason, instead)),
            OnDamage::Warn => {
                tracing::warn!(
                    path = %path.display(),
                    reason,
                    "Damaged state file: a start sets it aside (as {}{DAMAGED_SUFFIX}) and {instead}",
                    path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                );
                None
            }
        }
    }
}

/// The suffix a damaged state file gets ([`set_aside`]).
pub const DAMAGED_SUFFIX: &str = ".damaged";

/// Moves the damaged state file `path` to `{path}.damaged` (replacing an older one) and logs it
/// as a warning with `reason` and what the start does `instead`, so that the start goes on.
pub fn set_aside(path: &Path, reason: &str, instead: &str) -> SetAside {
    let mut aside = path.as_os_str().to_owned();
    aside.push(DAMAGED_SUFFIX);
    let aside = PathBuf::from(aside);
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let moved_to = match std::fs::rename(path, &aside) {
        Ok(()) => {
            tracing::warn!(
                path = %path.display(),
                reason,
                moved_to = %aside.display(),
                "Damaged state file set aside; {instead}"
            );
            Some(aside)
        }
        Err(e) => {
            tracing::warn!(
                path = %path.display(),
                reason,
                error = %e,
                "Damaged state file could not be moved aside; {instead}"
            );
            None
        }
    };
    SetAside {
        file,
        moved_to,
        reason: reason.to_string(),
    }
}

/// The lock file's name in the state directory.
pub const LOCK_FILE: &str = "lock";

/// The state directory and `{state_dir}/lock`, each locked (flock(2), exclusive) while this
/// value lives, the file holding the pid of the daemon that holds them. A flock belongs to the
/// open file, not to the name: the locks go with the process (closed descriptors release them,
/// a `kill -9` too), and the file stays, a stale pid in it meaning nothing without the lock.
///
/// Why both: the directory's lock is what keeps a second daemon out, since the directory cannot
/// be deleted while it holds the state files, where the file can (`rm STATE/lock`: the first
/// daemon's lock was then on a name no longer there, and a second one made a new file and
/// locked it). The file's lock is the one earlier builds took alone, so that an earlier build
/// and this one never run on one directory either; and the file tells the holder's pid.
#[derive(Debug)]
pub struct DirLock {
    /// `None` where the directory cannot be locked (NFS): the file's lock alone then.
    _dir: Option<std::fs::File>,
    _file: std::fs::File,
}

/// Why [`lock_dir`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "state_dir {} is in use by another pinbad ({}, which holds {}); \
         stop it, or give this one a state_dir of its own",
        dir.display(),
        holder.map_or("pid unknown".to_string(), |p| format!("pid {p}")),
        dir.join(LOCK_FILE).display()
    )]
    Held { dir: PathBuf, holder: Option<u32> },
    /// Something other than a file has the lock file's name (a directory, a socket, a link).
    #[error(
        "{} is not a file but {what}: pinbad keeps its lock there; move it away",
        path.display()
    )]
    NotAFile { path: PathBuf, what: &'static str },
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Takes the directory `dir` (creating it) and `{dir}/lock` (creating the file), or says who
/// holds them. Never waits.
pub fn lock_dir(dir: &Path) -> Result<DirLock, LockError> {
    let path = dir.join(LOCK_FILE);
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| LockError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    // The directory first: a second daemon stops here even when the lock file is gone, and
    // creates no file beside the first's.
    let dir_file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)
        .map_err(io(dir))?;
    let held = |held: &std::fs::File| LockError::Held {
        dir: dir.to_path_buf(),
        holder: flock_holder(held).or_else(|| pid_in(&path)),
    };
    let dir_file = match dir_file.try_lock() {
        Ok(()) => Some(dir_file),
        Err(std::fs::TryLockError::WouldBlock) => return Err(held(&dir_file)),
        // NFS emulates flock with POSIX locks, and an exclusive one needs a descriptor open for
        // writing, which a directory's cannot be (EBADF): the file's lock alone, as before.
        Err(std::fs::TryLockError::Error(e)) => {
            tracing::warn!(
                dir = %dir.display(),
                error = %e,
                "Cannot lock the state directory itself, only its lock file: deleting that file \
                 while pinbad runs would let a second daemon in"
            );
            None
        }
    };
    if let Ok(meta) = std::fs::symlink_metadata(&path) {
        let kind = meta.file_type();
        if !kind.is_file() {
            let what = if kind.is_dir() {
                "a directory"
            } else if kind.is_symlink() {
                "a symbolic link"
            } else {
                "a special file"
            };
            return Err(LockError::NotAFile { path, what });
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(file_mode())
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&path)
        .map_err(io(&path))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Err(held(&file)),
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
    }
    let pid = format!("{}\n", std::process::id());
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(pid.as_bytes()))
        .map_err(io(&path))?;
    Ok(DirLock {
        _dir: dir_file,
        _file: file,
    })
}

/// The pid a lock file names, if it is there and names one.
fn pid_in(path: &Path) -> Option<u32> {
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .ok()?;
    text.trim().parse().ok()
}

/// The pid of the process holding a flock on `file`'s inode, as the kernel lists it in
/// `/proc/locks` (`1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`, the device's major and
/// minor in hex); `None` where that list is not there, names no holder of this inode, or the
/// holder is in another pid namespace (listed as 0 or -1). Needed where the lock file is gone.
fn flock_holder(file: &std::fs::File) -> Option<u32> {
    let meta = file.metadata().ok()?;
    let dev = meta.dev();
    // glibc's `dev_t` encoding (`gnu_dev_major`, `gnu_dev_minor`).
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    let want = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // A waiter's line (`1: -> FLOCK ...`) names no holder, nor does a POSIX lock's.
        if fields.get(1) != Some(&"FLOCK") {
            return None;
        }
        let at = fields.iter().position(|f| *f == want)?;
        let pid: u32 = fields.get(at.checked_sub(1)?)?.parse().ok()?;
        (pid != 0).then_some(pid)
    })
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

    /// A second lock on one directory is refused naming the holder's pid (flock locks belong to
    /// the open file, so two in one process exclude each other as two processes do); dropping
    /// the first frees it.
    #[test]
    fn a_held_lock_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_dir(&dir.path().join("state")).unwrap();
        let e = lock_dir(&dir.path().join("state")).unwrap_err();
        assert!(
            matches!(e, LockError::Held { holder: Some(p), .. } if p == std::process::id()),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains(&format!("pid {}", std::process::id())),
            "{e}"
        );
        drop(first);
        let _again = lock_dir(&dir.path().join("state")).unwrap();
        let mode = std::fs::metadata(dir.path().join("state/lock"))
            .unwrap()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }

    /// A directory, or a link, in the lock file's place is refused naming the lock and what is
    /// there (not taken for an unwritable state directory).
    #[test]
    fn a_lock_that_is_not_a_file_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir_all(state.join(LOCK_FILE)).unwrap();
        let e = lock_dir(&state).unwrap_err().to_string();
        assert!(e.contains("lock is not a file but a directory"), "{e}");
        std::fs::remove_dir(state.join(LOCK_FILE)).unwrap();
        std::os::unix::fs::symlink("/dev/null", state.join(LOCK_FILE)).unwrap();
        let e = lock_dir(&state).unwrap_err().to_string();
        assert!(e.contains("not a file but a symbolic link"), "{e}");
    }

    /// The lock file deleted while its lock is held (`rm STATE/lock`): a second lock on the
    /// directory is still refused, naming the holder (found in `/proc/locks`, the file being
    /// gone), and makes no new file; once the first is dropped, the directory is free again.
    #[test]
    fn a_deleted_lock_file_still_keeps_a_second_out() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let first = lock_dir(&state).unwrap();
        std::fs::remove_file(state.join(LOCK_FILE)).unwrap();
        let e = lock_dir(&state).unwrap_err();
        assert!(
            matches!(e, LockError::Held { holder: Some(p), .. } if p == std::process::id()),
            "{e}"
        );
        assert!(!state.join(LOCK_FILE).exists());
        drop(first);
        let _again = lock_dir(&state).unwrap();
        assert_eq!(
            std::fs::read_to_string(state.join(LOCK_FILE)).unwrap(),
            format!("{}\n", std::process::id())
        );
    }

    #[test]
    fn a_damaged_file_is_moved_aside_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reports.json");
        std::fs::write(&path, "{not json").unwrap();
        let aside = set_aside(&path, "expected a value", "starting without it");
        assert!(!path.exists());
        let moved = aside.moved_to.clone().unwrap();
        assert_eq!(moved, dir.path().join("reports.json.damaged"));
        assert_eq!(std::fs::read_to_string(moved).unwrap(), "{not json");
        assert_eq!(
            (aside.file.as_str(), aside.reason.as_str()),
            ("reports.json", "expected a value")
        );
        // Nothing to move: said, not fatal.
        assert!(set_aside(&path, "x", "y").moved_to.is_none());
    }

    #[test]
    fn groups_are_found_by_name_or_number() {
        assert_eq!(group_id("4242").unwrap(), 4242);
        assert_eq!(group_id("root").unwrap(), 0);
        let e = group_id("no-such-group-pinbad").unwrap_err();
        assert!(e.to_string().contains("no-such-group-pinbad"), "{e}");
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
