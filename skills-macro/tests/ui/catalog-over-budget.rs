// A catalog longer than `catalog_budget` fails the build, naming the longest entries.
static SKILLS: skills_runtime::Registry =
    skills_runtime::embed_skills!("fixtures/catalog-over-budget", catalog_budget = 150);

fn main() {}
