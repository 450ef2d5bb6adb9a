//! [`BodyBudget`]: request bodies read whole before the MCP service sees them, each within a
//! size cap and a time limit, and all of them within one budget of bytes held in memory.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, LengthLimitError, Limited};
use hyper::body::{Body as _, Incoming};
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Request, Response, StatusCode};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A response of the MCP service, and of the refusals here.
pub(crate) type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The shared budget of buffered body bytes, and the limits of one body.
pub(crate) struct BodyBudget {
    bytes: Arc<Semaphore>,
    max_request: usize,
    read_timeout: Duration,
}

/// A request whose body is in memory, and its share of the budget, held until it is answered.
pub(crate) struct Buffered {
    pub(crate) request: Request<Full<Bytes>>,
    pub(crate) reserved: OwnedSemaphorePermit,
}

impl BodyBudget {
    pub(crate) fn new(max_buffered: usize, max_request: usize, read_timeout: Duration) -> Self {
        BodyBudget {
            bytes: Arc::new(Semaphore::new(max_buffered.min(Semaphore::MAX_PERMITS))),
            max_request,
            read_timeout,
        }
    }

    /// Reserves the body's size (its `Content-Length`, else the per-request cap) and reads it,
    /// or answers why not: `413` over the cap, `503` when the budget cannot hold it now, `408`
    /// when it comes too slowly, `400` when the connection breaks.
    pub(crate) async fn read(&self, request: Request<Incoming>) -> Result<Buffered, HttpResponse> {
        let hint = request.body().size_hint();
        let declared = hint
            .exact()
            .or(hint.upper())
            .unwrap_or(self.max_request as u64);
        if declared > self.max_request as u64 {
            return Err(refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is over {} bytes", self.max_request),
            ));
        }
        let reserve = u32::try_from(declared).unwrap_or(u32::MAX);
        let Ok(reserved) = Arc::clone(&self.bytes).try_acquire_many_owned(reserve) else {
            let mut busy = refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server holds as many request bodies as it may; try again".to_owned(),
            );
            busy.headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from_static("1"));
            return Err(busy);
        };
        let (parts, body) = request.into_parts();
        let read = Limited::new(body, self.max_request).collect();
        let bytes = match tokio::time::timeout(self.read_timeout, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) if error.downcast_ref::<LengthLimitError>().is_some() => {
                return Err(refusal(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body is over {} bytes", self.max_request),
                ));
            }
            Ok(Err(error)) => {
                return Err(refusal(
                    StatusCode::BAD_REQUEST,
                    format!("the request body could not be read: {error}"),
                ));
            }
            Err(_) => {
                return Err(refusal(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within {} s",
                        self.read_timeout.as_secs_f64()
                    ),
                ));
            }
        };
        Ok(Buffered {
            request: Request::from_parts(parts, Full::new(bytes)),
            reserved,
        })
    }
}

/// A plain-text refusal that closes the connection (the rest of the body is not read).
pub(crate) fn refusal(status: StatusCode, message: String) -> HttpResponse {
    let mut response = Response::new(Full::new(Bytes::from(message)).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
