//! Generates the registry from a checked bundle, or compile errors plus an empty registry.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use skills_core::{Bundle, SkillDef, display_root, tracking};

use crate::args::{Args, SkillNameArgs};

/// How generated code names files for `include_bytes!`, which only tracks them, and which files
/// need it.
pub struct FileLocation {
    /// When the manifest directory came from the test override, `env!("CARGO_MANIFEST_DIR")`
    /// points elsewhere, so paths are emitted absolute.
    pub overridden: bool,
    /// The directory the crate's own roots resolve against.
    pub manifest_dir: std::path::PathBuf,
    /// The folders the crate's build script has cargo watch (relative to the manifest
    /// directory, as roots are shown): files under them need no `include_bytes!`.
    pub watched: Vec<String>,
}

impl FileLocation {
    /// An expression naming `file` for `include_bytes!`. Normally
    /// `concat!(env!("CARGO_MANIFEST_DIR"), "/skills/x/SKILL.md")`, so the generated code is
    /// the same on every machine. A pack's files (shown as `acme-skills@1.4.0/...`) live
    /// elsewhere, and are named by their absolute path.
    fn include_path(&self, file: &std::path::Path, display_path: &str) -> TokenStream {
        let relative = !self.overridden
            && !std::path::Path::new(display_path).is_absolute()
            && file == self.manifest_dir.join(display_path);
        if relative {
            let suffix = format!("/{display_path}");
            quote!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix))
        } else {
            // `file` is already absolute: discovery joined it onto the manifest directory.
            let absolute = file.to_string_lossy().into_owned();
            quote!(#absolute)
        }
    }
}

