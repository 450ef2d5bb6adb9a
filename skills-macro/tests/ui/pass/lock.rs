// Every embedded file matches the lock (one SKILL.md has CRLF line endings: the lock hashes
// the bytes on disk, as `sha256sum` does), so the bundle compiles and carries the lock's digest.
static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!(
    "fixtures/lock-good/skills",
    lock = "fixtures/lock-good/skills.lock"
);
static UNLOCKED: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/lock-good/skills");

fn main() {
    assert_eq!(SKILLS.names().collect::<Vec<_>>(), ["alpha", "beta"]);
    let digest = SKILLS.lock_digest().expect("built with a lock");
    assert_eq!(digest.len(), 64);
    assert!(digest.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert_eq!(UNLOCKED.lock_digest(), None);
    assert_eq!(SKILLS.restrict(["beta"]).unwrap().lock_digest(), Some(digest));
}
