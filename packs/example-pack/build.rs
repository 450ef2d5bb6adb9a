//! Publishes this pack's `skills/` folder to the crates that depend on it.

fn main() {
    skills_runtime::build::pack();
}
