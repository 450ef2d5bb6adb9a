//! Generates the registry from a checked bundle, or compile errors plus an empty registry.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use skills_core::render::{self, CatalogEntry};
use skills_core::{Bundle, SkillDef, display_root};

use crate::args::{Args, SkillNameArgs};

/// How generated code refers to files for `include_bytes!` tracking.
pub struct FileLocation {
    /// When the manifest directory came from the test override, `env!("CARGO_MANIFEST_DIR")`
    /// points elsewhere, so paths are emitted absolute.
    pub overridden: bool,
}

impl FileLocation {
    /// An expression naming `file` for `include_bytes!`. Normally
    /// `concat!(env!("CARGO_MANIFEST_DIR"), "/skills/x/SKILL.md")`, so the generated code is
    /// the same on every machine.
    fn include_path(&self, file: &std::path::Path, display_path: &str) -> TokenStream {
        let relative = !self.overridden && !std::path::Path::new(display_path).is_absolute();
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

/// The whole expansion.
pub fn expand(args: &Args, bundle: &Bundle, location: &FileLocation) -> TokenStream {
    let krate = &args.krate;
    let warnings: Vec<TokenStream> = bundle
        .warnings()
        .map(|d| warning(span_for(args, d.path()), &d.compile_error_text()))
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

    let tracking = bundle.skills.iter().map(|skill| {
        let path = location.include_path(&skill.file, &skill.path);
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    // Each skill is one literal (file + tail) and one struct of offsets into it.
    let (contents, skills): (Vec<TokenStream>, Vec<TokenStream>) = bundle
        .skills
        .iter()
        .enumerate()
        .map(|(index, skill)| {
            let ident = format_ident!("CONTENT_{}", index);
            let mut text = SkillText::new(&skill.text);
            let expr = skill_expr(krate, &ident, skill, &mut text, location);
            let literal = text.text;
            (quote!(const #ident: &str = #literal;), expr)
        })
        .unzip();

    let entries: Vec<CatalogEntry<'_>> =
        bundle.skills.iter().map(SkillDef::catalog_entry).collect();
    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
    let catalog = render::catalog_markdown(&entries);
    let index = skills_core::index::build(&names);
    // `load_skill` offers only the skills the model is shown; the index still has every one.
    let listed = render::listed_names(&entries);
    let (tool_anthropic, tool_openai) = if listed.is_empty() {
        (String::new(), String::new())
    } else {
        (
            render::load_skill_tool_anthropic(&listed),
            render::load_skill_tool_openai(&listed),
        )
    };

    let registry = quote!(
        #krate::__private::registry(SKILLS, &[#(#index),*], #catalog, #tool_anthropic, #tool_openai)
    );
    // With a lock, the lock is tracked too (editing it rebuilds) and its digest is recorded.
    let (lock_tracking, registry) = match (&bundle.lock_file, &bundle.lock_digest) {
        (Some(file), Some(digest)) => {
            let shown = args.options.lock.as_deref().unwrap_or_default();
            let path = location.include_path(file, shown);
            (
                quote!(
                    const _: &[u8] = ::core::include_bytes!(#path);
                ),
                quote!(#krate::__private::with_lock_digest(#registry, #digest)),
            )
        }
        _ => (TokenStream::new(), registry),
    };

    quote! {
        {
            #(#warnings)*
            #(#tracking)*
            #lock_tracking
            #(#contents)*
            const SKILLS: &[#krate::Skill] = &[#(#skills),*];
            #registry
        }
    }
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
/// makes rustc print its note as a warning at our span, in normal cargo output.
fn warning(span: Span, text: &str) -> TokenStream {
    quote::quote_spanned! {span=>
        const _: () = {
            #[deprecated(note = #text)]
            #[allow(non_camel_case_types)]
            struct skill_lint;
            let _ = skill_lint;
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

/// The one literal of a skill: the normalized file, then a tail for the strings that are not
/// in the file verbatim (hashes, source path, decoded escapes or folded scalars). Every string
/// of the skill is a `[start, end]` range of it, so it is stored once and needs no pointer.
struct SkillText {
    text: String,
}

impl SkillText {
    fn new(content: &str) -> Self {
        SkillText {
            text: content.to_owned(),
        }
    }

    /// The range of `value`: where it already appears (file or tail), else appended to the tail.
    fn span(&mut self, value: &str) -> TokenStream {
        let start = match self.text.find(value) {
            Some(start) => start, // an empty value is found at 0
            None => {
                self.text.push_str(value);
                self.text.len() - value.len()
            }
        };
        let (start, end) = (start as u32, (start + value.len()) as u32);
        quote!([#start, #end])
    }
}

fn skill_expr(
    krate: &syn::Path,
    content_ident: &syn::Ident,
    skill: &SkillDef,
    text: &mut SkillText,
    location: &FileLocation,
) -> TokenStream {
    let content_len = skill.text.len() as u32;
    let name = text.span(&skill.name.value);
    let description = text.span(&skill.description.value);
    let (body_start, body_end) = (skill.body.start as u32, skill.body.end as u32);
    let sha256 = text.span(&skill.sha256);
    let path = text.span(&skill.path);
    let extra = extra_expr(krate, skill, text, location);
    quote! {
        #krate::__private::skill(#krate::__private::SkillParts {
            text: #content_ident,
            content_len: #content_len,
            name: #name,
            description: #description,
            body: [#body_start, #body_end],
            sha256: #sha256,
            path: #path,
            extra: #extra,
        })
    }
}

fn extra_expr(
    krate: &syn::Path,
    skill: &SkillDef,
    text: &mut SkillText,
    location: &FileLocation,
) -> TokenStream {
    let mut fields = Vec::new();
    let claude = &skill.claude_code;
    for (name, value) in [
        ("license", &skill.license),
        ("compatibility", &skill.compatibility),
        ("version", &skill.version),
        ("when_not_to_use", &skill.when_not_to_use),
        ("display_name", &claude.display_name),
        ("when_to_use", &claude.when_to_use),
        ("argument_hint", &claude.argument_hint),
        ("model", &claude.model),
        ("agent", &claude.agent),
        ("hooks", &claude.hooks),
    ] {
        if let Some(value) = value {
            let field = format_ident!("{}", name);
            let span = text.span(&value.value);
            fields.push(quote!(#field: #span));
        }
    }
    // Only non-empty lists are written out; the rest come from `NO_EXTRA`, which keeps the
    // expansion small (every literal costs type-checking time in the user's build).
    let strings = |items: &mut dyn Iterator<Item = &String>| items.map(|t| quote!(#t)).collect();
    let lists: [(&str, Vec<TokenStream>); 8] = [
        (
            "metadata",
            skill
                .metadata
                .iter()
                .map(|(k, v)| quote!((#k, #v)))
                .collect(),
        ),
        ("allowed_tools", strings(&mut skill.allowed_tools.iter())),
        ("tags", strings(&mut skill.tags.iter())),
        (
            "requires",
            strings(&mut skill.requires.iter().map(|s| &s.value)),
        ),
        (
            "conflicts_with",
            strings(&mut skill.conflicts_with.iter().map(|s| &s.value)),
        ),
        ("arguments", strings(&mut claude.arguments.iter())),
        (
            "disallowed_tools",
            strings(&mut claude.disallowed_tools.iter()),
        ),
        ("paths", strings(&mut claude.paths.iter())),
    ];
    for (name, items) in lists {
        if !items.is_empty() {
            let field = format_ident!("{}", name);
            fields.push(quote!(#field: &[#(#items),*]));
        }
    }
    for (name, value) in [
        ("model_invocable", claude.model_invocable),
        ("user_invocable", claude.user_invocable),
    ] {
        if !value {
            let field = format_ident!("{}", name);
            fields.push(quote!(#field: false));
        }
    }
    if let Some(effort) = &claude.effort {
        let variant = format_ident!("{}", format!("{:?}", effort.value));
        fields.push(quote!(effort: ::core::option::Option::Some(#krate::Effort::#variant)));
    }
    if let Some(context) = &claude.context {
        let variant = format_ident!("{}", format!("{:?}", context.value));
        fields.push(quote!(context: ::core::option::Option::Some(#krate::SkillContext::#variant)));
    }
    if let Some(shell) = &claude.shell {
        let variant = format_ident!("{}", format!("{:?}", shell.value));
        fields.push(quote!(shell: ::core::option::Option::Some(#krate::Shell::#variant)));
    }
    if !skill.resources.is_empty() {
        let skill_dir = skill.path.trim_end_matches("SKILL.md");
        let resources = skill.resources.iter().map(|resource| {
            let path = &resource.path;
            let bytes = location.include_path(&resource.file, &format!("{skill_dir}{path}"));
            let (is_text, executable) = (resource.is_text, resource.executable);
            quote!(#krate::__private::resource(#path, ::core::include_bytes!(#bytes), #is_text, #executable))
        });
        let hash = text.span(&skill.tree_sha256);
        fields.push(quote!(resources: &[#(#resources),*]));
        fields.push(quote!(tree_sha256: #hash));
    }
    if fields.is_empty() {
        // No optional field: no `SkillExtra` at all (a null pointer needs no relocation).
        return quote!(::core::option::Option::None);
    }
    quote! {
        ::core::option::Option::Some(&#krate::__private::SkillExtra {
            #(#fields,)*
            ..#krate::__private::NO_EXTRA
        })
    }
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
