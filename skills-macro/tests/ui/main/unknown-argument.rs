// The attribute's arguments are `#[tokio::main]`'s (`flavor`, `worker_threads`) and `crate`.
#[skills_runtime::main(flavour = "current_thread")]
async fn main() {}
