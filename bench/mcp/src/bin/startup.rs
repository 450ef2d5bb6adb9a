//! Start-up: from spawning a server (`startup -- COMMAND ARGS...`, which must print
//! `listening on URL` first) to its first answered `skills/list`. Prints the microseconds of
//! wall time and of the server's CPU time by then (every thread, from
//! `/proc/PID/task/*/schedstat`: the figure other processes on the machine disturb least), and
//! exits 1 if the answer is not a success (or, with `--expect TEXT`, does not hold TEXT).

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SKILLS_LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let command = args
        .iter()
        .position(|a| a == "--")
        .map(|i| &args[i + 1..])
        .filter(|c| !c.is_empty())
        .ok_or("usage: startup [--expect TEXT] -- COMMAND ARGS...")?;
    let expect = mcp_bench::flag("expect");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Built before the clock starts: the client is not part of the server's start-up.
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()?;
    let started = Instant::now();
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::piped())
        .spawn()?;
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line)?;
    let answer = match line.trim().strip_prefix("listening on ") {
        Some(url) => runtime.block_on(async {
            let response = mcp_bench::post(&client, url, SKILLS_LIST).send().await?;
            let status = response.status().as_u16();
            Ok::<_, reqwest::Error>((status, response.bytes().await?))
        }),
        None => {
            let _ = child.kill();
            return Err(format!("unexpected first line {line:?}").into());
        }
    };
    let elapsed = started.elapsed();
    let cpu_ns = cpu_ns(child.id());
    let _ = child.kill();
    let _ = child.wait();
    let (status, body) = answer?;
    mcp_bench::check_success(status, &body, expect.as_deref())?;
    println!("{} {}", elapsed.as_secs_f64() * 1e6, cpu_ns as f64 / 1e3);
    Ok(())
}

/// The CPU time of every thread of process `pid` so far, in nanoseconds (0 where `/proc` has
/// none).
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}
