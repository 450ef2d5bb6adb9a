//! The agent's spans to an OpenTelemetry collector (feature `otlp`): OTLP over HTTP with
//! protobuf bodies, batched on a thread of its own.
//!
//! The spans (a run, its turns, each model request, tool call and skill load, invocation or
//! offer) carry OpenTelemetry's generative-AI attributes; the table is in the crate docs,
//! [Traces](crate#traces). Nothing of a message, a tool's input or output or an error's text is
//! recorded, so the API key cannot reach the collector.
//!
//! ```no_run
//! use skills_runtime::agent::telemetry::Otlp;
//!
//! # fn demo() -> Result<(), skills_runtime::agent::telemetry::OtlpError> {
//! // `OTEL_EXPORTER_OTLP_ENDPOINT`, as every OpenTelemetry SDK reads it.
//! if let Some(endpoint) = Otlp::endpoint_from_env() {
//!     let _flush_at_exit = Otlp::new(&endpoint, "my-agent")?.install()?;
//!     // ... run the agent
//! }
//! # Ok(()) }
//! ```
//!
//! A program with a `tracing` subscriber of its own adds [`Otlp::layer`] to it instead of
//! [`Otlp::install`].

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::registry::LookupSpan;

/// The path of traces under an OTLP/HTTP base URL.
const TRACES_PATH: &str = "/v1/traces";

/// How long one export may take before it is given up.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// An OTLP/HTTP exporter of the agent's spans.
pub struct Otlp {
    provider: SdkTracerProvider,
    url: String,
}

impl fmt::Debug for Otlp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Otlp").field("url", &self.url).finish()
    }
}

/// Why the exporter could not be set up or could not send.
#[derive(Debug)]
pub struct OtlpError {
    message: String,
}

impl fmt::Display for OtlpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OtlpError {}

impl OtlpError {
    fn new(what: &str, error: impl fmt::Display) -> OtlpError {
        OtlpError {
            message: format!("OTLP exporter: {what}: {error}"),
        }
    }
}

impl Otlp {
    /// An exporter to the collector at `endpoint`, an OTLP/HTTP base URL such as
    /// `http://127.0.0.1:4318` (`/v1/traces` is added unless the URL ends with it), naming this
    /// program `service_name` (`service.name`).
    pub fn new(endpoint: &str, service_name: &str) -> Result<Otlp, OtlpError> {
        let url = traces_url(endpoint);
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url.clone())
            .with_timeout(EXPORT_TIMEOUT)
            .with_http_client(Client::default())
            .build()
            .map_err(|e| OtlpError::new("cannot build the exporter", e))?;
        let resource = Resource::builder()
            .with_service_name(service_name.to_owned())
            .build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource)
            .build();
        Ok(Otlp { provider, url })
    }

    /// The endpoint the standard variables name: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the
    /// traces URL itself), else `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL); `None` when neither
    /// is set (or both are blank).
    pub fn endpoint_from_env() -> Option<String> {
        let var = |name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
        };
        var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"))
    }

    /// The URL the spans are posted to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A `tracing` layer that sends the spans at level `INFO` and above (the agent's) to this
    /// exporter, for a subscriber the program builds itself.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        let tracer = self.provider.tracer("skills-agent");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(tracing::level_filters::LevelFilter::INFO)
    }

    /// Makes this exporter the process's `tracing` subscriber; the guard sends what is left
    /// when it is dropped (keep it until the program ends). Fails when the program already set
    /// one (add [`layer`](Self::layer) to it instead).
    pub fn install(self) -> Result<OtlpGuard, OtlpError> {
        let subscriber = tracing_subscriber::registry().with(self.layer());
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|e| OtlpError::new("cannot install the subscriber", e))?;
        Ok(OtlpGuard { otlp: self })
    }

    /// Sends every finished span now, waiting for the collector's answer.
    pub fn flush(&self) -> Result<(), OtlpError> {
        self.provider
            .force_flush()
            .map_err(|e| OtlpError::new("cannot send the spans", e))
    }
}

/// Sends the last spans when dropped ([`Otlp::install`]).
#[derive(Debug)]
#[must_use = "the last spans are sent when the guard is dropped"]
pub struct OtlpGuard {
    otlp: Otlp,
}

impl OtlpGuard {
    /// The exporter.
    pub fn otlp(&self) -> &Otlp {
        &self.otlp
    }
}

impl Drop for OtlpGuard {
    fn drop(&mut self) {
        if let Err(error) = self.otlp.provider.shutdown() {
            tracing::warn!(%error, "OTLP exporter: the last spans were not sent");
        }
    }
}

/// `endpoint` with the traces path, unless it has it.
fn traces_url(endpoint: &str) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    if base.ends_with(TRACES_PATH) {
        base.to_owned()
    } else {
        format!("{base}{TRACES_PATH}")
    }
}

/// The exporter's HTTP client: the providers' reqwest, driven by a small runtime of its own on
/// the batch exporter's thread (which has none), so exports never wait on the program's.
#[derive(Debug, Default)]
struct Client {
    runtime: OnceLock<Result<(tokio::runtime::Runtime, reqwest::Client), String>>,
}

#[async_trait::async_trait]
impl HttpClient for Client {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (runtime, client) = self
            .runtime
            .get_or_init(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| e.to_string())?;
                let client = reqwest::Client::builder()
                    .timeout(EXPORT_TIMEOUT)
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .map_err(|e| e.to_string())?;
                Ok((runtime, client))
            })
            .as_ref()
            .map_err(|e| HttpError::from(e.clone()))?;
        let (parts, body) = request.into_parts();
        let mut builder = client.request(parts.method, parts.uri.to_string());
        for (name, value) in &parts.headers {
            builder = builder.header(name, value);
        }
        runtime.block_on(async {
            let response = builder.body(body).send().await?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = response.bytes().await?;
            let mut answer = Response::builder().status(status).body(body)?;
            *answer.headers_mut() = headers;
            Ok(answer)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_traces_path_is_added_once() {
        assert_eq!(
            traces_url("http://127.0.0.1:4318"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://127.0.0.1:4318/"),
            "http://127.0.0.1:4318/v1/traces"
        );
        assert_eq!(
            traces_url("http://127.0.0.1:4318/v1/traces"),
            "http://127.0.0.1:4318/v1/traces"
        );
    }
}
