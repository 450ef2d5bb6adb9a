// Two swapped letters are one edit: `alpah` suggests `alpha`.
const ALPHA: &str = skills_runtime::skill_name!("fixtures/skill-name-transposed", "alpah");

fn main() {
    assert!(ALPHA.is_empty());
}
