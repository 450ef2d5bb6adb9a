// A runtime that reads another registry layout than the macro wrote is a compile error, not
// wrong data. Another release is faked by a runtime path (`crate = ...`) that re-exports
// skills_runtime with a different layout version.
mod other_release {
    pub use skills_runtime::*;
    pub mod __private {
        pub use skills_runtime::__private::*;
        pub const LAYOUT_VERSION: u32 = 0;
    }
}

static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/valid", crate = crate::other_release);

fn main() {
    assert_eq!(SKILLS.len(), 2);
}
