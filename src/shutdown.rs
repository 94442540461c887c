//! One shutdown signal for every thread: the receivers and the merger poll a flag between
//! batches (they never block longer than a few milliseconds), the HTTP server awaits a notify.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// Cloned into every thread. Whoever calls [`Shutdown::trigger`] (the signal handler, a test, or a
/// thread that failed) stops them all.
#[derive(Clone, Default)]
pub struct Shutdown {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    stopping: AtomicBool,
    /// When the first trigger came: the stop's deadlines count from it.
    at: std::sync::OnceLock<std::time::Instant>,
    /// The process's CPU time then (ms): what the stop used is logged, which tells a stop that
    /// waited for the CPU (a busy machine) from one that had work to do.
    cpu_at: std::sync::OnceLock<f64>,
    notify: Notify,
}

impl Shutdown {
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    pub fn trigger(&self) {
        self.inner.at.get_or_init(std::time::Instant::now);
        self.inner.cpu_at.get_or_init(process_cpu_ms);
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    pub fn is_triggered(&self) -> bool {
        self.inner.stopping.load(Ordering::SeqCst)
    }

    /// When [`Shutdown::trigger`] was first called, if it was.
    pub fn triggered_at(&self) -> Option<std::time::Instant> {
        self.inner.at.get().copied()
    }

    /// The process's CPU time (ms, all threads, user and system) since the first trigger.
    pub fn cpu_ms_since_trigger(&self) -> f64 {
        self.inner
            .cpu_at
            .get()
            .map_or(0.0, |at| process_cpu_ms() - at)
    }

    /// Resolves once `trigger` has been called (for the HTTP server's graceful shutdown).
    pub async fn wait(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_triggered() {
                return;
            }
            notified.await;
        }
    }
}

/// The process's CPU time so far (ms, all threads, user and system): `getrusage(2)`.
pub fn process_cpu_ms() -> f64 {
    // SAFETY: getrusage(2) fills the zeroed struct we own.
    let u = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1000.0 + t.tv_usec as f64 / 1000.0;
    ms(u.ru_utime) + ms(u.ru_stime)
}

/// How a background writer (history, the tick log) stops: held at its next checkpoint while the
/// snapshot is written ([`StopGate::hold`]), then asked to stop by a deadline
/// ([`StopGate::request`]): its long loops look at [`StopGate::checkpoint`] between pieces of
/// work and give up once the deadline has passed (what is left then is dropped and counted by
/// the writer).
#[derive(Debug, Default)]
pub struct StopGate {
    hold: AtomicBool,
    stop: AtomicBool,
    at: std::sync::OnceLock<std::time::Instant>,
}

/// The stop's deadline passed: the writer gives up what it holds (see [`StopGate`]).
#[derive(Debug)]
pub struct Late;

/// How often a held writer looks whether it may go on.
const HOLD_WAKE: std::time::Duration = std::time::Duration::from_millis(20);

impl StopGate {
    /// At the start of a stop: the writer waits at its next checkpoint until [`StopGate::request`].
    pub fn hold(&self) {
        self.hold.store(true, Ordering::Relaxed);
    }

    /// Asks the writer to stop, done by `deadline`.
    pub fn request(&self, deadline: std::time::Instant) {
        let _ = self.at.set(deadline);
        self.stop.store(true, Ordering::Release);
    }

    /// Whether the stop was requested.
    pub fn stopping(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// Waits while held; `Err` once the stop's deadline has passed.
    pub fn checkpoint(&self) -> Result<(), Late> {
        loop {
            if let Some(at) = self.at.get() {
                return if std::time::Instant::now() >= *at {
                    Err(Late)
                } else {
                    Ok(())
                };
            }
            if !self.hold.load(Ordering::Relaxed) {
                return Ok(());
            }
            std::thread::park_timeout(HOLD_WAKE);
        }
    }
}

/// When a store that would not open (a full disk, a directory in its place, a read-only
/// directory) is tried again: after [`Reopen::FIRST`], then twice as long each time up to
/// [`Reopen::MAX`]. So a store comes back by itself soon after the disk has room, and a disk that
/// stays full costs one failing open a minute, not a loop of them.
#[derive(Debug)]
pub struct Reopen {
    wait: std::time::Duration,
    at: std::time::Instant,
}

impl Default for Reopen {
    fn default() -> Reopen {
        Reopen {
            wait: Reopen::FIRST,
            at: std::time::Instant::now() + Reopen::FIRST,
        }
    }
}

impl Reopen {
    pub const FIRST: std::time::Duration = std::time::Duration::from_secs(1);
    pub const MAX: std::time::Duration = std::time::Duration::from_secs(60);

    /// Whether the next try is due.
    pub fn due(&self) -> bool {
        std::time::Instant::now() >= self.at
    }

    /// The try failed: the next one waits twice as long (up to [`Reopen::MAX`]).
    pub fn failed(&mut self) {
        self.wait = (self.wait * 2).min(Reopen::MAX);
        self.at = std::time::Instant::now() + self.wait;
    }

