//! UDP receive: sockets in, decoded batches out.
//!
//! Each socket gets its own OS thread ("pinbad-recv-N") that loops on `recvmmsg` with
//! `MSG_DONTWAIT`, decodes every datagram straight into its current [`Batch`], and pushes the
//! batch into the temp ring when the socket runs dry (EAGAIN) or before the batch would grow past
//! its bound, interning the batch's strings first (see `intern`: the merger then only copies its
//! records into the pool). On EAGAIN it sleeps briefly instead of blocking per packet (measured on this machine
//! kind: ~2.6× less receive CPU than a blocking `recv` per datagram), and if the socket is still
//! dry after that, it blocks in poll(2) until data comes (an idle daemon costs nothing).
//!
//! Never blocks on anything but the short sleep, that poll and the dictionary's lock (shared, held
//! for one batch's interning; its write lock only for a new string, which waits for the other
//! receivers' current batch and, rarely, for a sweep: the socket's buffer holds what comes
//! meanwhile); it only tries the ring's free list ([`Ring::take_empty`]). Per-packet problems
//! (source not allowed, truncated, rejected by the decoder) are counted, never propagated.

use std::io;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use socket2::{Domain, Protocol, Socket, Type};

use crate::counters::{Counters, DecodeStats, Reject};
use crate::decode::{DecodePolicy, Decoder};
use crate::dictionary::Dictionary;
use crate::intern::Interned;
use crate::record::Batch;
use crate::ring::Ring;
use crate::shutdown::Shutdown;

/// Receive buffer per datagram: the largest UDP payload (65,527 B over IPv6) fits; a datagram that
/// fills it is reported by the kernel with MSG_TRUNC and counted as `truncated`.
pub const DATAGRAM_BUFFER_BYTES: usize = 65_536;
/// The pause when the socket runs dry, at least and at most ([`idle_sleep`]): long enough that
/// the next recvmmsg finds many datagrams under load, short enough that the socket's buffer
/// cannot fill meanwhile at any rate one host can send.
const IDLE_SLEEP_MIN: Duration = Duration::from_micros(500);
const IDLE_SLEEP_MAX: Duration = Duration::from_millis(2);
/// What a datagram takes of a socket's buffer at most, as the kernel counts it (its `truesize`:
/// a ~600 B PHP datagram's buffer, its skb and bookkeeping), and the highest rate one loopback
/// sender reaches (see BENCHMARKS.md), rounded up: what a pause must leave room for.
const DATAGRAM_TRUESIZE_BYTES: u64 = 2048;
const MAX_RATE_PER_SEC: u64 = 1_000_000;

/// The receiver's pause when its socket runs dry, for a socket buffer of `buffer_bytes` (what
/// SO_RCVBUF reports: the kernel's own, doubled, figure): the time the buffer takes to fill at
/// [`MAX_RATE_PER_SEC`], within [`IDLE_SLEEP_MIN`]..=[`IDLE_SLEEP_MAX`]. Each pause is a timer and
/// two context switches, so the longest pause the buffer allows costs the least; a small buffer
/// keeps the short pause, so that it does not fill during one.
fn idle_sleep(buffer_bytes: usize) -> Duration {
    let fill_us = (buffer_bytes as u64).saturating_mul(1_000_000)
        / (DATAGRAM_TRUESIZE_BYTES * MAX_RATE_PER_SEC);
    Duration::from_micros(fill_us).clamp(IDLE_SLEEP_MIN, IDLE_SLEEP_MAX)
}
/// [`idle_sleep`] for the buffer `socket` has (what SO_RCVBUF reports; the shortest pause if it
/// cannot be read): the receivers' pause, and the null server's ([`discard`]).
fn idle_sleep_of(socket: &UdpSocket) -> Duration {
    idle_sleep(
        socket2::SockRef::from(socket)
            .recv_buffer_size()
            .unwrap_or(0),
    )
}
/// When it is still dry after that pause, the receiver blocks in poll(2) until a datagram comes,
/// at most this long (which only bounds how late a stopping receiver notices shutdown). So an
/// idle daemon wakes ~10 times a second instead of 2,000 (500 µs sleeps alone: ~5 % of a core).
const IDLE_WAIT: Duration = Duration::from_millis(100);
/// A batch this full (requests, or bytes of content) goes to the merger before another datagram
/// is decoded into it. The check runs before each datagram, so a batch holds at most this plus one
/// datagram's decoding (its vectors' capacity at most twice that); the ring bounds the sum of the
/// capacities of the batches it queues (`temp_pool_memory`).
const BATCH_REQUESTS: usize = 2048;
pub const BATCH_MEMORY: usize = 1 << 20;

/// The bytes a raw batch ([`Batch::raw`]) holds at most: it is handed over past `BATCH_MEMORY`.
const RAW_BATCH_BYTES: usize = BATCH_MEMORY + DATAGRAM_BUFFER_BYTES;