/// The whole expansion. With `frontmatter_json` each record also carries the skill's
/// frontmatter as JSON text (see the `frontmatter-json` feature).
pub fn expand(
    args: &Args,
    bundle: &Bundle,
    location: &FileLocation,
    frontmatter_json: bool,
) -> TokenStream {
    let krate = &args.krate;
    let warnings: Vec<TokenStream> = bundle
        .warnings()
        .map(|d| warning(span_for(args, d.path()), d.code(), &d.compile_error_text()))
        .collect();
    // Compile errors at the root literal each file came from, then the empty registry.
    let failed = |diagnostics: &mut dyn Iterator<Item = &skills_core::Diagnostic>| {
        let errors = diagnostics
            .map(|d| syn::Error::new(span_for(args, d.path()), d.compile_error_text()))
            .collect();
        let fallback = fallback(krate, errors);
        quote!({ #(#warnings)* #fallback })
    };
    if bundle.has_errors() {
        return failed(&mut bundle.errors());
    }

    let roots: Vec<String> = args.roots.iter().map(syn::LitStr::value).collect();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    let embed_evals = args.options.embed_evals;
    let tables = match skills_core::tables::build(bundle, &roots, frontmatter_json, embed_evals) {
        Ok(tables) => tables,
        Err(error) => {
            let error = syn::Error::new(args.roots[0].span(), error.to_string());
            let fallback = fallback(krate, vec![error]);
            return quote!({ #(#warnings)* #fallback });
        }
    };
    // The resources as they were checked and hashed: read again, and refused if they changed.
    let resource_bytes = match bundle.checked_resource_bytes() {
        Ok(bytes) => bytes,
        Err(changed) => return failed(&mut changed.iter()),
    };
    // The files task cases copy, when they are embedded: the same, read again and compared.
    let fixture_bytes = match tables
        .tasks
        .as_ref()
        .map(|_| bundle.checked_fixture_bytes())
    {
        None => Vec::new(),
        Some(Ok(bytes)) => bytes,
        Some(Err(changed)) => return failed(&mut changed.iter()),
    };
    // With a lock, its digest is recorded (and the lock is tracked below).
    let lock_digest = match &bundle.lock_digest {
        Some(digest) => quote!(::core::option::Option::Some(#digest)),
        None => quote!(::core::option::Option::None),
    };
    // Each pack's variable is read through `option_env!` too, so rustc records it and a pack
    // that moves (a new version, another checkout) rebuilds the crate.
    let pack_tracking = bundle.packs.iter().map(|pack| {
        let (variable, _) = pack.rustc_env();
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#variable);
        )
    });
    let tracking = tracking(bundle, location, args.options.lock.as_deref());
    let triggers = match &tables.triggers {
        Some(triggers) => {
            let (table, queries) = (byte_string(&triggers.table), &triggers.queries);
            quote!(::core::option::Option::Some(#krate::__private::Triggers {
                table: #table,
                queries: #queries,
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let tasks = match &tables.tasks {
        Some(tasks) => {
            let table = byte_string(&tasks.table);
            let files = fixture_bytes.iter().map(|bytes| byte_string(bytes));
            quote!(::core::option::Option::Some(#krate::__private::Tasks {
                table: #table,
                files: &[#(#files),*],
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let resources = bundle
        .skills
        .iter()
        .flat_map(|skill| &skill.resources)
        .zip(&resource_bytes)
        .map(|(resource, bytes)| {
            let path = &resource.path;
            let bytes = byte_string(bytes);
            let (is_text, executable) = (resource.is_text, resource.executable);
            quote!(#krate::__private::resource(#path, #bytes, #is_text, #executable))
        });
    let count = bundle.skills.len();
    let (names, records, record_starts, hashes, index) = (
        byte_string(&tables.names),
        byte_string(&tables.records),
        byte_string(&tables.record_starts),
        byte_string(&tables.hashes),
        byte_string(&tables.index),
    );
    let (catalog, roots) = (&tables.catalog, &tables.roots);
    // The text the rules checked and hashed, as one literal: what rustc reads of the files
    // itself (for tracking) never reaches the binary.
    let text = proc_macro2::Literal::string(&tables.text);
    let layout_version = skills_core::layout::VERSION;
    quote! {
        {
            #(#warnings)*
            #tracking
            #(#pack_tracking)*
            const TEXT: &str = #text;
            const _: () = ::core::assert!(
                #krate::__private::LAYOUT_VERSION == #layout_version,
                "skills-macro and skills-runtime are of different releases (their registry layouts differ): use the same version of both"
            );
            static CACHE: #krate::__private::Cache = #krate::__private::Cache::new();
            static BUNDLE: #krate::__private::BundleData = #krate::__private::BundleData {
                skills: &SKILLS,
                text: TEXT,
                names: #names,
                records: #records,
                hashes: #hashes,
                index: #index,
                roots: &[#(#roots),*],
                resources: &[#(#resources),*],
                catalog: #catalog,
                lock_digest: #lock_digest,
                triggers: #triggers,
                tasks: #tasks,
                cache: &CACHE,
            };
            static SKILLS: [#krate::Skill; #count] =
                #krate::__private::skills::<#count>(&BUNDLE, #record_starts);
            #krate::__private::registry(&BUNDLE)
        }
    }
}

/// Tracking, so that editing or deleting a file the bundle was read from (each `SKILL.md`,
/// resource, trigger file, task file and fixture, and the lock) rebuilds the crate. It only tracks: the bytes the
/// binary carries are the literals the macro writes from what it checked, so a file rewritten
/// after the macro read it (an editor saving, a checkout, another build step) cannot reach the
/// binary unreviewed.
///
/// A file under a folder the crate's build script watches (`skills_runtime::build::watch`, which
/// lists them in [`WATCHED_ENV`](skills_core::tracking::WATCHED_ENV)) is tracked by cargo
/// already. Every other file is named by an `include_bytes!` in a function nothing calls: rustc
/// reads the file once more and records it, without evaluating or embedding the bytes (the
/// cheapest of the forms measured: a constant array of them costs the compiler more).
fn tracking(bundle: &Bundle, location: &FileLocation, lock: Option<&str>) -> TokenStream {
    let watched: Vec<&str> = location.watched.iter().map(String::as_str).collect();
    let mut files: Vec<(&std::path::Path, String)> = Vec::new();
    for skill in &bundle.skills {
        files.push((&skill.file, skill.path.clone()));
        let skill_dir = skill.path.trim_end_matches("SKILL.md");
        for resource in &skill.resources {
            files.push((&resource.file, format!("{skill_dir}{}", resource.path)));
        }
        if let Some(triggers) = &skill.triggers {
            files.push((&triggers.file, triggers.path.clone()));
        }
        if let Some(tasks) = &skill.tasks {
            files.push((&tasks.file, tasks.path.clone()));
            files.extend(
                tasks
                    .fixtures
                    .iter()
                    .map(|f| (f.file.as_path(), f.path.clone())),
            );
        }
    }
    if let (Some(file), Some(shown)) = (&bundle.lock_file, lock) {
        files.push((file, shown.replace('\\', "/")));
    }
    let paths: Vec<TokenStream> = files
        .iter()
        .filter(|(_, shown)| location.overridden || !tracking::is_watched(shown, &watched))
        .map(|(file, shown)| location.include_path(file, shown))
        .collect();
    if paths.is_empty() {
        return TokenStream::new();
    }
    quote!(
        #[allow(dead_code)]
        fn __skills_tracked_files() {
            #(let _ = ::core::include_bytes!(#paths);)*
        }
    )
}

/// The span to blame: the root literal the file came from.
fn span_for(args: &Args, path: &str) -> Span {
    args.roots
        .iter()
        .find(|root| {
            let shown = display_root(&root.value());
            path == shown || path.starts_with(&format!("{shown}/"))
        })
        .unwrap_or(&args.roots[0])
        .span()
}

/// A warning on stable Rust: proc macros cannot emit one directly, but using a deprecated item
/// makes rustc print its note as a warning at our span, in normal cargo output. rustc writes
/// `use of deprecated constant `<path>`` before the note, so the path says where the warning
/// comes from and which rule it is (`SKILLS::_::skills_bundle_lint::long_body`, the rule's name
/// as the `embed_skills!` option that sets its level); the note starts with the rule's code.
fn warning(span: Span, code: skills_core::Code, text: &str) -> TokenStream {
    let rule = code.as_str().replace('-', "_");
    let rule = syn::parse_str::<syn::Ident>(&rule)
        .unwrap_or_else(|_| syn::Ident::new("lint", Span::call_site()));
    let rule = syn::Ident::new(&rule.to_string(), span);
    quote::quote_spanned! {span=>
        const _: () = {
            #[allow(non_upper_case_globals)]
            mod skills_bundle_lint {
                #[deprecated(note = #text)]
                pub const #rule: () = ();
            }
            skills_bundle_lint::#rule
        };
    }
}

/// Compile errors, then an empty registry so the user's code still type-checks.
pub fn fallback(krate: &syn::Path, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        {
            #(#errors)*
            #krate::__private::EMPTY_REGISTRY
        }
    }
}

/// A byte-string literal: one token however long, so a table costs rustc next to nothing.
fn byte_string(bytes: &[u8]) -> proc_macro2::Literal {
    proc_macro2::Literal::byte_string(bytes)
}

/// `skill_name!`: the name, with the skill's file tracked, or the errors at the name literal.
pub fn skill_name(
    args: &SkillNameArgs,
    found: Result<SkillDef, Vec<skills_core::Diagnostic>>,
    location: &FileLocation,
) -> TokenStream {
    match found {
        Ok(skill) => {
            let path = location.include_path(&skill.file, &skill.path);
            let name = &args.name;
            quote!({
                const _: &[u8] = ::core::include_bytes!(#path);
                #name
            })
        }
        Err(diagnostics) => name_fallback(
            diagnostics
                .iter()
                .map(|d| syn::Error::new(args.name.span(), d.compile_error_text()))
                .collect(),
        ),
    }
}

/// Compile errors, then a `&'static str` so the user's code still type-checks.
pub fn name_fallback(errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote!({
        #(#errors)*
        ""
    })
}
