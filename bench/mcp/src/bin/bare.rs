//! A bare rmcp server with no skills: the start-up baseline. It declares the Skills extension
//! (and resources, which it requires) and answers `skills/list` with an empty list, on the same HTTP loop as the other servers.
//!
//! ```text
//! bare --http 127.0.0.1:0
//! ```

use rmcp::model::{ListSkillsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

#[derive(Clone)]
struct Bare;

impl ServerHandler for Bare {
    fn get_info(&self) -> ServerConfig {
        // rmcp's Skills extension needs the resources capability beside it.
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_skills()
                .build(),
        )
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        Ok(ListSkillsResult::with_all_items(Vec::new()))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    mcp_bench::serve_http(Bare).await?;
    Ok(())
}