/// Makes the empty `batch` a raw one, its bytes sized once for [`RAW_BATCH_BYTES`] (grown by
/// doubling, a raw batch would hold up to twice its datagrams' bytes).
pub(crate) fn start_raw(batch: &mut Batch) {
    batch.raw = true;
    batch.bytes.reserve_exact(RAW_BATCH_BYTES);
}

/// Whether `batch` is to be handed over before another datagram is decoded into it.
pub(crate) fn is_full(batch: &Batch) -> bool {
    batch.len() >= BATCH_REQUESTS || batch.used_bytes() >= BATCH_MEMORY
}

/// A bound socket and what the kernel actually gave us.
pub struct Bound {
    pub socket: UdpSocket,
    pub local_addr: SocketAddr,
    /// The receive buffer the kernel granted, comparable with `udp.recv_buffer` and
    /// `net.core.rmem_max` (Linux reports twice this through SO_RCVBUF, for its bookkeeping).
    pub recv_buffer_bytes: usize,
}

/// Binds one UDP socket with a receive buffer of `recv_buffer_bytes` (best effort: past
/// `net.core.rmem_max` it tries SO_RCVBUFFORCE, and a clamp it cannot avoid is logged, not
/// fatal). IPv6 sockets are v6-only so that `0.0.0.0:P` and `[::]:P` can both be bound, as the
/// defaults do.
///
/// No SO_REUSEPORT: the bind is exclusive, so a second pinbad on the same address fails at start
/// ("address in use") instead of silently taking part of the datagrams.
pub fn bind(addr: SocketAddr, recv_buffer_bytes: usize) -> io::Result<Bound> {
    bind_with(addr, recv_buffer_bytes, false)
}

/// Binds `readers` sockets on `addr`, one per receiver thread, so that no two receivers share a
/// socket: readers sharing one contend for its lock in the kernel, and each reader added made
/// receiving dearer (1.97 µs per packet with one, 2.73 with four, 5.0 with eight on a 16-core
/// host), where sockets of their own let the kernel spread datagrams over them, each read by
/// its own thread: evenly, at random ([`spread_evenly`]), or where that program cannot be
/// attached, by flow (`SO_REUSEPORT`'s hash of the source and destination).
///
/// One reader gets one exclusive socket ([`bind`]). Several first check the address free with
/// an exclusive bind (closed at once), then bind the group with `SO_REUSEPORT`: a second pinbad
/// on the address fails at that check as it would at an exclusive bind, since its exclusive bind
/// cannot join the first's group.
///
/// Port 0: the port the kernel picks for a `SO_REUSEPORT` socket may be one that another
/// process's group (of the same user) holds, whose datagrams the new group would then share (two
/// daemons of a test suite did). An exclusive bind's pick is a port no socket holds: the port is
/// picked so, that socket closed, and the group bound on it as on a given port (its check fails if
/// another process took the port meanwhile: then another is picked).
pub fn bind_group(
    addr: SocketAddr,
    readers: usize,
    recv_buffer_bytes: usize,
) -> io::Result<Vec<Bound>> {
    if readers <= 1 {
        return Ok(vec![bind(addr, recv_buffer_bytes)?]);
    }
    if addr.port() != 0 {
        return bind_group_on(addr, readers, recv_buffer_bytes);
    }
    let mut tries = 0;
    loop {
        let probe = udp_socket(addr)?;
        probe.bind(&addr.into())?;
        let port = probe
            .local_addr()?
            .as_socket()
            .map_or(0, |a: SocketAddr| a.port());
        drop(probe);
        match bind_group_on(SocketAddr::new(addr.ip(), port), readers, recv_buffer_bytes) {
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && tries < 8 => tries += 1,
            done => return done,
        }
    }
}

/// [`bind_group`] on a given port: the exclusive check, then the group.
fn bind_group_on(
    addr: SocketAddr,
    readers: usize,
    recv_buffer_bytes: usize,
) -> io::Result<Vec<Bound>> {
    udp_socket(addr)?.bind(&addr.into())?;
    let first = bind_with(addr, recv_buffer_bytes, true)?;
    let mut group = vec![first];
    for _ in 1..readers {
        group.push(bind_with(addr, recv_buffer_bytes, true)?);
    }
    if let Err(e) = spread_evenly(&group[0].socket, group.len()) {
        tracing::warn!(error = %e, %addr, "Cannot spread datagrams evenly over the readers; the kernel spreads them by flow");
    }
    Ok(group)
}

/// `SO_ATTACH_REUSEPORT_CBPF`: asm-generic's value (not in the `libc` crate for Linux targets),
/// on the architectures that use it; elsewhere the kernel spreads by flow.
const SO_ATTACH_REUSEPORT_CBPF: Option<libc::c_int> = if cfg!(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "arm",
    target_arch = "riscv64"
)) {
    Some(51)
} else {
    None
};

