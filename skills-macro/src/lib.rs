//! The `embed_skills!` procedural macro. Use it through `skills-runtime`, which re-exports it
//! and owns the types it expands to.
//!
//! The stages: `args` parses the invocation, the `packs` it names are read from the variables
//! the crate's build script set, `skills_core::load_packs` discovers, parses and checks the
//! skills of the roots and the packs (with the cache in `OUT_DIR` when the crate has one,
//! reusing the results of unchanged skill folders), `expand` generates the registry, or the compile errors plus an
//! empty registry of the right type.

// The workspace forbids `unsafe` through its lint table; this crate's table leaves it out for
// its trybuild test, which sets an environment variable.
#![forbid(unsafe_code)]

mod args;
mod expand;
#[cfg(feature = "main")]
mod main_attr;

use proc_macro::TokenStream;
use skills_core::pack::{self, Pack};

/// Set by tests that run the macro from a generated crate (trybuild), so fixture roots resolve
/// against the real test crate rather than trybuild's scratch project.
const MANIFEST_DIR_OVERRIDE: &str = "SKILLS_MANIFEST_DIR_OVERRIDE";

/// Compiles skill folders into a `skills_runtime::Registry`. See the `skills-runtime` docs.
#[proc_macro]
pub fn embed_skills(input: TokenStream) -> TokenStream {
    let args = match syn::parse::<args::Args>(input) {
        Ok(args) => args,
        Err(error) => return expand::fallback(&args::default_crate_path(), vec![error]).into(),
    };
    let Some((manifest_dir, overridden)) = manifest_dir() else {
        let error = syn::Error::new(
            args.roots[0].span(),
            "CARGO_MANIFEST_DIR is not set: embed_skills! must be built by cargo",
        );
        return expand::fallback(&args.krate, vec![error]).into();
    };
    let roots: Vec<String> = args.roots.iter().map(syn::LitStr::value).collect();
    let root_refs: Vec<&str> = roots.iter().map(String::as_str).collect();
    let packs = match packs(&args.options.packs, args.roots[0].span()) {
        Ok(packs) => packs,
        Err(errors) => return expand::fallback(&args.krate, errors).into(),
    };
    // With a build script, cargo gives the crate an `OUT_DIR`: the cache of per-file results
    // lives there, so a rebuild re-reads only the skills that changed.
    let out_dir = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from);
    let bundle = skills_core::load_packs(
        &manifest_dir,
        &root_refs,
        &packs,
        &args.options,
        out_dir.as_deref(),
    );
    let location = expand::FileLocation {
        overridden,
        manifest_dir,
        watched: watched_folders(),
    };
    // Only for the MCP server, whose dependency on this crate turns the feature on: a binary
    // without it does not carry a second copy of every frontmatter.
    let frontmatter_json = cfg!(feature = "frontmatter-json");
    expand::expand(&args, &bundle, &location, frontmatter_json).into()
}

/// The packs named by the `packs` option, as the crate's build script passed them on
/// (`skills_runtime::build::packs()`), or an error for each one it did not.
fn packs(names: &[String], span: proc_macro2::Span) -> Result<Vec<Pack>, Vec<syn::Error>> {
    let mut packs = Vec::new();
    let mut errors = Vec::new();
    for name in names {
        let variable = pack::env_name(name);
        let value = std::env::var(&variable).ok();
        match value.and_then(|value| Pack::from_rustc_env(name, &value)) {
            Some(pack) => packs.push(pack),
            None => errors.push(syn::Error::new(
                span,
                format!(
                    "skill pack `{name}` is not visible here: add `{name}` to [dependencies] and \
                     call `skills_runtime::build::packs();` in build.rs, which passes every pack \
                     among the dependencies on to `embed_skills!` (as `{variable}`)"
                ),
            )),
        }
    }
    if errors.is_empty() {
        Ok(packs)
    } else {
        Err(errors)
    }
}

/// The folders the crate's build script has cargo watch (`skills_runtime::build::watch`), which
/// it passes on in a compiler variable. Only believed when the crate has a build script (cargo
/// then sets `OUT_DIR`): a variable left in a shell must not stop the tracking of a crate
/// without one.
fn watched_folders() -> Vec<String> {
    if std::env::var_os("OUT_DIR").is_none() {
        return Vec::new();
    }
    let value = std::env::var(skills_core::tracking::WATCHED_ENV).unwrap_or_default();
    skills_core::tracking::decode(&value)
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The directory roots resolve against, and whether it came from the test override.
fn manifest_dir() -> Option<(std::path::PathBuf, bool)> {
    match std::env::var_os(MANIFEST_DIR_OVERRIDE) {
        Some(dir) => Some((std::path::PathBuf::from(dir), true)),
        None => std::env::var_os("CARGO_MANIFEST_DIR").map(|dir| (dir.into(), false)),
    }
}

/// Checks at build time that a root holds a valid skill of that name, and expands to the name
/// as a `&'static str`. See the `skills-runtime` docs.
#[proc_macro]
pub fn skill_name(input: TokenStream) -> TokenStream {
    let args = match syn::parse::<args::SkillNameArgs>(input) {
        Ok(args) => args,
        Err(error) => return expand::name_fallback(vec![error]).into(),
    };
    let Some((manifest_dir, overridden)) = manifest_dir() else {
        let error = syn::Error::new(
            args.root.span(),
            "CARGO_MANIFEST_DIR is not set: skill_name! must be built by cargo",
        );
        return expand::name_fallback(vec![error]).into();
    };
    let packs = match packs(&args.options.packs, args.root.span()) {
        Ok(packs) => packs,
        Err(errors) => return expand::name_fallback(errors).into(),
    };
    let found = skills_core::load_one_with_packs(
        &manifest_dir,
        &args.root.value(),
        &packs,
        &args.name.value(),
        &args.options,
    );
    let location = expand::FileLocation {
        overridden,
        manifest_dir,
        watched: Vec::new(),
    };
    expand::skill_name(&args, found, &location).into()
}

/// The `main` of a program that runs the agent: the sandbox's entry line, then a tokio runtime.
/// See `skills_runtime::main`.
#[cfg(feature = "main")]
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    main_attr::expand(args.into(), item.into()).into()
}

#[cfg(test)]
mod tests;
