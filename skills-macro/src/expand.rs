//! Generates the registry from a checked bundle, or compile errors plus an empty registry.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use skills_core::tables::{Piece, Tables};
use skills_core::{Bundle, SkillDef, display_root};

use crate::args::{Args, SkillNameArgs};

/// How generated code refers to files for `include_bytes!` tracking.
pub struct FileLocation {
    /// When the manifest directory came from the test override, `env!("CARGO_MANIFEST_DIR")`
    /// points elsewhere, so paths are emitted absolute.
    pub overridden: bool,
    /// The directory the crate's own roots resolve against.
    pub manifest_dir: std::path::PathBuf,
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
    if bundle.has_errors() {
        let errors = bundle
            .errors()
            .map(|diagnostic| {
                syn::Error::new(
                    span_for(args, diagnostic.path()),
                    diagnostic.compile_error_text(),
                )
            })
            .collect();
        let fallback = fallback(krate, errors);
        return quote!({ #(#warnings)* #fallback });
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
    // With a lock, the lock is tracked too (editing it rebuilds) and its digest is recorded.
    let (lock_tracking, lock_digest) = match (&bundle.lock_file, &bundle.lock_digest) {
        (Some(file), Some(digest)) => {
            let shown = args.options.lock.as_deref().unwrap_or_default();
            let path = location.include_path(file, shown);
            (
                quote!(
                    const _: &[u8] = ::core::include_bytes!(#path);
                ),
                quote!(::core::option::Option::Some(#digest)),
            )
        }
        _ => (TokenStream::new(), quote!(::core::option::Option::None)),
    };
    // Each pack's variable is read through `option_env!` too, so rustc records it and a pack
    // that moves (a new version, another checkout) rebuilds the crate.
    let pack_tracking = bundle.packs.iter().map(|pack| {
        let (variable, _) = pack.rustc_env();
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#variable);
        )
    });

    let (pieces, tracking) = pieces(bundle, &tables, location);
    let triggers_tracking = trigger_tracking(bundle, location);
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
            let files = tasks.files.iter().map(|(shown, file, _)| {
                let path = location.include_path(file, shown);
                quote!(::core::include_bytes!(#path))
            });
            quote!(::core::option::Option::Some(#krate::__private::Tasks {
                table: #table,
                files: &[#(#files),*],
            }))
        }
        None => quote!(::core::option::Option::None),
    };
    let resources = bundle.skills.iter().flat_map(|skill| {
        let skill_dir = skill.path.trim_end_matches("SKILL.md");
        skill.resources.iter().map(move |resource| {
            let path = &resource.path;
            let bytes = location.include_path(&resource.file, &format!("{skill_dir}{path}"));
            let (is_text, executable) = (resource.is_text, resource.executable);
            quote!(#krate::__private::resource(#path, ::core::include_bytes!(#bytes), #is_text, #executable))
        })
    });
    let count = bundle.skills.len();
    let (names, records, record_starts, hashes, index) = (
        byte_string(&tables.names),
        byte_string(&tables.records),
        byte_string(&tables.record_starts),
        byte_string(&tables.hashes),
        byte_string(&tables.index),
    );
    let (text_len, catalog, roots) = (tables.text.len(), &tables.catalog, &tables.roots);
    let layout_version = skills_core::layout::VERSION;
    quote! {
        {
            #(#warnings)*
            #(#tracking)*
            #(#triggers_tracking)*
            #lock_tracking
            #(#pack_tracking)*
            const TEXT: &str = ::core::concat!(#(#pieces),*);
            // The offsets were computed from the files as the macro read them.
            const _: () = ::core::assert!(
                TEXT.len() == #text_len,
                "a skill file changed while the crate was compiling: build again"
            );
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

/// The arguments of the `concat!` building the text: each file by `include_str!` (which also
/// tracks it) or, when the embedded text differs from the file's bytes (a BOM, CRLF), as a
/// literal of the normalized text, with `include_bytes!` of the file to track it; then the
/// file's tail, when it has one.
fn pieces(
    bundle: &Bundle,
    tables: &Tables,
    location: &FileLocation,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut pieces = Vec::new();
    let mut tracking = Vec::new();
    for piece in &tables.pieces {
        match *piece {
            Piece::File(i) => {
                let skill = &bundle.skills[i];
                let path = location.include_path(&skill.file, &skill.path);
                pieces.push(quote!(::core::include_str!(#path)));
            }
            Piece::Normalized(i) => {
                let skill = &bundle.skills[i];
                let path = location.include_path(&skill.file, &skill.path);
                let text = &skill.text;
                pieces.push(quote!(#text));
                tracking.push(quote!(
                    const _: &[u8] = ::core::include_bytes!(#path);
                ));
            }
            Piece::Tail { start, end } => {
                let tail = &tables.text[start..end];
                pieces.push(quote!(#tail));
            }
        }
    }
    (pieces, tracking)
}

/// `include_bytes!` of every eval file (trigger cases, task cases and the files the task cases
/// copy), embedded or not, so editing one alone rebuilds. The constants are never used, so none
/// of their bytes reach the binary this way.
fn trigger_tracking(bundle: &Bundle, location: &FileLocation) -> Vec<TokenStream> {
    let mut files = Vec::new();
    for skill in &bundle.skills {
        if let Some(triggers) = &skill.triggers {
            files.push((&triggers.file, &triggers.path));
        }
        if let Some(tasks) = &skill.tasks {
            files.push((&tasks.file, &tasks.path));
            files.extend(tasks.fixtures.iter().map(|f| (&f.file, &f.path)));
        }
    }
    files
        .into_iter()
        .map(|(file, shown)| {
            let path = location.include_path(file, shown);
            quote!(
                const _: &[u8] = ::core::include_bytes!(#path);
            )
        })
        .collect()
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
