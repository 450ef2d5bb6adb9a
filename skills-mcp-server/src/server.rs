//! [`SkillsServer`]: one registry served over MCP, on stdio or Streamable HTTP.

use std::io;
use std::sync::{Arc, OnceLock};

use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use skills_bundle::Registry;

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
    /// as a tower service to mount at a path of an HTTP server (axum, hyper, ...). Only
    /// requests whose `Host` is `localhost`, `127.0.0.1` or `::1` are accepted (rmcp's
    /// default protection against DNS rebinding); set `config.allowed_hosts` of the returned
    /// service to serve other names.
    pub fn http_service(&self) -> StreamableHttpService<SkillsServer, NeverSessionManager> {
        let server = self.clone();
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(NeverSessionManager::default()),
            StreamableHttpServerConfig::default()
                .with_legacy_session_mode(false)
                .with_json_response(true)
                .with_sse_keep_alive(None),
        )
    }

    /// Serves [`http_service`](Self::http_service) over HTTP/1.1 at every path on connections
    /// accepted from `listener`, until accepting fails.
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> io::Result<()> {
        self.prepare_index();
        let service = self.http_service();
        loop {
            let (stream, _) = listener.accept().await?;
            let service = hyper_util::service::TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                // A client that hangs up mid-request ends only its own connection.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
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
