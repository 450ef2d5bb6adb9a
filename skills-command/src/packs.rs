//! The skill packs a bundle names (`--pack acme-skills`), found as `embed_skills!` finds them:
//! the dependencies of the crate in the current directory, at the versions `Cargo.lock` pins,
//! wherever cargo keeps their files. `cargo metadata` answers all three.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use skills_core::pack::Pack;

/// What this reads of `cargo metadata --format-version 1`.
#[derive(Deserialize)]
struct Metadata {
    packages: Vec<Package>,
    resolve: Option<Resolve>,
}

#[derive(Deserialize)]
struct Package {
    id: String,
    name: String,
    version: String,
    manifest_path: PathBuf,
}

#[derive(Deserialize)]
struct Resolve {
    nodes: Vec<Node>,
}

#[derive(Deserialize)]
struct Node {
    id: String,
    deps: Vec<NodeDep>,
}

#[derive(Deserialize)]
struct NodeDep {
    pkg: String,
}

/// The packs called `names` among the direct dependencies of the crate whose `Cargo.toml` is in
/// `dir`, in the order given; an error naming what is missing otherwise.
pub fn resolve(names: &[String], dir: &Path) -> Result<Vec<Pack>, String> {
    let manifest = dir.join("Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(&manifest)
        .output()
        .map_err(|error| format!("cannot run `cargo metadata` to find the packs: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo metadata` could not read `{}`, so the packs cannot be found: {}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let metadata: Metadata = serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("`cargo metadata` printed what this cannot read: {error}"))?;
    from_metadata(names, &manifest, &metadata)
}

fn from_metadata(
    names: &[String],
    manifest: &Path,
    metadata: &Metadata,
) -> Result<Vec<Pack>, String> {
    let same_file = |path: &Path| {
        path == manifest || std::fs::canonicalize(path).ok() == std::fs::canonicalize(manifest).ok()
    };
    let Some(this) = metadata
        .packages
        .iter()
        .find(|p| same_file(&p.manifest_path))
    else {
        return Err(format!(
            "`{}` is not a package's manifest",
            manifest.display()
        ));
    };
    let deps: Vec<&Package> = metadata
        .resolve
        .iter()
        .flat_map(|resolve| &resolve.nodes)
        .filter(|node| node.id == this.id)
        .flat_map(|node| &node.deps)
        .filter_map(|dep| metadata.packages.iter().find(|p| p.id == dep.pkg))
        .collect();
    names
        .iter()
        .map(|name| {
            let package = deps.iter().find(|p| p.name == *name).ok_or_else(|| {
                format!(
                    "skill pack `{name}` is not a dependency of `{}`: add it to [dependencies]",
                    this.name
                )
            })?;
            Ok(Pack {
                name: package.name.clone(),
                version: package.version.clone(),
                dir: package
                    .manifest_path
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pack_is_a_direct_dependency_at_its_resolved_version() {
        let json = r#"{
            "packages": [
                {"id": "app 0.1.0", "name": "app", "version": "0.1.0", "manifest_path": "/w/app/Cargo.toml"},
                {"id": "acme 1.4.0", "name": "acme-skills", "version": "1.4.0", "manifest_path": "/r/acme-skills-1.4.0/Cargo.toml"},
                {"id": "far 1.0.0", "name": "far-skills", "version": "1.0.0", "manifest_path": "/r/far/Cargo.toml"}
            ],
            "resolve": {"nodes": [
                {"id": "app 0.1.0", "deps": [{"pkg": "acme 1.4.0"}]},
                {"id": "acme 1.4.0", "deps": [{"pkg": "far 1.0.0"}]}
            ]}
        }"#;
        let metadata: Metadata = serde_json::from_str(json).unwrap();
        let manifest = Path::new("/w/app/Cargo.toml");
        let found = from_metadata(&["acme-skills".into()], manifest, &metadata).unwrap();
        assert_eq!(found[0].version, "1.4.0");
        assert_eq!(found[0].dir, Path::new("/r/acme-skills-1.4.0"));
        let indirect = from_metadata(&["far-skills".into()], manifest, &metadata).unwrap_err();
        assert!(indirect.contains("not a dependency of `app`"), "{indirect}");
    }
}
