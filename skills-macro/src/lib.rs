//! The `embed_skills!` procedural macro. Use it through `skills-runtime`, which re-exports it
//! and owns the types it expands to.
//!
//! The stages: `args` parses the invocation, `skills_core::load` discovers, parses and checks
//! the skills, `expand` generates the registry, or the compile errors plus an empty registry of
//! the right type.

mod args;
mod expand;

use proc_macro::TokenStream;

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
    let (manifest_dir, overridden) = match std::env::var_os(MANIFEST_DIR_OVERRIDE) {
        Some(dir) => (std::path::PathBuf::from(dir), true),
        None => match std::env::var_os("CARGO_MANIFEST_DIR") {
            Some(dir) => (std::path::PathBuf::from(dir), false),
            None => {
                let error = syn::Error::new(
                    args.roots[0].span(),
                    "CARGO_MANIFEST_DIR is not set: embed_skills! must be built by cargo",
                );
                return expand::fallback(&args.krate, vec![error]).into();
            }
        },
    };
    let roots: Vec<String> = args.roots.iter().map(syn::LitStr::value).collect();
    let root_refs: Vec<&str> = roots.iter().map(String::as_str).collect();
    let bundle = skills_core::load(&manifest_dir, &root_refs, &args.options);
    let location = expand::FileLocation { overridden };
    expand::expand(&args, &bundle, &location).into()
}

#[cfg(test)]
mod tests;
