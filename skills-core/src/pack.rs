//! Skill packs: crates that carry a `skills/` folder for other crates to embed.
//!
//! A pack tells its dependents where its folder is through cargo's build-script metadata: the
//! pack's `Cargo.toml` has a `links` key and its build script prints `cargo::metadata=...`
//! lines (its name, version and manifest directory), which cargo hands to the build script of
//! every crate that depends on it directly as `DEP_<LINKS>_<KEY>` variables. The dependent's
//! build script passes each pack on to the compiler as one `cargo::rustc-env` variable, which
//! `embed_skills!(..., packs = ["acme-skills"])` reads. So a pack is an ordinary dependency
//! wherever cargo put its files (registry, git checkout, path): `Cargo.lock` pins it and
//! `cargo update -p acme-skills` moves it.
//!
//! This module is the one definition of that protocol, used by the build-script helpers of the
//! runtime, the macro and the `skills` command. It needs no dependencies.

use std::path::PathBuf;

/// The folder of a pack that holds its skills, beside its `Cargo.toml`.
pub const PACK_FOLDER: &str = "skills";

/// The build-script metadata keys a pack prints, as cargo upper-cases them in the
/// `DEP_<LINKS>_<KEY>` variables of its dependents: the pack's name, version and manifest
/// directory.
pub const METADATA_KEYS: [&str; 3] = ["SKILLS_PACK_NAME", "SKILLS_PACK_VERSION", "SKILLS_PACK_DIR"];

/// The prefix of the compiler variable that carries one pack to `embed_skills!`.
const ENV_PREFIX: &str = "SKILLS_PACK_";

/// One pack as a build sees it: a crate, at one version, with its files in one place.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pack {
    /// The crate's name, as `[dependencies]` spells it (`acme-skills`).
    pub name: String,
    /// The crate's version (`1.4.0`).
    pub version: String,
    /// The crate's manifest directory; its skills are in [`PACK_FOLDER`] there.
    pub dir: PathBuf,
}

impl Pack {
    /// The folder of the pack's skills.
    pub fn skills_dir(&self) -> PathBuf {
        self.dir.join(PACK_FOLDER)
    }

    /// `acme-skills@1.4.0`, cargo's spelling of a package at a version: how diagnostics and
    /// the lock name the pack.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// The pack's folder as diagnostics and the lock show it: `acme-skills@1.4.0/skills`, so
    /// every path of a pack file names its crate and version.
    pub fn shown_root(&self) -> String {
        format!("{}/{PACK_FOLDER}", self.id())
    }

    /// The variable of the consuming crate's compiler that carries this pack
    /// ([`env_name`] of its name) and its value: the version, a space, the directory.
    pub fn rustc_env(&self) -> (String, String) {
        (
            env_name(&self.name),
            format!("{} {}", self.version, self.dir.display()),
        )
    }

    /// The pack called `name` from the value of its compiler variable (see
    /// [`rustc_env`](Self::rustc_env)); `None` when the value is not of that form.
    pub fn from_rustc_env(name: &str, value: &str) -> Option<Pack> {
        let (version, dir) = value.split_once(' ')?;
        (!version.is_empty() && !dir.is_empty()).then(|| Pack {
            name: name.to_owned(),
            version: version.to_owned(),
            dir: PathBuf::from(dir),
        })
    }
}

/// `SKILLS_PACK_ACME_SKILLS` for `acme-skills`: crate names are ASCII letters, digits, `-`
/// and `_`, and cargo does not let two crates differ only by `-` and `_`.
pub fn env_name(crate_name: &str) -> String {
    let upper: String = crate_name
        .chars()
        .map(|c| match c {
            '-' => '_',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    format!("{ENV_PREFIX}{upper}")
}

/// The packs among the variables of a build script (`DEP_<LINKS>_SKILLS_PACK_NAME` and its two
/// siblings for each pack it depends on directly), sorted by name. A pack whose three
/// variables are not all there is left out.
pub fn from_build_env(vars: impl IntoIterator<Item = (String, String)>) -> Vec<Pack> {
    let vars: std::collections::BTreeMap<String, String> = vars.into_iter().collect();
    let [name_key, version_key, dir_key] = METADATA_KEYS;
    let mut packs: Vec<Pack> = vars
        .iter()
        .filter_map(|(key, name)| {
            let links = key.strip_prefix("DEP_")?.strip_suffix(name_key)?;
            let version = vars.get(&format!("DEP_{links}{version_key}"))?;
            let dir = vars.get(&format!("DEP_{links}{dir_key}"))?;
            Some(Pack {
                name: name.clone(),
                version: version.clone(),
                dir: PathBuf::from(dir),
            })
        })
        .collect();
    packs.sort();
    packs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack() -> Pack {
        Pack {
            name: "acme-skills".into(),
            version: "1.4.0".into(),
            dir: PathBuf::from("/src/acme skills"),
        }
    }

    #[test]
    fn a_pack_round_trips_through_its_compiler_variable() {
        let (name, value) = pack().rustc_env();
        assert_eq!(name, "SKILLS_PACK_ACME_SKILLS");
        assert_eq!(value, "1.4.0 /src/acme skills");
        assert_eq!(Pack::from_rustc_env("acme-skills", &value), Some(pack()));
        assert_eq!(Pack::from_rustc_env("acme-skills", "1.4.0"), None);
        assert_eq!(pack().shown_root(), "acme-skills@1.4.0/skills");
    }

    #[test]
    fn packs_are_found_by_their_metadata_whatever_their_links_name() {
        let vars = [
            ("DEP_ACME_SKILLS_PACK_NAME", "acme-skills"),
            ("DEP_ACME_SKILLS_PACK_VERSION", "1.4.0"),
            ("DEP_ACME_SKILLS_PACK_DIR", "/src/acme skills"),
            ("DEP_Z_SKILLS_PACK_NAME", "no-version"),
            ("DEP_Z_SKILLS_PACK_DIR", "/z"),
            ("DEP_OPENSSL_ROOT", "/usr"),
        ];
        let found = from_build_env(vars.map(|(k, v)| (k.to_owned(), v.to_owned())));
        assert_eq!(found, [pack()]);
    }
}