    /// On a writer's thread whose store would not open at start: calls `open` at each try until
    /// it gives the store, waiting between tries on the thread's park (a stop unparks it).
    /// `None` once `stop` is requested: the writer ends without its store.
    pub fn until_open<T>(stop: &StopGate, mut open: impl FnMut() -> Option<T>) -> Option<T> {
        let mut reopen = Reopen::default();
        loop {
            while !reopen.due() {
                if stop.stopping() {
                    return None;
                }
                std::thread::park_timeout(
                    reopen
                        .at
                        .saturating_duration_since(std::time::Instant::now()),
                );
            }
            if stop.stopping() {
                return None;
            }
            if let Some(store) = open() {
                return Some(store);
            }
            reopen.failed();
        }
    }
}

/// Waits for `thread` to end, at most until `deadline`: `true` once it ended (joined), `false`
/// when the deadline came first. The stop's last steps wait so, each on its own thread, so that
/// one that hangs (a disk, a server that never answers) cannot hold the process past its bound;
/// a thread not waited for ends with the process.
pub fn join_until(thread: std::thread::JoinHandle<()>, deadline: std::time::Instant) -> bool {
    while !thread.is_finished() {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = thread.join();
    true
}

/// At a stop: the merge threads ("pinbad-merger", "pinbad-merge-N"), which run `merge.nice`
/// steps below the rest so that the receivers win the CPU over merging, get the calling thread's
/// priority back. Their last round, and the hand-over of what they hold, are on the stop's path
/// (the snapshot waits for them): on a busy machine, at nice 5 beside programs at 0, a round
/// that takes a core 0.3 s took them seconds (a 19.7 s stop, 6 s of it before the snapshot, in
/// a test on two cores with two busy loops). Raising a priority needs `CAP_SYS_NICE` or a
/// `RLIMIT_NICE` that allows it (systemd: `LimitNICE=`); without, they keep theirs. Returns how
/// many were raised.
pub fn raise_merge_threads() -> usize {
    // SAFETY: getpriority(2) on the calling thread; errno is reset first, as -1 is a valid value.
    let own = unsafe {
        *libc::__errno_location() = 0;
        let p = libc::getpriority(libc::PRIO_PROCESS, 0);
        if *libc::__errno_location() != 0 {
            return 0;
        }
        p
    };
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    let mut raised = 0;
    for task in tasks.flatten() {
        let Some(tid) = task
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<libc::id_t>().ok())
        else {
            continue;
        };
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if !comm.starts_with("pinbad-merge") {
            continue;
        }
        // SAFETY: setpriority(2) on a thread id of this process; no pointers.
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, own) } == 0 {
            raised += 1;
        }
    }
    raised
}

/// The signals that stop the daemon: SIGTERM (service managers), SIGINT (Ctrl-C), and SIGHUP
/// (a closed terminal or session, or `kill -HUP`; pinbad has no reload) unless it was started
/// with SIGHUP ignored (`nohup`), which is kept.
pub fn stop_signals() -> Vec<libc::c_int> {
    let mut signals = vec![libc::SIGTERM, libc::SIGINT];
    if !is_ignored(libc::SIGHUP) {
        signals.push(libc::SIGHUP);
    }
    signals
}

fn is_ignored(signal: libc::c_int) -> bool {
    // SAFETY: sigaction(2) with a null new action only reads the current one into `old`, a
    // zeroed struct we own.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Holds (blocks) the stop signals in the calling thread and in every thread it starts from now
/// on, which inherit its mask: called by `main` before start-up, so that a SIGTERM during it
/// (a restore takes seconds with a full pool) waits for the handlers instead of taking the
/// default action, which ended the process at once and lost what start-up had already consumed
/// (the snapshot, the requests saved by the last stop). [`release_stop_signals`] lets them in,
/// on the one thread that waits for them.
pub fn hold_stop_signals() {
    set_mask(libc::SIG_BLOCK);
}

/// Lets the stop signals in to the calling thread, once their handlers are installed: those
/// that came while they were held are delivered now.
pub fn release_stop_signals() {
    set_mask(libc::SIG_UNBLOCK);
}

/// Gives the stop signals back their default action (ending the process): after the first one,
/// so that a second one ends a stop that takes too long at once (without the snapshot), as an
/// operator pressing Ctrl-C twice means.
pub fn stop_at_once_on_the_next_signal() {
    for s in stop_signals() {
        // SAFETY: signal(2) with a valid signal number and the default disposition.
        unsafe {
            libc::signal(s, libc::SIG_DFL);
        }
    }
}

fn set_mask(how: libc::c_int) {
    // SAFETY: the set is initialised by sigemptyset before use, and pthread_sigmask changes only
    // the calling thread's mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in stop_signals() {
            libc::sigaddset(&mut set, s);
        }
        libc::pthread_sigmask(how, &set, std::ptr::null_mut());
    }
}