/// Has the kernel hand each datagram to a reader of `socket`'s `SO_REUSEPORT` group at random
/// (a classic BPF program returning `random % readers`, the index of a socket in the group, in
/// the order they were bound), instead of by the hash of its flow. By flow, a handful of senders
/// split unevenly (8 flows over 2 readers: about 5 to 3 in every run) and one sender (an nginx
/// worker, one busy PHP host behind NAT) lands on one reader whatever their number; the busiest
/// reader is the ceiling. Datagrams are independent requests, so nothing needs a flow kept on one
/// reader.
fn spread_evenly(socket: &UdpSocket, readers: usize) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let Some(option) = SO_ATTACH_REUSEPORT_CBPF else {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "not on this architecture",
        ));
    };
    let insn = |code: u32, k: u32| libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let mut program = [
        // A = a random u32 (an ancillary load: not from the packet).
        insn(
            libc::BPF_LD | libc::BPF_W | libc::BPF_ABS,
            (libc::SKF_AD_OFF + libc::SKF_AD_RANDOM) as u32,
        ),
        insn(libc::BPF_ALU | libc::BPF_MOD | libc::BPF_K, readers as u32),
        insn(libc::BPF_RET | libc::BPF_A, 0),
    ];
    let fprog = libc::sock_fprog {
        len: program.len() as libc::c_ushort,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: `fprog` points at `program`, both alive for the call; the kernel copies them.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            option,
            (&fprog as *const libc::sock_fprog).cast(),
            std::mem::size_of::<libc::sock_fprog>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// [`bind`], in a `SO_REUSEPORT` group when `reuse_port`.
fn bind_with(addr: SocketAddr, recv_buffer_bytes: usize, reuse_port: bool) -> io::Result<Bound> {
    let socket = udp_socket(addr)?;
    if reuse_port {
        socket.set_reuse_port(true)?;
    }
    if socket.set_recv_buffer_size(recv_buffer_bytes).is_err() {
        tracing::warn!(asked = recv_buffer_bytes, "Cannot set SO_RCVBUF");
    }
    socket.bind(&addr.into())?;
    finish(socket, recv_buffer_bytes)
}

/// A UDP socket for `addr`'s family, v6-only for IPv6 (so that `0.0.0.0:P` and `[::]:P` are two
/// addresses, as the defaults bind them).
fn udp_socket(addr: SocketAddr) -> io::Result<Socket> {
    let socket = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(Protocol::UDP))?;
    if addr.is_ipv6() {
        socket.set_only_v6(true)?;
    }
    Ok(socket)
}

/// A socket bound by someone else (the service manager: [`crate::activation`]), made ready as
/// [`bind`] makes its own: non-blocking, and its receive buffer raised to `recv_buffer_bytes`
/// if it is smaller (never lowered: the `.socket` unit's `ReceiveBuffer=` may have given more).
pub fn adopt(socket: UdpSocket, recv_buffer_bytes: usize) -> io::Result<Bound> {
    let socket = Socket::from(socket);
    let current = socket.recv_buffer_size()? / 2;
    // As `bind` does, SO_RCVBUF first and `finish` forces it if clamped; but SO_RCVBUF is
    // clamped to `net.core.rmem_max`, which may be below what the unit forced: set only when
    // that clamp cannot lower the buffer.
    if current < recv_buffer_bytes && rmem_max().is_some_and(|max| max > current) {
        let _ = socket.set_recv_buffer_size(recv_buffer_bytes);
    }
    finish(socket, recv_buffer_bytes)
}

