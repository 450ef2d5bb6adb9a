//! Skill folders a repository cannot carry portably, made at test time: FIFOs and sockets,
//! links that loop, folders nested too deep, ten thousand files, names Windows or macOS refuse
//! and names that are one file there. The trybuild cases that name them (`skills-macro/tests/ui/<case>.rs`,
//! each with its root under this crate's `fixtures/generated/`), the `skills` command's agreement with
//! those cases (`skills-command/tests/all/same_verdicts.rs`) and the command's own tests
//! (`skills-command/tests/all/hostile.rs`) all build their folders here.

use std::fs;
use std::path::{Path, PathBuf};

/// The cases, each a skills root with one error class in it.
pub const CASES: &[&str] = &[
    "special-file",
    "symlink-loop",
    "too-deep",
    "too-many-entries",
    "unportable-name",
    "path-collision",
];

/// Where the trybuild cases find the folders, relative to this crate's folder ([`crate::DIR`]).
pub const GENERATED: &str = "fixtures/generated";

/// A valid `SKILL.md` for the skill `name`.
fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} skill, for tests.\n---\nFollow the steps.\n"
    )
}

fn write_skill(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), skill_md(name)).unwrap();
    dir
}

/// A FIFO at `path`: opening it for reading waits for a writer that never comes.
#[cfg(unix)]
pub fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// A Unix socket at `path` (its listener closed; the file stays).
#[cfg(unix)]
pub fn socket(path: &Path) {
    drop(std::os::unix::net::UnixListener::bind(path).unwrap());
}

#[cfg(unix)]
fn link(target: &str, path: &Path) {
    std::os::unix::fs::symlink(target, path).unwrap();
}

/// Makes the skills root of `case` at `root`, replacing whatever is there.
#[cfg(unix)]
pub fn create(case: &str, root: &Path) {
    if fs::symlink_metadata(root).is_ok() {
        fs::remove_dir_all(root).unwrap();
    }
    fs::create_dir_all(root).unwrap();
    match case {
        // A FIFO and a socket as resources, a FIFO as the trigger file, a FIFO as SKILL.md.
        "special-file" => {
            let alpha = write_skill(root, "alpha");
            fifo(&alpha.join("pipe.md"));
            socket(&alpha.join("socket.md"));
            let beta = write_skill(root, "beta");
            fs::create_dir(beta.join("evals")).unwrap();
            fifo(&beta.join("evals/triggers.json"));
            fs::create_dir(root.join("gamma")).unwrap();
            fifo(&root.join("gamma/SKILL.md"));
        }
        // A link to the skill folder from below it, and two links to `.` side by side (each
        // level doubles the paths: the walk that followed them never ended).
        "symlink-loop" => {
            let alpha = write_skill(root, "alpha");
            fs::create_dir(alpha.join("references")).unwrap();
            fs::write(alpha.join("references/notes.md"), "notes\n").unwrap();
            link("..", &alpha.join("references/up"));
            let beta = write_skill(root, "beta");
            link(".", &beta.join("a"));
            link(".", &beta.join("b"));
        }
        // A file 33 folders down.
        "too-deep" => {
            let alpha = write_skill(root, "alpha");
            let mut dir = alpha.clone();
            for _ in 0..33 {
                dir = dir.join("d");
            }
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("deep.md"), "deep\n").unwrap();
        }
        // One more file than a skill folder may hold.
        "too-many-entries" => {
            let alpha = write_skill(root, "alpha");
            let files = alpha.join("files");
            fs::create_dir(&files).unwrap();
            for i in 0..10_000 {
                fs::write(files.join(format!("{i:05}.txt")), "").unwrap();
            }
        }
        // Names Windows refuses or reads as something else, and a skill folder named after a
        // Windows device. (Names with `\` or a hidden character, which show escaped, are the
        // command's tests': trybuild rewrites every `\` of a snapshot's paths as `/`.)
        "unportable-name" => {
            let alpha = write_skill(root, "alpha");
            for name in ["CON.md", "drive:c.md", "what?.md", "trailing."] {
                fs::write(alpha.join(name), "x\n").unwrap();
            }
            write_skill(root, "aux");
        }
        // Paths that differ only in case or in Unicode normalization: one file on macOS and
        // Windows. `skill.md` beside `SKILL.md` is one of them.
        "path-collision" => {
            let alpha = write_skill(root, "alpha");
            fs::write(alpha.join("Notes.md"), "upper\n").unwrap();
            fs::write(alpha.join("notes.md"), "lower\n").unwrap();
            fs::write(alpha.join("caf\u{e9}.md"), "composed\n").unwrap();
            fs::write(alpha.join("cafe\u{301}.md"), "decomposed\n").unwrap();
            fs::write(alpha.join("skill.md"), "a second manifest\n").unwrap();
        }
        other => panic!("no hostile case `{other}`"),
    }
}

/// The generated folders of every case under a directory, removed when dropped, so that no
/// FIFO or loop is left in the working tree for other tools to trip on.
pub struct Generated {
    dir: PathBuf,
}

impl Generated {
    /// Makes every case under `dir` (`dir/<case>`).
    #[cfg(unix)]
    pub fn create_all(dir: &Path) -> Generated {
        for case in CASES {
            create(case, &dir.join(case));
        }
        Generated {
            dir: dir.to_owned(),
        }
    }
}

impl Drop for Generated {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
