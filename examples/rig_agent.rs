//! A rig agent with the skills of `skills/` compiled in: rig's own agent loop and
//! OpenAI-compatible client, the bundle added by one call on rig's builder.
//!
//! ```text
//! OPENAI_API_KEY=... [OPENAI_BASE_URL=http://127.0.0.1:8080/v1] [MODEL_ID=M] \
//!     cargo run --example rig_agent --features rig -- PROMPT...
//! ```
//!
//! The request goes to `OPENAI_BASE_URL` (a local llama.cpp, Ollama or vLLM server works; give
//! it any key) with Chat Completions, which every OpenAI-compatible server speaks. The package's
//! `rig` feature builds rig's transport without TLS, for such a local server over http; add
//! rig-core's `rustls` feature to reach a provider over https. The answer goes to stdout.

use std::process::ExitCode;

use rig_agent::AgentBuilder;
use rig_core::providers::openai::OpenAI;
use skills_runtime::rig::AgentBuilderExt;

// Only the reviewed files of `skills/` compile: `skills.lock` lists their SHA-256. The lock is
// the agent example's, written with `embed_evals = true`, and the options must match it.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("skills", lock = "skills.lock", embed_evals = true);

/// What the agent is, before the catalog `.skills` appends.
const PREAMBLE: &str = "You are a careful software engineer. Answer briefly.";
const DEFAULT_MODEL: &str = "gpt-4.1-mini";
/// Model turns per prompt: a skill load, a resource read or two, the answer.
const MAX_TURNS: usize = 8;

#[tokio::main]
async fn main() -> ExitCode {
    let prompt = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    if prompt.is_empty() {
        eprintln!("usage: rig_agent PROMPT...");
        return ExitCode::from(2);
    }
    match run(&prompt).await {
        Ok(answer) => {
            println!("{answer}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("rig_agent: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(prompt: &str) -> Result<String, Box<dyn std::error::Error>> {
    let model_id = std::env::var("MODEL_ID").unwrap_or_else(|_| DEFAULT_MODEL.to_owned());
    // `OPENAI_API_KEY`, and `OPENAI_BASE_URL` when set.
    let model = OpenAI::from_env()?.chat(model_id);
    let agent = AgentBuilder::new(model)
        .preamble(PREAMBLE)
        .skills(&SKILLS)
        .default_max_turns(MAX_TURNS)
        .build();
    Ok(agent.prompt(prompt).await?.output())
}
