//! The whole bundle and a restricted registry are one type answering every question one way: a
//! restriction to every name answers exactly as the bundle does, and a narrower one hides the
//! other skills from every method.

use skills_runtime::{EMPTY_CATALOG, Registry, ResourceError, Skill, SkillLoader, UnknownSkill};

use crate::registries::{MIXED as SKILLS, WITH_RESOURCES};

/// Names asked for besides the bundle's own: unknown ones, typos of real ones, the empty name.
const STRANGERS: [&str; 5] = ["", "unknown", "pdf-form", "plai", "BLOCK"];

const PREAMBLE: &str = "You are a test agent.";

/// Everything a registry answers, for the names in `probes`.
#[derive(Debug, PartialEq)]
struct Answers {
    names: Vec<&'static str>,
    reversed: Vec<&'static str>,
    iter_len: usize,
    len: usize,
    is_empty: bool,
    debug: String,
    catalog: String,
    catalog_xml: String,
    system_prompt: String,
    load_skill_tool_anthropic: Option<String>,
    load_skill_tool_openai: Option<String>,
    names_with_resources: Vec<&'static str>,
    read_resource_tool_anthropic: Option<String>,
    read_resource_tool_openai: Option<String>,
    lookups: Vec<Lookup>,
}

/// What a registry answers about one name.
#[derive(Debug, PartialEq)]
struct Lookup {
    name: String,
    get: Option<&'static Skill>,
    contains: bool,
    load_skill: Result<String, UnknownSkill>,
    /// A conversation's first and second `load_skill`.
    loader: [Result<String, UnknownSkill>; 2],
    read_resource: Vec<Result<String, ResourceError>>,
}

fn probes() -> Vec<&'static str> {
    SKILLS.names().chain(STRANGERS).collect()
}

/// Every resource path of the bundle and one that no skill has.
fn resource_paths() -> Vec<&'static str> {
    let mut paths: Vec<&str> = SKILLS
        .iter()
        .flat_map(|s| s.resources().iter().map(|r| r.path()))
        .collect();
    paths.push("references/missing.md");
    paths
}

fn answers(registry: &Registry) -> Answers {
    let lookups = probes()
        .into_iter()
        .map(|name| {
            let mut loader = SkillLoader::new(registry);
            let mut load = || loader.load(name).map(|l| l.text().to_owned());
            let loader = [load(), load()];
            let read_resource = resource_paths()
                .into_iter()
                .flat_map(|path| {
                    [(None, None), (Some(2), Some(1)), (Some(999), None)]
                        .map(|(offset, limit)| registry.read_resource(name, path, offset, limit))
                })
                .collect();
            Lookup {
                name: name.to_owned(),
                get: registry.get(name),
                contains: registry.contains(name),
                load_skill: registry.load_skill(name),
                loader,
                read_resource,
            }
        })
        .collect();
    Answers {
        names: registry.names().collect(),
        reversed: registry.iter().rev().map(Skill::name).collect(),
        iter_len: registry.iter().len(),
        len: registry.len(),
        is_empty: registry.is_empty(),
        debug: format!("{registry:?}"),
        catalog: registry.catalog().to_owned(),
        catalog_xml: registry.catalog_xml(),
        system_prompt: registry.system_prompt(PREAMBLE),
        load_skill_tool_anthropic: registry.load_skill_tool_anthropic().map(str::to_owned),
        load_skill_tool_openai: registry.load_skill_tool_openai().map(str::to_owned),
        names_with_resources: registry.names_with_resources(),
        read_resource_tool_anthropic: registry.read_resource_tool_anthropic().map(str::to_owned),
        read_resource_tool_openai: registry.read_resource_tool_openai().map(str::to_owned),
        lookups,
    }
}