/// `net.core.rmem_max`: the most SO_RCVBUF gives without CAP_NET_ADMIN.
fn rmem_max() -> Option<usize> {
    std::fs::read_to_string("/proc/sys/net/core/rmem_max")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The part of [`bind`] and [`adopt`] after the bind: the buffer forced if the kernel clamped
/// it, non-blocking mode, the address and buffer it got.
fn finish(socket: Socket, recv_buffer_bytes: usize) -> io::Result<Bound> {
    // Linux doubles the value it grants (bookkeeping overhead); less than asked means clamped.
    let mut granted = socket.recv_buffer_size().unwrap_or(0) / 2;
    if granted < recv_buffer_bytes && force_recv_buffer(&socket, recv_buffer_bytes) {
        granted = socket.recv_buffer_size().unwrap_or(0) / 2;
    }
    // Its own ceiling, INT_MAX / 2, is one byte short of the largest `udp.recv_buffer` (1 GiB):
    // that is everything there is, not a clamp to warn about.
    if granted < recv_buffer_bytes.min(KERNEL_MAX_RECV_BUFFER) {
        tracing::warn!(
            asked = recv_buffer_bytes,
            granted,
            "Kernel clamped the UDP receive buffer: set net.core.rmem_max to at least `asked` \
             (contrib/sysctl/90-pinbad.conf), or give pinbad CAP_NET_ADMIN"
        );
    }
    socket.set_nonblocking(true)?;
    let socket: UdpSocket = socket.into();
    let local_addr = socket.local_addr()?;
    Ok(Bound {
        socket,
        local_addr,
        recv_buffer_bytes: granted,
    })
}

/// The most receive buffer Linux grants a socket: it caps the size asked at `INT_MAX / 2`
/// before doubling it.
const KERNEL_MAX_RECV_BUFFER: usize = i32::MAX as usize / 2;

/// SO_RCVBUFFORCE: the same as SO_RCVBUF but past `net.core.rmem_max`, allowed with CAP_NET_ADMIN
/// (root, or a daemon given the capability). Returns whether the kernel accepted it.
fn force_recv_buffer(socket: &Socket, bytes: usize) -> bool {
    let value = bytes.min(i32::MAX as usize) as libc::c_int;
    // SAFETY: setsockopt on a live socket with a pointer to a c_int and its exact size.
    let rc = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVBUFFORCE,
            (&value as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    rc == 0
}

/// Everything one receiver thread needs.
pub struct Receiver {
    pub socket: UdpSocket,
    pub ring: Arc<Ring>,
    pub counters: Arc<Counters>,
    pub shutdown: Shutdown,
    pub policy: DecodePolicy,
    /// `udp.allow`; empty = everyone.
    pub allow: Vec<ipnet::IpNet>,
    /// Datagrams per `recvmmsg` call.
    pub batch_size: usize,
    /// The shared dictionary, which this receiver interns its batches into.
    pub dictionary: Arc<parking_lot::RwLock<Dictionary>>,
    /// Its interner, with the `[[rewrite]]` rules.
    pub interned: Interned,
}

impl Receiver {
    /// The receive loop; returns when shutdown is triggered, after handing over its last batch.
    pub fn run(mut self) {
        let mut decoder = Decoder::new(self.policy);
        let mut stats = DecodeStats::default();
        let mut mmsg = MultiRecv::new(self.batch_size.max(1));
        let mut batch = self.ring.take_empty();
        let fd = self.socket.as_raw_fd();
        let mut dry = false;
        let pause = idle_sleep_of(&self.socket);
        // Batches this thread allocated are freed by the merger: once idle, give the memory back
        // (see `memory`).
        let mut reclaimer = crate::memory::Reclaimer::default();
        let counters = Arc::clone(&self.counters);
        let instruments = &counters.instruments;
        while !self.shutdown.is_triggered() {
            let received = instruments.receive.start();
            match mmsg.recv(fd) {
                Ok(0) => {}
                Ok(n) => {
                    instruments.receive.record(received, n as u64);
                    let decoding = instruments.decode.start();
                    dry = false;
                    stats.packets_received += n as u64;
                    // No merger runs: queue the datagrams as received (see `Ring::is_raw`).
                    let raw = self.ring.is_raw();
                    for i in 0..n {
                        let (data, source, truncated) = mmsg.message(i);
                        stats.bytes_received += data.len() as u64;
                        if !self.allowed(source) {
                            stats.packets += 1;
                            stats.reject(Reject::SourceNotAllowed);
                        } else if truncated {
                            stats.packets += 1;
                            stats.reject(Reject::Truncated);
                        } else {
                            if is_full(&batch) || (raw != batch.raw && !batch.is_empty()) {
                                batch = self.hand_over(batch, &mut stats);
                            }
                            if raw {
                                if batch.is_empty() {
                                    start_raw(&mut batch);
                                }
                                batch.push_raw(data);
                            } else {
                                decoder.decode(data, &mut batch, &mut stats);
                            }
                        }
                    }
                    if !raw {
                        // Raw datagrams are decoded (and timed) by the merger.
                        instruments.decode.record(decoding, n as u64);
                    }
                    continue;
                }
                Err(e)
                    if e.kind() == io::ErrorKind::WouldBlock
                        || e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::warn!(error = %e, "recvmmsg failed");
                }
            }
            // Dry: hand the batch over, unless it is raw and no merger runs yet (or any more):
            // then it is kept until full, since a raw batch takes a full one's memory (handed
            // over at every dry spell, 64-datagram raw batches filled the ring with 1/16 of
            // what it can hold).
            let keep_raw = batch.raw && self.ring.is_raw();
            if (!batch.is_empty() || stats.packets_received > 0) && !keep_raw {
                batch = self.hand_over(batch, &mut stats);
                reclaimer.freed();
            }
            if dry {
                if !wait_readable(fd, IDLE_WAIT) {
                    // A whole wait without data: the merger has long freed what we handed over.
                    reclaimer.maybe_collect();
                }
            } else {
                std::thread::sleep(pause);
                dry = true;
            }
        }
        self.hand_over(batch, &mut stats);
    }

    /// Pushes a non-empty batch to the merger (counting a drop if the ring is full), folds the
    /// stats into the shared counters, and returns a batch to fill next.
    ///
    /// The stats of the datagrams in a batch are folded in only here, together with the batch's
    /// fate (in the ring, or counted in `temp_pool_dropped`), so that a client never sees a packet
    /// counted as received whose requests are neither merged, waiting, nor dropped. A drop is
    /// counted before the stats are folded, so `requests_accepted` never runs ahead of it.
    fn hand_over(&mut self, mut batch: Box<Batch>, stats: &mut DecodeStats) -> Box<Batch> {
        if !batch.raw && !batch.is_empty() {
            let instrument = &self.counters.instruments.intern;
            let timing = instrument.start();
            self.interned.intern_batch(&mut batch, &self.dictionary);
            instrument.record(timing, batch.interned.len() as u64);
        }
        if batch.raw {
            // Counted as accepted, one request per datagram (a PHP datagram is one), until the
            // merger decodes them and sets the count right (`Merger::decode_raw`).
            stats.requests_accepted += batch.len() as u64;
        }
        let next = if batch.is_empty() {
            batch
        } else {
            match self.ring.push(batch) {
                Ok(()) => self.ring.take_empty(),
                Err(mut batch) => {
                    self.counters
                        .temp_pool_dropped
                        .fetch_add(batch.len() as u64, Relaxed);
                    batch.clear();
                    batch
                }
            }
        };
        self.counters.absorb(stats);
        next
    }

    fn allowed(&self, source: Option<IpAddr>) -> bool {
        if self.allow.is_empty() {
            return true;
        }
        let Some(ip) = source else { return false };
        let ip = match ip {
            IpAddr::V6(v6) => v6
                .to_ipv4_mapped()
                .map(IpAddr::V4)
                .unwrap_or(IpAddr::V6(v6)),
            v4 => v4,
        };
        self.allow.iter().any(|net| net.contains(&ip))
    }
}

/// What [`discard`] has received so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Discarded {
    pub datagrams: u64,
    pub bytes: u64,
    /// `recvmmsg` calls that returned datagrams.
    pub calls: u64,
}

