//! Sockets passed by the service manager (systemd socket activation, `sd_listen_fds(3)`).
//!
//! In: the environment systemd sets when a `.socket` unit hands its sockets to the service
//! (`LISTEN_PID`, `LISTEN_FDS`; the sockets are descriptors 3, 4, …). Out: the UDP sockets to
//! receive on and the TCP listener to serve HTTP on, used by `app::start` instead of binding the
//! configured addresses.
//!
//! Why: a socket the service manager holds outlives the process. While pinbad restarts, the
//! kernel keeps queueing datagrams in it (the receive buffer holds ~370 ms of 100k/s at the
//! default 32 MiB), where a socket pinbad binds itself closes with the old process, and every
//! datagram sent in the gap until the next process binds it is lost (~0.15 s of traffic, measured
//! in BENCHMARKS.md). HTTP clients likewise wait in the listener's backlog instead of being
//! refused. `contrib/systemd/pinbad.socket` is the unit.
//!
//! The descriptors are taken only when `LISTEN_PID` names this process (as `sd_listen_fds`
//! does), so a variable inherited from a parent is ignored. The variables are left set (unsetting
//! them is not thread-safe; pinbad starts no child that could take them for its own).

use std::net::{SocketAddr, TcpListener, UdpSocket};
use std::os::fd::{FromRawFd, RawFd};

use socket2::{Socket, Type};

/// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
const FIRST_FD: RawFd = 3;

/// Sockets the service manager passed, by kind.
#[derive(Debug, Default)]
pub struct Passed {
    /// Datagram sockets and their addresses, in the order passed: pinbad receives on these
    /// instead of `udp.listen`.
    pub udp: Vec<(UdpSocket, SocketAddr)>,
    /// The listening stream socket: pinbad serves HTTP on it instead of `http.listen`.
    pub http: Option<TcpListener>,
}

/// Why the passed sockets cannot be used. Each message names the variable or descriptor.
#[derive(Debug, thiserror::Error)]
pub enum ActivationError {
    #[error("LISTEN_FDS={0:?} is not a number of descriptors (systemd socket activation)")]
    Count(String),
    #[error("descriptor {fd} passed by the service manager (LISTEN_FDS) is {what}")]
    Unusable { fd: RawFd, what: String },
    #[error(
        "the service manager passed more than one stream socket (descriptors {0} and {1}); \
         pinbad serves HTTP on one: keep one ListenStream= in the .socket unit"
    )]
    TwoStreams(RawFd, RawFd),
}

/// The sockets passed to this process, if any (none when `LISTEN_PID` is unset or names another
/// process). Call once: the descriptors are owned by what it returns.
pub fn take() -> Result<Passed, ActivationError> {
    let pid = std::env::var("LISTEN_PID").ok();
    if pid.and_then(|p| p.trim().parse::<u32>().ok()) != Some(std::process::id()) {
        return Ok(Passed::default());
    }
    let count = std::env::var("LISTEN_FDS").unwrap_or_default();
    let n: RawFd = count
        .trim()
        .parse()
        .ok()
        .filter(|&n| (0..=1024).contains(&n))
        .ok_or(ActivationError::Count(count))?;
    let mut passed = Passed::default();
    let mut stream_fd = None;
    for fd in FIRST_FD..FIRST_FD + n {
        let (socket, addr) = adopt(fd)?;
        match socket.r#type() {
            Ok(Type::DGRAM) => {
                tracing::info!(
                    udp = %addr,
                    fd,
                    "UDP socket passed by the service manager: received on instead of udp.listen"
                );
                passed.udp.push((socket.into(), addr));
            }
            Ok(Type::STREAM) => {
                if let Some(first) = stream_fd {
                    return Err(ActivationError::TwoStreams(first, fd));
                }
                if !socket.is_listener().unwrap_or(false) {
                    return Err(unusable(fd, "a stream socket that is not listening"));
                }
                tracing::info!(
                    http = %addr,
                    fd,
                    "HTTP listener passed by the service manager: served on instead of http.listen"
                );
                stream_fd = Some(fd);
                passed.http = Some(socket.into());
            }
            _ => return Err(unusable(fd, "neither a datagram nor a stream socket")),
        }
    }
    Ok(passed)
}

fn unusable(fd: RawFd, what: &str) -> ActivationError {
    ActivationError::Unusable {
        fd,
        what: what.to_string(),
    }
}

/// Takes ownership of passed descriptor `fd` if it is an IP socket, closed on exec from now on.
fn adopt(fd: RawFd) -> Result<(Socket, SocketAddr), ActivationError> {
    // SAFETY: fstat(2) on a descriptor number only reads; an invalid one fails with EBADF.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(unusable(fd, "not open"));
    }
    if st.st_mode & libc::S_IFMT != libc::S_IFSOCK {
        return Err(unusable(fd, "not a socket"));
    }
    // SAFETY: the service manager passed `fd` to this process for it to own (sd_listen_fds(3)),
    // it is open and a socket (checked above), and nothing else in pinbad refers to it.
    let socket = unsafe { Socket::from_raw_fd(fd) };
    let addr = socket
        .local_addr()
        .ok()
        .and_then(|a| a.as_socket())
        .ok_or_else(|| unusable(fd, "not an IPv4 or IPv6 socket"))?;
    socket.set_cloexec(true).map_err(|e| {
        unusable(
            fd,
            &format!("a socket that cannot be set close-on-exec ({e})"),
        )
    })?;
    Ok((socket, addr))
}
