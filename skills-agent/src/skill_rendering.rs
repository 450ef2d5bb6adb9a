//! A skill's text as the conversation receives it when the skill is invoked or loaded: rendered
//! with the session's values, and its `` !`command` `` and ```` ```! ```` blocks replaced by
//! their output, run through the agent's `bash` tool, with
//! [`AgentBuilder::run_skill_commands`](crate::AgentBuilder::run_skill_commands).
//!
//! Each command is a `bash` call as a model would make it: it goes through the same checks (the
//! tool exists, the failure tracker, the permission policy and the active skills'
//! `allowed-tools`, the approver, the `before` hooks) and runs under the tool's sandbox. The
//! tool's own result says how the command ended (its last line `[exit code N]` or `[terminated
//! by a signal]`); the tests drive the real tool, so a change of that format fails them.

use serde_json::json;
use skills_bundle::invoke::{InvokeOptions, Rendering};

use crate::agent::Agent;
use crate::conversation::ToolCall;
use crate::dispatch::Target;
use crate::error::{SkillCommandError, SkillCommandFailure};
use crate::session::Session;

/// Name of the tool the commands run with.
const BASH: &str = "bash";

impl Agent {
    /// What a skill's text is rendered with in `session`: where its files go, and the values of
    /// `${CLAUDE_SESSION_ID}`, `${CLAUDE_EFFORT}` and `${CLAUDE_PROJECT_DIR}` (the working
    /// directory), as the session's loader has them.
    pub(crate) fn invoke_options<'a>(&'a self, session: &'a Session) -> InvokeOptions<'a> {
        InvokeOptions {
            resource_dir: self.settings.resource_dir.as_deref(),
            session_id: Some(session.id()),
            effort: self.effort,
            project_dir: Some(self.context.workdir()),
        }
    }

    /// The text of `rendering`: with every shell command run and its output in its place when
    /// the builder says so, else with the commands as written. The first command that does not
    /// give its output stops the others and is the error.
    pub(crate) async fn finish_rendering(
        &self,
        session: &mut Session,
        rendering: &Rendering,
    ) -> Result<String, SkillCommandError> {
        if !self.settings.run_skill_commands || rendering.commands().len() == 0 {
            return Ok(rendering.text());
        }
        let skill = rendering.skill().name();
        let mut outputs = Vec::new();
        for (index, command) in rendering.commands().enumerate() {
            let failed = |failure| SkillCommandError {
                skill,
                command: command.to_owned(),
                failure,
            };
            if !self.settings.tools.iter().any(|t| t.name() == BASH) {
                return Err(failed(SkillCommandFailure::NoBash));
            }
            let call = ToolCall {
                id: format!("skill-command-{skill}-{index}"),
                name: BASH.to_owned(),
                input: json!({ "command": command }),
            };
            let target = self
                .check(session, &call)
                .map_err(|error| failed(SkillCommandFailure::NotRun(error)))?;
            let Target::Tool(tool) = target else {
                return Err(failed(SkillCommandFailure::NoBash));
            };
            let result = tool.call(&call.input, &self.context).await;
            session
                .tracker
                .record(BASH, result.is_ok(), std::time::Instant::now());
            let output = result.map_err(|error| failed(SkillCommandFailure::NotRun(error)))?;
            tracing::info!(
                skill,
                command,
                chars = output.len(),
                "skill shell command ran"
            );
            outputs.push(command_output(output).map_err(failed)?);
        }
        Ok(rendering.text_with_outputs(&outputs))
    }
}

/// What `bash` printed, or how the command failed, from the tool's result.
fn command_output(result: String) -> Result<String, SkillCommandFailure> {
    let (output, last) = result.rsplit_once('\n').unwrap_or(("", &result));
    if let Some(code) = last
        .strip_prefix("[exit code ")
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|code| code.parse().ok())
    {
        return Err(SkillCommandFailure::Exit {
            code,
            output: output.to_owned(),
        });
    }
    if last == "[terminated by a signal]" {
        return Err(SkillCommandFailure::Signal {
            output: output.to_owned(),
        });
    }
    // The tool says so when a command printed nothing; in the text it is nothing.
    Ok(if result == "(no output)" {
        String::new()
    } else {
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tools_result_says_how_the_command_ended() {
        assert_eq!(command_output("hello\n".into()), Ok("hello\n".into()));
        assert_eq!(command_output("(no output)".into()), Ok(String::new()));
        assert_eq!(
            command_output("oops\n[exit code 3]".into()),
            Err(SkillCommandFailure::Exit {
                code: 3,
                output: "oops".into()
            })
        );
        assert_eq!(
            command_output("(no output)\n[terminated by a signal]".into()),
            Err(SkillCommandFailure::Signal {
                output: "(no output)".into()
            })
        );
        // Only the last line counts.
        assert_eq!(
            command_output("[exit code 3]\nfine".into()),
            Ok("[exit code 3]\nfine".into())
        );
    }
}