/// The null server: receives from `socket` as [`Receiver::run`] does (`recvmmsg` batches of
/// `batch_size` with `MSG_DONTWAIT`, the same pause when the socket runs dry, then poll(2)) and
/// drops every datagram unread, until `stop`, asked after every call, says so.
///
/// Why: what this costs is the kernel's share of any UDP server's cost on the machine, the part
/// of pinbad's CPU per packet that no change to pinbad can remove. `pinbad-blast --receive`
/// measures it, so that pinbad's figure can be set against it in the same run
/// (`benches/e2e.sh NULL=on`, BENCHMARKS.md). Same loop, so that the two figures differ only by
/// what pinbad does with a datagram; the socket must be non-blocking ([`bind`] makes it so).
pub fn discard(
    socket: &UdpSocket,
    batch_size: usize,
    mut stop: impl FnMut(&Discarded) -> bool,
) -> Discarded {
    let fd = socket.as_raw_fd();
    let mut mmsg = MultiRecv::new(batch_size.max(1));
    let pause = idle_sleep_of(socket);
    let mut seen = Discarded::default();
    let mut dry = false;
    while !stop(&seen) {
        match mmsg.recv(fd) {
            Ok(n) if n > 0 => {
                seen.calls += 1;
                seen.datagrams += n as u64;
                seen.bytes += (0..n).map(|i| mmsg.message(i).0.len() as u64).sum::<u64>();
                dry = false;
                continue;
            }
            _ => {}
        }
        if dry {
            wait_readable(fd, IDLE_WAIT);
        } else {
            std::thread::sleep(pause);
            dry = true;
        }
    }
    seen
}

/// Blocks until `fd` has data or `timeout` passes (poll(2)); returns whether data came (errors
/// just end the wait).
fn wait_readable(fd: i32, timeout: Duration) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, count 1.
    unsafe { libc::poll(&mut pfd, 1, timeout.as_millis() as libc::c_int) > 0 }
}

/// Reused buffers for one `recvmmsg` call of up to `n` datagrams. Allocated once per thread.
struct MultiRecv {
    buffers: Vec<u8>,
    iovecs: Vec<libc::iovec>,
    addrs: Vec<libc::sockaddr_storage>,
    headers: Vec<libc::mmsghdr>,
}

// SAFETY: the raw pointers inside point into the struct's own heap buffers, which move with it.
unsafe impl Send for MultiRecv {}

impl MultiRecv {
    fn new(n: usize) -> MultiRecv {
        let mut m = MultiRecv {
            buffers: vec![0u8; n * DATAGRAM_BUFFER_BYTES],
            iovecs: Vec::with_capacity(n),
            // SAFETY: sockaddr_storage and mmsghdr are plain C structs for which all-zero is valid.
            addrs: vec![unsafe { std::mem::zeroed() }; n],
            headers: vec![unsafe { std::mem::zeroed() }; n],
        };
        for i in 0..n {
            m.iovecs.push(libc::iovec {
                iov_base: m.buffers[i * DATAGRAM_BUFFER_BYTES..].as_mut_ptr().cast(),
                iov_len: DATAGRAM_BUFFER_BYTES,
            });
        }
        m
    }