#[test]
fn a_restriction_to_every_name_answers_exactly_as_the_whole_bundle() {
    let whole = answers(&SKILLS);
    // The bundle is what the test thinks it is: with and without resources, and every name
    // known and every stranger not.
    assert_eq!(whole.names_with_resources, ["greet", "pdf-forms"]);
    assert!(whole.names.contains(&"block") && whole.names.contains(&"plain"));
    assert!(whole.lookups.iter().all(|l| l.contains == l.get.is_some()));
    assert_eq!(
        whole.lookups.iter().filter(|l| !l.contains).count(),
        STRANGERS.len()
    );

    // The restricted registry renders its catalog and tools at run time; the bundle's were
    // rendered by the macro. They must agree byte for byte.
    let all = SKILLS.restrict(SKILLS.names()).unwrap();
    assert_eq!(answers(&all), whole);
    // Order and repetition of the list do not matter.
    let shuffled: Vec<&str> = SKILLS.names().rev().chain(SKILLS.names()).collect();
    assert_eq!(answers(&SKILLS.restrict(shuffled).unwrap()), whole);
    // Nor does restricting again, or cloning.
    assert_eq!(answers(&all.restrict(all.names()).unwrap()), whole);
    assert_eq!(answers(&all.clone()), whole);
}

#[test]
fn a_restriction_to_no_name_answers_as_the_empty_registry() {
    let none = SKILLS.restrict::<_, &str>([]).unwrap();
    assert_eq!(answers(&none), answers(&Registry::empty()));
    assert_eq!(none.catalog(), EMPTY_CATALOG);
    assert_eq!(none.system_prompt(PREAMBLE), PREAMBLE);
    assert_eq!(none.load_skill_tool_anthropic(), None);
    assert_eq!(none.read_resource_tool_openai(), None);
}

