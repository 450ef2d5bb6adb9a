// The lock was written with the default options; leaving more files out changes what is
// embedded, so it needs a new lock even though no file changed.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/lock-options/skills",
    ignore = ["*.bak"],
    lock = "fixtures/lock-options/skills.lock"
);

fn main() {
    assert!(SKILLS.is_empty());
}
