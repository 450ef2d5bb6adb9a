//! Parses `embed_skills!("root", "other/root", key = value, ...)`.

use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitBool, LitInt, LitStr, Token};

/// The parsed invocation.
pub struct Args {
    /// The roots, in the order given; their spans carry the compile errors.
    pub roots: Vec<LitStr>,
    /// Validation options.
    pub options: skills_core::Options,
    /// Path of the runtime crate in generated code.
    pub krate: syn::Path,
}

const OPTIONS_HELP: &str = "known options: `max_file_size = <bytes>`, `max_bundle_size = <bytes>`, \
`allow_unknown_keys = <bool>`, `infer_missing_fields = <bool>`, `ignore = [\"pattern\", ...]`, \
`allowed_hosts = [\"host\", ...]`, a lint level such as `long_body = \"deny\"` (lints: long_body, \
similar_descriptions, prompt_override, external_urls), `crate = <path>`";

/// `["a", "b"]`.
fn string_list(input: ParseStream<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::bracketed!(content in input);
    let items =
        content.parse_terminated(|item: ParseStream<'_>| item.parse::<LitStr>(), Token![,])?;
    Ok(items.iter().map(LitStr::value).collect())
}

pub fn default_crate_path() -> syn::Path {
    syn::parse_quote!(::skills_runtime)
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = Args {
            roots: Vec::new(),
            options: skills_core::Options::default(),
            krate: default_crate_path(),
        };
        while input.peek(LitStr) {
            args.roots.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        if args.roots.is_empty() {
            return Err(
                input.error("expected at least one skills root, e.g. `embed_skills!(\"skills\")`")
            );
        }
        while !input.is_empty() {
            if input.peek(Token![crate]) {
                input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                args.krate = input.parse()?;
            } else {
                let key: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        format!("expected a root string or an option; {OPTIONS_HELP}"),
                    )
                })?;
                input.parse::<Token![=]>()?;
                match key.to_string().as_str() {
                    "max_file_size" => {
                        args.options.max_file_size = input.parse::<LitInt>()?.base10_parse()?
                    }
                    "allow_unknown_keys" => {
                        args.options.allow_unknown_keys = input.parse::<LitBool>()?.value
                    }
                    "max_bundle_size" => {
                        args.options.max_bundle_size = input.parse::<LitInt>()?.base10_parse()?
                    }
                    "infer_missing_fields" => {
                        args.options.infer_missing_fields = input.parse::<LitBool>()?.value
                    }
                    "ignore" => args.options.ignore = string_list(input)?,
                    "allowed_hosts" => args.options.lints.allowed_hosts = string_list(input)?,
                    lint if skills_core::lint::LINT_NAMES.contains(&lint) => {
                        let level: LitStr = input.parse()?;
                        let Some(parsed) = skills_core::Level::parse(&level.value()) else {
                            return Err(syn::Error::new(
                                level.span(),
                                "a lint level is \"allow\", \"warn\" or \"deny\"",
                            ));
                        };
                        args.options.lints.set(lint, parsed);
                    }
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}`; {OPTIONS_HELP}"),
                        ));
                    }
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            if input.peek(LitStr) {
                return Err(input.error("roots must come before options"));
            }
        }
        Ok(args)
    }
}
