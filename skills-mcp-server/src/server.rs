//! [`SkillsServer`]: one registry served over MCP, on stdio or Streamable HTTP.

use std::io;
use std::sync::{Arc, OnceLock};

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use skills_bundle::Registry;

use crate::http::HttpServerOptions;
use crate::index::Index;
use crate::options::Options;

/// An MCP server of one [`Registry`]; cheap to clone (the digests and listings are computed
/// once, on first use, and shared by every clone).
#[derive(Clone)]
pub struct SkillsServer {
    // One pointer: Streamable HTTP clones the server for every request and moves it through
    // several futures.
    shared: Arc<Shared>,
}

struct Shared {
    registry: Registry,
    options: Options,
    index: OnceLock<Index>,
}

impl std::fmt::Debug for SkillsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillsServer")
            .field("registry", &self.registry())
            .finish_non_exhaustive()
    }
}

impl SkillsServer {
    pub(crate) fn with_options(registry: Registry, options: Options) -> Self {
        Self {
            shared: Arc::new(Shared {
                registry,
                options,
                index: OnceLock::new(),
            }),
        }
    }

    /// The registry served.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// The skills over the per-skill limits (see
    /// [`SkillsServerBuilder::skill_limits`](crate::SkillsServerBuilder::skill_limits)), which
    /// the Skills extension leaves out, each with its number of files and bytes. A program can
    /// warn about them as it starts.
    pub fn over_limits(&self) -> &[(&'static str, usize, u64)] {
        &self.index().over_limits
    }

    /// The server's instructions: the catalog, or as much of it as fits in what Claude Code
    /// keeps of a server's instructions (see `skills_core::mcp::instructions`).
    pub fn instructions(&self) -> &str {
        &self.index().instructions
    }

    pub(crate) fn options(&self) -> &Options {
        &self.shared.options
    }

    /// Serves one client on standard input and output until it disconnects.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.prepare_index();
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(io::Error::other)?;
        running.waiting().await.map_err(io::Error::other)?;
        Ok(())
    }

    /// The Streamable HTTP service (stateless: every POST is answered on its own, no session),
    /// as a tower service to mount at a path of an HTTP server (axum, hyper, ...), with the
    /// `Origin` and `Host` checks of [`HttpServerOptions::default`], against DNS rebinding as the
    /// MCP transport asks: a request from a web page is served only when its `Origin` is one of
    /// the [`LOCALHOST_ORIGINS`](crate::LOCALHOST_ORIGINS) (a page served from this machine, such
    /// as the MCP Inspector's), and any request gets `403 Forbidden` when its `Host` is not
    /// `localhost`, `127.0.0.1` or `::1`. Programs send no `Origin` and are served. Set
    /// `config.allowed_origins` and `config.allowed_hosts` of the returned service to serve
    /// others. Timeouts and body caps are the surrounding server's to set;
    /// [`serve_http_with`](Self::serve_http_with) sets them.
    pub fn http_service(&self) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
        self.http_service_with(&HttpServerOptions::default())
    }

    /// [`http_service`](Self::http_service) with the origins, hosts and body cap of `options`.
    fn http_service_with(
        &self,
        options: &HttpServerOptions,
    ) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
        let server = self.clone();
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_max_request_body_bytes(options.max_request_body_bytes)
            .enforce_origin_validation()
            .with_allowed_origins(
                crate::http::LOCALHOST_ORIGINS
                    .iter()
                    .map(|origin| (*origin).to_owned())
                    .chain(options.allowed_origins.iter().cloned()),
            );
        if let Some(hosts) = &options.allowed_hosts {
            config = config.with_allowed_hosts(hosts.iter().cloned());
        }
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            config,
        )
    }

    /// [`serve_http_with`](Self::serve_http_with) with [`HttpServerOptions::default`].
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> io::Result<()> {
        self.serve_http_with(listener, HttpServerOptions::default())
            .await
    }

    /// Serves the MCP service over HTTP/1.1 at every path on connections accepted from
    /// `listener`, within the limits of `options`: a client slow to send its headers or its
    /// body, or silent, loses its connection; at most so many connections are served at once
    /// (the others wait in the listener's queue); request bodies are capped one by one and in
    /// total (`413`, `503`); a request from a foreign `Origin` (not a localhost one, nor one of
    /// `options`) or to a foreign `Host` gets `403`.
    ///
    /// It runs for as long as it is polled: an `accept` that fails (no descriptor left, no
    /// memory) is logged as a `tracing` warning and tried again after a pause, so the server
    /// answers again as soon as the cause goes. The `Result` is kept for errors a later
    /// version may report; none is returned today.
    pub async fn serve_http_with(
        self,
        listener: tokio::net::TcpListener,
        options: HttpServerOptions,
    ) -> io::Result<()> {
        self.prepare_index();
        let service = self.http_service_with(&options);
        crate::http::serve(service, listener, options).await;
        Ok(())
    }

    /// Starts computing the digests and listings on a blocking thread, so that they are
    /// (nearly) ready when the first request arrives instead of delaying its answer.
    fn prepare_index(&self) {
        let server = self.clone();
        drop(tokio::task::spawn_blocking(move || {
            server.index();
        }));
    }

    /// The index, built on first use.
    pub(crate) fn index(&self) -> &Index {
        let shared = &*self.shared;
        shared
            .index
            .get_or_init(|| Index::build(&shared.registry, &shared.options))
    }
}
