const REVIEW: &str = skills_runtime::skill_name!("fixtures/skill-name", "alpha-reveiw");

fn main() {
    assert!(REVIEW.is_empty());
}
