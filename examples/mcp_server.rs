//! The demo bundle in `skills/` as an MCP server, for Claude Code, Claude Desktop, Cursor or
//! any other MCP host (see the `skills-mcp-server` crate docs for their configuration).
//!
//! The bundle is validated and compiled into this binary by `embed_skills!`; at run time nothing
//! is read from disk. It serves the Skills extension (`skills/list`, `skills/get`), every file as
//! a `skill://<name>/<path>` resource, the `load_skill` and `read_skill_resource` tools and one
//! prompt per skill a person may invoke.
//!
//! ```text
//! cargo run --example mcp_server --features mcp                              # stdio
//! cargo run --example mcp_server --features mcp -- --http 127.0.0.1:8080    # Streamable HTTP
//! ```
//!
//! Over HTTP it prints `listening on http://ADDR/mcp` once the socket is bound (port 0 picks a
//! free one), then answers every POST statelessly, at any path, within the default limits of
//! `HttpServerOptions` (timeouts for slow clients, caps on connections and request bodies, no
//! foreign `Origin`).

use std::net::SocketAddr;

use clap::Parser;
use skills_runtime::mcp::SkillsServer;

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

/// Serves the embedded skills over MCP: stdio unless `--http` is given.
#[derive(Debug, Parser)]
#[command(name = "mcp_server")]
struct Args {
    /// Serve Streamable HTTP (stateless) on this address instead of stdio, e.g. 127.0.0.1:8080.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Serve only these skills (repeatable); all of them by default.
    #[arg(long = "skill", value_name = "NAME")]
    skills: Vec<String>,
    /// Entries per page of skills/list, resources/list and resources/directory/read.
    #[arg(long, value_name = "N", default_value_t = skills_runtime::mcp::DEFAULT_PAGE_SIZE)]
    page_size: usize,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let registry = if args.skills.is_empty() {
        SKILLS.clone()
    } else {
        SKILLS.restrict(&args.skills)?
    };
    let server = SkillsServer::builder(registry)
        .page_size(args.page_size)
        .build();
    for (name, files, bytes) in server.over_limits() {
        // Stderr: a host shows it in its server log; stdout is the protocol over stdio.
        eprintln!(
            "warning: skill {name} ({files} files, {bytes} bytes) is over the Skills \
             extension's per-skill limits and is served only as resources and through the tools"
        );
    }
    match args.http {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            // Stdout is free over HTTP: the bound address, for scripts and tests.
            println!("listening on http://{}/mcp", listener.local_addr()?);
            server.serve_http(listener).await?;
        }
    }
    Ok(())
}
