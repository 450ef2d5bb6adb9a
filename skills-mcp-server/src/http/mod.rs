//! Streamable HTTP over HTTP/1.1 that stays up under hostile clients: timeouts for headers,
//! bodies and idle connections, a cap on connections, a budget of request body bytes, `Origin`
//! checked, and `accept` failures (out of descriptors, out of memory) logged and retried.

mod body;
mod idle;
mod options;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use body::{BodyBudget, Buffered};
use idle::Idle;
pub use options::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_BUFFERED_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_BODY_BYTES,
    HttpServerOptions, LOCALHOST_ORIGINS,
};

/// The stateless MCP service of a server `S`.
type Service<S> = StreamableHttpService<S, NeverSessionManager>;

/// How long `accept` rests after a failure that is not one connection's (no descriptor, no
/// memory), so a server out of descriptors does not spin while connections close.
const ACCEPT_RETRY_PAUSE: Duration = Duration::from_millis(250);

/// The most bytes hyper buffers of a connection's input (its request head, at most): 256
/// connections of silent half headers hold 16 MiB, not hyper's default of about 400 KiB each.
const READ_BUFFER_BYTES: usize = 64 * 1024;

/// Serves `service` on connections accepted from `listener`, as `options` say, for as long as
/// the future is polled.
pub(crate) async fn serve<S>(service: Service<S>, listener: TcpListener, options: HttpServerOptions)
where
    S: rmcp::ServerHandler + Send + 'static,
{
    let connections = Arc::new(Semaphore::new(options.max_connections));
    let budget = Arc::new(BodyBudget::new(
        options.max_buffered_body_bytes,
        options.max_request_body_bytes,
        options.body_read_timeout,
    ));
    let options = Arc::new(options);
    let mut failing = Failures::default();
    loop {
        // At the cap, connections wait in the listener's queue until one ends.
        // (The semaphore is never closed.)
        let Ok(slot) = Arc::clone(&connections).acquire_owned().await else {
            return;
        };
        let stream = loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    failing.recovered();
                    break stream;
                }
                Err(error) if one_connections(&error) => {}
                Err(error) => {
                    failing.failed(&error);
                    tokio::time::sleep(ACCEPT_RETRY_PAUSE).await;
                }
            }
        };
        let (service, budget, options) =
            (service.clone(), Arc::clone(&budget), Arc::clone(&options));
        tokio::spawn(connection(stream, slot, service, budget, options));
    }
}

/// Serves one connection until it ends, holding its `slot` of the connection cap.
async fn connection<S>(
    stream: TcpStream,
    slot: OwnedSemaphorePermit,
    service: Service<S>,
    budget: Arc<BodyBudget>,
    options: Arc<HttpServerOptions>,
) where
    S: rmcp::ServerHandler + Send + 'static,
{
    let _ = stream.set_nodelay(true);
    let io = TokioIo::new(Idle::new(stream, options.idle_timeout));
    let handler = hyper::service::service_fn(move |request| {
        let (service, budget) = (service.clone(), Arc::clone(&budget));
        async move {
            let response = match budget.read(request).await {
                Ok(Buffered { request, reserved }) => {
                    let response = service.handle(request).await;
                    // The body's share of the budget lasts until it is answered.
                    drop(reserved);
                    response
                }
                Err(refusal) => refusal,
            };
            Ok::<_, std::convert::Infallible>(response)
        }
    });
    // A client that hangs up, times out or sends garbage ends only its own connection.
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(options.header_read_timeout)
        .max_buf_size(READ_BUFFER_BYTES)
        .serve_connection(io, handler)
        .await;
    drop(slot);
}

/// Whether an `accept` error is about the one connection being accepted (it went away before
/// it was taken), so the next `accept` may follow at once.
fn one_connections(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// `accept` failures in a row, logged when they start and when they end rather than every
/// pause.
#[derive(Default)]
struct Failures {
    count: u64,
}

impl Failures {
    fn failed(&mut self, error: &io::Error) {
        if self.count == 0 {
            tracing::warn!(
                %error,
                retry_ms = ACCEPT_RETRY_PAUSE.as_millis() as u64,
                "MCP HTTP server: accepting a connection failed; retrying until it works"
            );
        }
        self.count += 1;
    }

    fn recovered(&mut self) {
        if self.count > 0 {
            tracing::warn!(
                failures = self.count,
                "MCP HTTP server: accepting connections works again"
            );
            self.count = 0;
        }
    }
}