    /// Receives up to `n` datagrams without blocking. `Err(WouldBlock)` when there is none.
    fn recv(&mut self, fd: i32) -> io::Result<usize> {
        let n = self.headers.len();
        for i in 0..n {
            let h = &mut self.headers[i].msg_hdr;
            h.msg_name = (&mut self.addrs[i] as *mut libc::sockaddr_storage).cast();
            h.msg_namelen = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
            h.msg_iov = &mut self.iovecs[i];
            h.msg_iovlen = 1;
            h.msg_control = std::ptr::null_mut();
            h.msg_controllen = 0;
            h.msg_flags = 0;
            self.headers[i].msg_len = 0;
        }
        // SAFETY: every header points at a live iovec over our own buffer of the stated length and
        // at a sockaddr_storage with its true size; `n` is the length of `headers`.
        let got = unsafe {
            libc::recvmmsg(
                fd,
                self.headers.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                std::ptr::null_mut(),
            )
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(got as usize)
    }

    /// Datagram `i` of the last `recv`: its bytes, source address, and whether the kernel cut it.
    fn message(&self, i: usize) -> (&[u8], Option<IpAddr>, bool) {
        let h = &self.headers[i];
        let len = (h.msg_len as usize).min(DATAGRAM_BUFFER_BYTES);
        let data = &self.buffers[i * DATAGRAM_BUFFER_BYTES..i * DATAGRAM_BUFFER_BYTES + len];
        let truncated = h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0;
        (data, sockaddr_ip(&self.addrs[i]), truncated)
    }
}

fn sockaddr_ip(storage: &libc::sockaddr_storage) -> Option<IpAddr> {
    match storage.ss_family as i32 {
        libc::AF_INET => {
            // SAFETY: the family says this storage holds a sockaddr_in, which it is large enough for.
            let sin =
                unsafe { &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
            Some(IpAddr::from(
                u32::from_be(sin.sin_addr.s_addr).to_be_bytes(),
            ))
        }
        libc::AF_INET6 => {
            // SAFETY: as above, for sockaddr_in6.
            let sin6 = unsafe {
                &*(storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>()
            };
            Some(IpAddr::from(sin6.sin6_addr.s6_addr))
        }
        _ => None,
    }
}

/// Packets the kernel dropped on the given local UDP ports (the `drops` column of
/// `/proc/net/udp` and `/proc/net/udp6`), e.g. because the receive buffer was full.
pub fn kernel_drops(ports: &[u16]) -> u64 {
    let mut total = 0;
    for file in ["/proc/net/udp", "/proc/net/udp6"] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(drops)) = (cols.get(1), cols.last()) else {
                continue;
            };
            let port = local
                .rsplit(':')
                .next()
                .and_then(|p| u16::from_str_radix(p, 16).ok());
            if port.is_some_and(|p| ports.contains(&p)) {
                total += drops.parse::<u64>().unwrap_or(0);
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pause follows the buffer: the shortest for a small one (which a longer pause could let
    /// fill), the longest for the default 32 MiB (64 MiB as SO_RCVBUF reports it), in proportion
    /// between; never past what the buffer holds at the highest rate but at the shortest.
    #[test]
    fn the_idle_pause_fits_the_buffer() {
        assert_eq!(idle_sleep(0), IDLE_SLEEP_MIN);
        assert_eq!(idle_sleep(128 << 10), IDLE_SLEEP_MIN);
        assert_eq!(idle_sleep(64 << 20), IDLE_SLEEP_MAX);
        assert_eq!(idle_sleep(usize::MAX / 4), IDLE_SLEEP_MAX);
        let mid = idle_sleep(2 << 20);
        assert_eq!(mid, Duration::from_micros(1024));
        for bytes in [1 << 20, 2 << 20, 3 << 20] {
            let fills = Duration::from_micros(bytes as u64 * 1_000_000 / (2048 * 1_000_000));
            assert!(idle_sleep(bytes) <= fills.max(IDLE_SLEEP_MIN));
        }
    }

    /// The null server takes every datagram sent, in batches (never more calls than datagrams),
    /// counts their bytes, and stops when told, also while nothing comes.
    #[test]
    fn discard_counts_what_it_drops_and_stops_when_told() {
        let rx = bind("127.0.0.1:0".parse().unwrap(), 1 << 20).unwrap();
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let sizes: Vec<usize> = (0..100).map(|i| 20 + i % 7 * 30).collect();
        for &n in &sizes {
            tx.send_to(&vec![0x0a; n], rx.local_addr).unwrap();
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let seen = discard(&rx.socket, 8, |s| {
            s.datagrams >= 100 || std::time::Instant::now() > deadline
        });
        assert_eq!(seen.datagrams, 100);
        assert_eq!(seen.bytes, sizes.iter().sum::<usize>() as u64);
        assert!((13..=100).contains(&seen.calls), "{seen:?}");
        // Nothing comes: the stop is asked at every wake-up (at most IDLE_WAIT apart).
        let mut asked = 0;
        let idle = discard(&rx.socket, 8, |_| {
            asked += 1;
            asked > 3
        });
        assert_eq!(idle, Discarded::default());
    }

    #[test]
    fn binds_exclusively_and_clones_share_the_socket() {
        let v4 = bind("127.0.0.1:0".parse().unwrap(), 1 << 20).unwrap();
        let port = v4.local_addr.port();
        let e = bind(SocketAddr::from(([127, 0, 0, 1], port)), 1 << 20)
            .err()
            .expect("a second bind of the same address fails");
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse);
        let again = Bound {
            socket: v4.socket.try_clone().unwrap(),
            local_addr: v4.local_addr,
            recv_buffer_bytes: v4.recv_buffer_bytes,
        };
        assert!(v4.recv_buffer_bytes > 0);
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        tx.send_to(b"hello", v4.local_addr).unwrap();
        let mut m = MultiRecv::new(4);
        let fd = v4.socket.as_raw_fd();
        let mut got = 0;
        for _ in 0..100 {
            let n = m.recv(fd).unwrap_or(0) + m.recv(again.socket.as_raw_fd()).unwrap_or(0);
            got += n;
            if got > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(got, 1);
    }

    /// Several readers get a socket each on one port, and the kernel spreads flows over them;
    /// the address stays taken: an exclusive bind of it fails, and so does a second group, as a
    /// second pinbad with several readers would at start.
    #[test]
    fn a_group_binds_a_socket_per_reader_and_keeps_the_address_its_own() {
        let group = bind_group("127.0.0.1:0".parse().unwrap(), 3, 1 << 20).unwrap();
        assert_eq!(group.len(), 3);
        let addr = group[0].local_addr;
        assert!(group
            .iter()
            .all(|b| b.local_addr == addr && b.recv_buffer_bytes > 0));
        let e = bind(addr, 1 << 20).err().expect("an exclusive bind fails");
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse);
        let e = bind_group(addr, 2, 1 << 20)
            .err()
            .expect("a second group fails");
        assert_eq!(e.kind(), io::ErrorKind::AddrInUse);
        // 64 flows (a socket each): the chance that all hash to one of three sockets is 3^-63.
        let senders: Vec<_> = (0..64)
            .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
            .collect();
        for tx in &senders {
            tx.send_to(b"x", addr).unwrap();
        }
        let mut got = vec![0; group.len()];
        let mut m = MultiRecv::new(64);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while got.iter().sum::<usize>() < 64 && std::time::Instant::now() < deadline {
            for (i, b) in group.iter().enumerate() {
                got[i] += m.recv(b.socket.as_raw_fd()).unwrap_or(0);
            }
            if got.iter().sum::<usize>() < 64 {
                wait_readable(group[0].socket.as_raw_fd(), Duration::from_millis(10));
            }
        }
        assert_eq!(got.iter().sum::<usize>(), 64, "{got:?}");
        assert!(
            got.iter().filter(|&&n| n > 0).count() >= 2,
            "spread: {got:?}"
        );
        // One reader: one exclusive socket, as before.
        let one = bind_group("127.0.0.1:0".parse().unwrap(), 1, 1 << 20).unwrap();
        assert_eq!(one.len(), 1);
        assert!(bind_group(one[0].local_addr, 2, 1 << 20).is_err());
    }

    /// Groups bound on port 0 never share a port: 300 held at once (600 sockets), where the
    /// kernel's picks for `SO_REUSEPORT` sockets alone gave 0–3 held ports in each of five runs
    /// of 300 here (3 of the 5 runs had some).
    #[test]
    fn groups_bound_on_port_0_never_share_a_port() {
        let groups: Vec<Vec<Bound>> = (0..300)
            .map(|_| bind_group("127.0.0.1:0".parse().unwrap(), 2, 1 << 16).unwrap())
            .collect();
        let mut ports: Vec<u16> = groups.iter().map(|g| g[0].local_addr.port()).collect();
        assert!(groups
            .iter()
            .all(|g| g.iter().all(|b| b.local_addr == g[0].local_addr)));
        ports.sort_unstable();
        ports.dedup();
        assert_eq!(ports.len(), 300, "every group has a port of its own");
    }

    /// One flow (one sender socket, as an nginx worker) reaches every reader of a group, in
    /// shares near the even one: the kernel picks a reader at random for each datagram
    /// ([`spread_evenly`]), where by flow all 600 would go to one reader.
    #[test]
    fn a_group_spreads_one_flow_evenly_over_its_readers() {
        let group = bind_group("127.0.0.1:0".parse().unwrap(), 3, 1 << 20).unwrap();
        let addr = group[0].local_addr;
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        let n = 600;
        let mut got = vec![0; group.len()];
        let mut m = MultiRecv::new(64);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        // Sent in rounds of 60 and read after each, so no socket's buffer can overflow.
        for _ in 0..n / 60 {
            for _ in 0..60 {
                tx.send_to(b"x", addr).unwrap();
            }
            let before = got.iter().sum::<usize>();
            while got.iter().sum::<usize>() < before + 60 && std::time::Instant::now() < deadline {
                for (i, b) in group.iter().enumerate() {
                    got[i] += m.recv(b.socket.as_raw_fd()).unwrap_or(0);
                }
                wait_readable(group[0].socket.as_raw_fd(), Duration::from_millis(1));
            }
        }
        assert_eq!(got.iter().sum::<usize>(), n, "{got:?}");
        // Each share is binomial(600, 1/3): mean 200, sd ~11.5; below 120 is ~7 sd away.
        assert!(got.iter().all(|&k| k >= 120), "uneven: {got:?}");
    }

    /// The largest `udp.recv_buffer` (1 GiB) reaches the kernel as a positive int, and what it
    /// grants for it is its ceiling, [`KERNEL_MAX_RECV_BUFFER`]: `finish` counts that as all of
    /// it, not as a clamp.
    #[test]
    fn the_largest_recv_buffer_gets_the_kernels_ceiling() {
        let bound = bind("127.0.0.1:0".parse().unwrap(), 1 << 30).unwrap();
        assert!(bound.recv_buffer_bytes <= KERNEL_MAX_RECV_BUFFER);
        let s = Socket::new(Domain::IPV4, Type::DGRAM, None).unwrap();
        if force_recv_buffer(&s, 1 << 30) {
            assert_eq!(s.recv_buffer_size().unwrap() / 2, KERNEL_MAX_RECV_BUFFER);
            assert_eq!(bound.recv_buffer_bytes, KERNEL_MAX_RECV_BUFFER);
        } else {
            eprintln!("no CAP_NET_ADMIN: the kernel's ceiling cannot be reached, case skipped");
        }
    }

    /// A socket the service manager passes keeps a receive buffer larger than pinbad asks for
    /// (a unit's `ReceiveBuffer=`), gets a smaller one raised, and is made non-blocking.
    #[test]
    fn adopted_sockets_keep_a_larger_buffer_and_get_a_smaller_one_raised() {
        let udp = || {
            let s = Socket::new(Domain::IPV4, Type::DGRAM, None).unwrap();
            s.bind(&SocketAddr::from(([127, 0, 0, 1], 0)).into())
                .unwrap();
            s
        };
        let given = udp();
        // Forced, as systemd sets ReceiveBuffer=; else as far as net.core.rmem_max allows.
        if !force_recv_buffer(&given, 4 << 20) {
            let _ = given.set_recv_buffer_size(4 << 20);
        }
        let had = given.recv_buffer_size().unwrap() / 2;
        let adopted = adopt(given.into(), 1 << 20).unwrap();
        if had > 1 << 20 {
            assert_eq!(
                adopted.recv_buffer_bytes, had,
                "lowered to what pinbad asks"
            );
        } else {
            eprintln!("could not give the test socket more than {had} bytes: larger case skipped");
        }
        let mut buf = [0u8; 16];
        let e = adopted.socket.recv(&mut buf).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock, "non-blocking");

        let small = udp();
        small.set_recv_buffer_size(64 << 10).unwrap();
        let had = small.recv_buffer_size().unwrap() / 2;
        let can_raise = force_recv_buffer(&udp(), 2 << 20) || rmem_max() >= Some(2 << 20);
        let adopted = adopt(small.into(), 2 << 20).unwrap();
        assert!(adopted.recv_buffer_bytes >= had);
        if can_raise {
            assert!(
                adopted.recv_buffer_bytes >= 2 << 20,
                "raised to what pinbad asks"
            );
        }
    }

    #[test]
    fn recvmmsg_reports_source_and_truncation_flag() {
        let rx = bind("127.0.0.1:0".parse().unwrap(), 1 << 20).unwrap();
        let tx = UdpSocket::bind("127.0.0.1:0").unwrap();
        tx.send_to(b"abc", rx.local_addr).unwrap();
        let mut m = MultiRecv::new(2);
        let mut n = 0;
        for _ in 0..100 {
            if let Ok(k) = m.recv(rx.socket.as_raw_fd()) {
                n = k;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(n, 1);
        let (data, src, truncated) = m.message(0);
        assert_eq!(data, b"abc");
        assert_eq!(src, Some("127.0.0.1".parse().unwrap()));
        assert!(!truncated);
    }
}
