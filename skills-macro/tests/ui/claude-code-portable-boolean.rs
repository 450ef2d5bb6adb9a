// `yes` is a boolean to Claude Code only: the `portable` lint names it (denied here).
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/claude-code-portable-boolean",
    compat = "claude-code",
    portable = "deny"
);

fn main() {}
