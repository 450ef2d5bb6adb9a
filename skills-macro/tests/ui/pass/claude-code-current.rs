// Skills written for today's Claude Code compile under `compat = "claude-code"`: `display-name`,
// `default-enabled` and `fallback` in kebab-case, snake_case and camelCase, `background` with
// `context: fork`, `context: inline`, and booleans written `yes`, `On`, `0`, `"true"`.

use skills_runtime::SkillContext;

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/claude-code-current", compat = "claude-code");

fn main() {
    let notes = SKILLS.get("release-notes").unwrap();
    assert_eq!(notes.display_name(), "Release Notes");
    assert!(!notes.default_enabled());
    assert!(notes.fallback());
    assert_eq!(notes.background(), Some(false));
    assert!(notes.model_invocable());
    let triage = SKILLS.get("triage").unwrap();
    assert_eq!(triage.display_name(), "Issue Triage");
    assert!(triage.default_enabled());
    assert_eq!(triage.background(), Some(true));
    assert!(triage.user_invocable());
    let bot = SKILLS.get("review-bot").unwrap();
    assert_eq!(bot.display_name(), "Review Bot");
    assert!(bot.default_enabled() && !bot.fallback());
    assert_eq!(bot.background(), None);
    assert_eq!(bot.context(), SkillContext::Inline);
    // A display name finds its skill, as a name does.
    assert_eq!(SKILLS.get("Review Bot").unwrap().name(), "review-bot");
}
