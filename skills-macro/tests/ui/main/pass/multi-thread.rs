// `#[skills_runtime::main]` in place of `#[tokio::main]`: the sandbox's entry line runs before
// the runtime starts its threads, so the agent's `bash` can run, and the body has a runtime with
// its timers.
use std::sync::Arc;

use skills_runtime::agent::Agent;
use skills_runtime::agent::provider::openai::OpenAi;

#[skills_runtime::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Never asked: building the agent is all this program does.
    let provider = OpenAi::builder().base_url("http://127.0.0.1:9/v1").build()?;
    let agent = Agent::builder(Arc::new(provider)).build()?;
    agent.check_bash()?;
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    Ok(())
}
