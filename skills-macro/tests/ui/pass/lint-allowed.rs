// Lint levels are set per invocation: allowing one silences it (the case denies warnings).
#![deny(warnings)]

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/prompt-override",
    prompt_override = "allow",
    external_urls = "deny",
    allowed_hosts = ["docs.rs"],
    ignore = ["*.bak"],
    infer_missing_fields = false,
    max_bundle_size = 1_000_000,
);

fn main() {
    assert_eq!(SKILLS.len(), 1);
}
