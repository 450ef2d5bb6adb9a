// `#[skills_runtime::main]` runs an async body on the runtime it starts after the entry line.
#[skills_runtime::main]
fn main() {}