#[test]
fn a_restriction_hides_the_other_skills_from_every_method() {
    let shown = ["block", "pdf-forms"];
    let only = SKILLS.restrict(shown).unwrap();
    let hidden: Vec<&str> = SKILLS.names().filter(|n| !shown.contains(n)).collect();
    assert!(hidden.contains(&"plain") && hidden.contains(&"greet"));

    assert_eq!(only.names().collect::<Vec<_>>(), shown);
    assert_eq!(
        only.iter().rev().map(Skill::name).collect::<Vec<_>>(),
        ["pdf-forms", "block"]
    );
    assert_eq!(
        (only.len(), only.iter().len(), only.is_empty()),
        (2, 2, false)
    );
    assert_eq!(format!("{only:?}"), r#"["block", "pdf-forms"]"#);
    // The catalog is the bundle's lines of the shown skills.
    let lines: Vec<&str> = SKILLS
        .catalog()
        .lines()
        .filter(|line| shown.iter().any(|n| line.starts_with(&format!("- {n}: "))))
        .collect();
    assert_eq!(only.catalog(), lines.join("\n"));
    assert_eq!(only.names_with_resources(), ["pdf-forms"]);
    for tool in [
        only.load_skill_tool_anthropic(),
        only.load_skill_tool_openai(),
    ] {
        assert!(
            tool.unwrap().contains(r#""enum":["block","pdf-forms"]"#),
            "{tool:?}"
        );
    }
    for tool in [
        only.read_resource_tool_anthropic(),
        only.read_resource_tool_openai(),
    ] {
        assert!(
            tool.unwrap().contains(r#""enum":["pdf-forms"]"#),
            "{tool:?}"
        );
    }
    let (xml, prompt) = (only.catalog_xml(), only.system_prompt(PREAMBLE));
    assert!(prompt.starts_with(PREAMBLE) && prompt.contains(only.catalog()));
    for name in shown {
        assert!(xml.contains(&format!("<name>\n{name}\n</name>")), "{xml}");
        assert!(only.get(name).is_some() && only.contains(name));
        assert!(only.load_skill(name).is_ok());
    }

    let mut loader = SkillLoader::new(&only);
    for name in &hidden {
        let unknown = |error: &UnknownSkill| {
            assert_eq!(error.requested(), *name);
            assert_eq!(error.available(), shown);
        };
        assert_eq!(only.get(name), None);
        assert!(!only.contains(name));
        unknown(&only.load_skill(name).unwrap_err());
        unknown(&loader.load(name).unwrap_err());
        assert!(!loader.is_loaded(name));
        for path in resource_paths() {
            match only.read_resource(name, path, None, None) {
                Err(ResourceError::UnknownSkill(error)) => unknown(&error),
                other => panic!("{name}/{path}: {other:?}"),
            }
        }
        assert!(!only.catalog().contains(&format!("- {name}: ")));
        assert!(!xml.contains(&format!("\n{name}\n")), "{name} in {xml}");
        assert!(!prompt.contains(&format!("- {name}: ")));
        for tool in [
            only.load_skill_tool_anthropic(),
            only.load_skill_tool_openai(),
            only.read_resource_tool_anthropic(),
            only.read_resource_tool_openai(),
        ] {
            assert!(!tool.unwrap().contains(&format!("\"{name}\"")), "{name}");
        }
        // A hidden skill cannot come back through a further restriction either.
        assert_eq!(only.restrict([name]).unwrap_err().available(), shown);
    }
    // Nor is a hidden skill suggested for a typo of it.
    assert_eq!(only.load_skill("plai").unwrap_err().suggestion(), None);
    assert_eq!(
        SKILLS.load_skill("plai").unwrap_err().suggestion(),
        Some("plain")
    );

    // Narrowing further: a skill without files leaves the resource tool out.
    let block = only.restrict(["block"]).unwrap();
    assert_eq!(block.names().collect::<Vec<_>>(), ["block"]);
    assert!(block.names_with_resources().is_empty());
    assert_eq!(block.read_resource_tool_anthropic(), None);
    assert_eq!(block.read_resource_tool_openai(), None);
    assert!(block.load_skill_tool_anthropic().is_some());
}

#[test]
fn a_typo_in_the_allow_list_is_an_error_naming_it() {
    let error = SKILLS.restrict(["block", "pdf-form"]).unwrap_err();
    assert_eq!(error.requested(), "pdf-form");
    assert_eq!(error.suggestion(), Some("pdf-forms"));
    assert_eq!(error.available(), SKILLS.names().collect::<Vec<_>>());
}

/// The three roots of [`SKILLS`], each compiled alone, as three packs would be (the second is
/// [`WITH_RESOURCES`]).
static OWN: Registry = skills_runtime::embed_skills!("tests/skills");
static VALID: Registry = skills_runtime::embed_skills!("../skills-test-support/fixtures/valid");

#[test]
fn registries_composed_at_run_time_answer_as_one_bundle_of_all_their_skills() {
    let composed = Registry::compose([&VALID, &OWN, &WITH_RESOURCES]).unwrap();
    assert_eq!(answers(&composed), answers(&SKILLS));
    assert_eq!(composed.lock_digest(), None);
    // A composed registry restricts like any other, and composes again.
    let names: Vec<&str> = SKILLS.names().step_by(2).collect();
    assert_eq!(
        answers(&composed.restrict(&names).unwrap()),
        answers(&SKILLS.restrict(&names).unwrap())
    );
    let halves = [
        composed.restrict(SKILLS.names().take(2)).unwrap(),
        composed.restrict(SKILLS.names().skip(2)).unwrap(),
    ];
    assert_eq!(
        answers(&Registry::compose(&halves).unwrap()),
        answers(&SKILLS)
    );
    let typo = composed.restrict(["gret"]).unwrap_err();
    assert_eq!(typo.requested(), "gret");
}

#[test]
fn a_name_in_two_composed_registries_is_an_error_naming_it() {
    let first = SKILLS.names().next().unwrap();
    let one = SKILLS.restrict([first]).unwrap();
    let error = Registry::compose([&SKILLS, &one]).unwrap_err();
    assert_eq!(error.name(), first);
    assert!(
        error
            .to_string()
            .contains(&format!("skill `{first}` is in more than one"))
    );
    assert!(Registry::compose([&OWN, &VALID]).is_ok());
    assert!(Registry::compose(&[]).unwrap().is_empty());
}
