//! Parses `embed_skills!("root", "other/root", key = value, ...)`. The options and the kind of
//! value each takes come from [`skills_core::options::OPTIONS`].

use skills_core::options::{self, Key, Kind, Value};
use syn::ext::IdentExt;
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

/// `["a", "b"]`.
fn string_list(input: ParseStream<'_>) -> syn::Result<Vec<String>> {
    let content;
    syn::bracketed!(content in input);
    let items =
        content.parse_terminated(|item: ParseStream<'_>| item.parse::<LitStr>(), Token![,])?;
    Ok(items.iter().map(LitStr::value).collect())
}

pub fn default_crate_path() -> syn::Path {
    // `skills_core::options::DEFAULT_CRATE`, as tokens; a unit test keeps the two equal.
    syn::parse_quote!(::skills_runtime)
}

/// One option's value, of the kind the table gives it.
enum Parsed {
    /// A validation setting.
    Value(Value),
    /// A path (`crate = ...`).
    Path(syn::Path),
}

fn value(input: ParseStream<'_>, kind: Kind) -> syn::Result<Parsed> {
    let value = match kind {
        Kind::Bytes => Value::Bytes(input.parse::<LitInt>()?.base10_parse()?),
        Kind::Bool => Value::Bool(input.parse::<LitBool>()?.value),
        Kind::List => Value::List(string_list(input)?),
        Kind::Level => {
            let level: LitStr = input.parse()?;
            let Some(parsed) = skills_core::Level::parse(&level.value()) else {
                return Err(syn::Error::new(
                    level.span(),
                    "a lint level is \"allow\", \"warn\" or \"deny\"",
                ));
            };
            Value::Level(parsed)
        }
        Kind::Compat => {
            let compat: LitStr = input.parse()?;
            let Some(parsed) = skills_core::claude_code::Compat::parse(&compat.value()) else {
                return Err(syn::Error::new(
                    compat.span(),
                    "`compat` is \"strict\" or \"claude-code\"",
                ));
            };
            Value::Compat(parsed)
        }
        Kind::Chars => Value::Chars(input.parse::<LitInt>()?.base10_parse()?),
        Kind::File => Value::File(input.parse::<LitStr>()?.value()),
        Kind::Path => return Ok(Parsed::Path(input.parse()?)),
    };
    Ok(Parsed::Value(value))
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
        parse_options(input, &mut args.options, &mut args.krate)?;
        Ok(args)
    }
}

/// `skill_name!("root", "name", key = value, ...)`: one root, one skill name, and the options
/// that decide how the skill is read (as in the root's `embed_skills!` call).
pub struct SkillNameArgs {
    /// The root; a missing root is reported at it.
    pub root: LitStr,
    /// The skill's folder name; the compile errors point at it.
    pub name: LitStr,
    /// How the skill is read.
    pub options: skills_core::Options,
}

impl Parse for SkillNameArgs {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let usage = "expected a skills root and a skill name, e.g. \
                     `skill_name!(\"skills\", \"code-review\")`";
        let root: LitStr = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), usage))?;
        input
            .parse::<Token![,]>()
            .map_err(|e| syn::Error::new(e.span(), usage))?;
        let name: LitStr = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), usage))?;
        let mut options = skills_core::Options::default();
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
            parse_options(input, &mut options, &mut default_crate_path())?;
        }
        Ok(SkillNameArgs {
            root,
            name,
            options,
        })
    }
}

/// The `key = value` options after the roots, by the table.
fn parse_options(
    input: ParseStream<'_>,
    options: &mut skills_core::Options,
    krate: &mut syn::Path,
) -> syn::Result<()> {
    {
        let mut given: Vec<&'static str> = Vec::new();
        while !input.is_empty() {
            // `Ident::parse_any` also takes the keyword `crate`.
            let key = input.call(Ident::parse_any).map_err(|e| {
                syn::Error::new(
                    e.span(),
                    format!(
                        "expected a root string or an option; the options are {}",
                        options::known_options()
                    ),
                )
            })?;
            let name = key.to_string();
            let Some(spec) = options::find(&name) else {
                return Err(syn::Error::new(
                    key.span(),
                    options::unknown_option_message(&name),
                ));
            };
            if given.contains(&spec.name) {
                return Err(syn::Error::new(
                    key.span(),
                    options::repeated_option_message(spec.name),
                ));
            }
            given.push(spec.name);
            input.parse::<Token![=]>()?;
            match (spec.key, value(input, spec.kind)?) {
                (Key::Crate, Parsed::Path(path)) => *krate = path,
                (key_of_spec, Parsed::Value(value)) => options
                    .set(key_of_spec, value)
                    .map_err(|error| syn::Error::new(key.span(), error.to_string()))?,
                (_, Parsed::Path(_)) => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("option `{name}` takes no path"),
                    ));
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
        Ok(())
    }
}
