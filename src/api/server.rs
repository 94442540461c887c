//! The HTTP server: connections in, the API's router served on each, with bounds no client can get
//! around.
//!
//! Runs on the tokio runtime ("pinbad-http"). `axum::serve` has no header-read timeout and no
//! connection cap, so one half-sent request kept the process alive for minutes after SIGTERM and
//! a few thousand half-open connections made `/healthz` unreachable. Here:
//! - at most `http.max_connections` connections are open at once; one beyond it is closed at once
//!   and counted (`http_connections_refused`), so the process never runs out of file descriptors;
//! - a client must send each request's header within `http.header_timeout` (hyper's timer, which
//!   also runs while a keep-alive connection waits for its next request), so slow or silent
//!   connections give their slot back quickly;
//! - a connection where no byte moves in either direction for `http.idle_timeout` is closed
//!   ([`IdleTimeout`]): a half-sent body, or a client that stops reading its response; a body
//!   trickled byte by byte meets `http.header_timeout` instead (`api::read_body`, a 408);
//! - on shutdown the listener is closed at once, connections get [`SHUTDOWN_GRACE`] to finish what
//!   they are doing, and whatever is left is dropped with the runtime: the process exits within
//!   about a second, whatever the clients do.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::{Instant, Sleep};

use crate::counters::Counters;
use crate::shutdown::Shutdown;

/// How long open connections may go on after shutdown was asked for.
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(800);

/// The bounds of [`serve`], from `[http]` in the config.
#[derive(Clone, Copy, Debug)]
pub struct ServerLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

/// Serves `router` on `listener` until `shutdown` is triggered, then closes the listener, gives
/// open connections [`SHUTDOWN_GRACE`] and returns.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ServerLimits,
    counters: Arc<Counters>,
    shutdown: Shutdown,
) {
    // One permit per open connection, given back when its task ends.
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    loop {
        let (stream, peer) = tokio::select! {
            _ = shutdown.wait() => break,
            accepted = listener.accept() => match accepted {
                Ok(x) => x,
                Err(e) => {
                    // EMFILE and the like: back off instead of spinning; never fatal.
                    tracing::warn!(error = %e, "Cannot accept an HTTP connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            counters.http_connections_refused.fetch_add(1, Relaxed);
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(IdleTimeout::new(stream, limits.idle_timeout));
        // Every request carries its client's address (`ConnectInfo`), for the logs of changes
        // and errors (api::Client).
        let service = TowerToHyperService::new(router.clone());
        let service = hyper::service::service_fn(move |mut req: hyper::Request<_>| {
            req.extensions_mut()
                .insert(axum::extract::ConnectInfo(peer));
            hyper::service::Service::call(&service, req)
        });
        let conn = builder.serve_connection(io, service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A connection's errors (timeouts, resets) are the client's business: not logged
            // above debug, never fatal.
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "HTTP connection ended");
            }
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::info!("Closing HTTP connections that did not finish in time");
    }
}

/// A stream that fails with `TimedOut` once no byte has moved in either direction for `timeout`
/// while someone waits on it. Every read or write that moves bytes pushes the deadline back, so
/// a slow but live transfer is never cut.
pub struct IdleTimeout<T> {
    inner: T,
    timeout: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl<T> IdleTimeout<T> {
    pub fn new(inner: T, timeout: Duration) -> IdleTimeout<T> {
        IdleTimeout {
            inner,
            timeout,
            deadline: Box::pin(tokio::time::sleep(timeout)),
        }
    }

    fn moved(&mut self) {
        let next = Instant::now() + self.timeout;
        self.deadline.as_mut().reset(next);
    }

    /// After a pending poll: an error if the deadline has passed (the waker is registered with
    /// the deadline too, so a silent peer is noticed without any other event).
    fn expired(&mut self, cx: &mut Context<'_>) -> Option<io::Error> {
        self.deadline.as_mut().poll(cx).is_ready().then(|| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                "no data moved within http.idle_timeout",
            )
        })
    }

    fn settle<R>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<R>>,
        moved: bool,
    ) -> Poll<io::Result<R>> {
        match poll {
            Poll::Ready(Ok(r)) => {
                if moved {
                    self.moved();
                }
                Poll::Ready(Ok(r))
            }
            Poll::Pending => match self.expired(cx) {
                Some(e) => Poll::Ready(Err(e)),
                None => Poll::Pending,
            },
            other => other,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleTimeout<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let poll = Pin::new(&mut this.inner).poll_read(cx, buf);
        let moved = buf.filled().len() > before;
        this.settle(cx, poll, moved)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write(cx, data);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        this.settle(cx, poll, moved)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        let moved = matches!(poll, Poll::Ready(Ok(n)) if n > 0);
        this.settle(cx, poll, moved)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_flush(cx);
        this.settle(cx, poll, false)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.settle(cx, poll, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A silent peer is cut after the timeout; a peer that keeps sending is not.
    #[tokio::test(start_paused = true)]
    async fn idle_streams_time_out_and_live_ones_do_not() {
        let (a, mut b) = tokio::io::duplex(64);
        let mut idle = IdleTimeout::new(a, Duration::from_secs(5));
        let mut buf = [0u8; 8];
        for _ in 0..4 {
            tokio::time::advance(Duration::from_secs(3)).await;
            b.write_all(b"x").await.unwrap();
            assert_eq!(idle.read(&mut buf).await.unwrap(), 1, "data keeps it alive");
        }
        let e = idle.read(&mut buf).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
    }
}
