//! Benchmark of the agent harness against a local mock server (no model latency).
//!
//! ```text
//! cargo bench --bench agent
//! ```
//!
//! Measures, on the same machine in the same run:
//! - per-turn time with a 100 KB conversation: the provider request through the harness
//!   (build the request from the conversation, serialize, POST with the retry wrapper, parse the
//!   reply) against a baseline of the raw HTTP round trip of the same bytes to the same mock;
//!   plus the harness's CPU work alone (no network), a full `Agent::run` turn (which includes
//!   the context budget's check), and the budget's size estimate of the whole request without
//!   its per-message cache (the loop sizes only the messages new since the last request);
//! - the same per-turn time with the reply streamed (server-sent events, `AgentBuilder::stream`)
//!   against the raw round trip of the same event-stream bytes;
//! - time to the first text of a reply that arrives in 20 pieces over 2 s, streamed and not
//!   (read whole, the text can only show once the last piece is in), through
//!   `Agent::run_with_events`, the path the example agent prints from;
//! - peak RSS of a 50-turn tool-calling run, against a baseline process that only starts the
//!   runtime and the mock and makes 50 raw requests of the same size.
//!
//! The RSS figures come from `VmHWM` in `/proc/self/status` of child processes (Linux).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use skills_runtime::agent::provider::anthropic::{self, Anthropic};
use skills_runtime::agent::{
    self, Agent, AgentEvent, AssistantTurn, HttpOptions, Message, PermissionPolicy, Provider,
    Request, RetryPolicy, ToolCall, ToolResult,
};
use skills_test_support::mock::{MockServer, Reply};

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

const ITERATIONS: usize = 300;
const WARMUP: usize = 30;
const KEY: &str = "bench-key";

fn final_reply() -> serde_json::Value {
    json!({
        "id": "msg_bench", "type": "message", "role": "assistant", "model": "bench",
        "content": [{"type": "text", "text": "Done: nothing else to change."}],
        "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 25000, "output_tokens": 12, "cache_read_input_tokens": 0,
                  "cache_creation_input_tokens": 0}
    })
}

fn tool_reply(n: usize) -> serde_json::Value {
    json!({
        "id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "bench",
        "content": [
            {"type": "text", "text": "Reading the file again."},
            {"type": "tool_use", "id": format!("toolu_{n}"), "name": "read_file",
             "input": {"path": "data.txt"}}
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 1000, "output_tokens": 20}
    })
}

/// The final reply as the Messages event stream, its text in `pieces`; each event is one
/// element, so a paced mock can send them apart.
fn final_reply_events(pieces: &[&str]) -> Vec<String> {
    let event = |value: serde_json::Value| {
        format!(
            "event: {}\ndata: {value}\n\n",
            value["type"].as_str().unwrap()
        )
    };
    let mut events = vec![
        event(json!({"type": "message_start", "message": {
            "id": "msg_bench", "type": "message", "role": "assistant", "model": "bench",
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 25000, "output_tokens": 1}}})),
        event(json!({"type": "content_block_start", "index": 0,
                     "content_block": {"type": "text", "text": ""}})),
    ];
    for piece in pieces {
        events.push(event(json!({"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": piece}})));
    }
    events.push(event(json!({"type": "content_block_stop", "index": 0})));
    events.push(event(json!({"type": "message_delta",
                             "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                             "usage": {"output_tokens": 12}})));
    events.push(event(json!({"type": "message_stop"})));
    events
}

fn sse_reply(events: &[String]) -> Reply {
    Reply::Http {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        body: events.concat().into_bytes(),
    }
}

/// About 100 KB of conversation: 25 rounds of a tool call and a 4 KB result.
fn conversation_100kb() -> Vec<Message> {
    let line = "fn example(input: &str) -> Result<usize, Error> { Ok(input.len()) } // padding\n";
    let chunk: String = line.repeat(4096 / line.len() + 1)[..4096].to_owned();
    let mut messages = vec![Message::User("Summarize the project files.".into())];
    for i in 0..25 {
        messages.push(Message::Assistant(AssistantTurn {
            text: "Reading the next file.".into(),
            tool_calls: vec![ToolCall {
                id: format!("toolu_{i}"),
                name: "read_file".into(),
                input: json!({"path": format!("src/file_{i}.rs")}),
            }],
            raw: None,
            stop_reason: Some("tool_use".into()),
        }));
        messages.push(Message::ToolResults(vec![ToolResult {
            call_id: format!("toolu_{i}"),
            name: "read_file".into(),
            content: chunk.clone(),
            is_error: false,
        }]));
    }
    messages.push(Message::User("Now conclude.".into()));
    messages
}

fn options() -> HttpOptions {
    HttpOptions {
        retry: RetryPolicy::none(),
        ..HttpOptions::default()
    }
}

/// The provider every measurement uses: Anthropic's wire format at the mock `url`, no retries.
fn bench_provider(url: &str) -> Anthropic {
    Anthropic::builder(KEY)
        .model("bench")
        .base_url(url)
        .http(options())
        .build()
        .unwrap()
}

struct Stats {
    median: Duration,
    p90: Duration,
    mean: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let n = samples.len();
    Stats {
        median: samples[n / 2],
        p90: samples[n * 9 / 10],
        mean: samples.iter().sum::<Duration>() / n as u32,
    }
}

fn us(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// The baseline: `WARMUP + ITERATIONS` raw POSTs of `body` with a plain reqwest client, each
/// body read whole; the times after the warm-up.
async fn raw_round_trips(client: &reqwest::Client, url: &str, body: &[u8]) -> Vec<Duration> {
    let mut times = Vec::new();
    for i in 0..WARMUP + ITERATIONS {
        let started = Instant::now();
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_vec())
            .send()
            .await
            .unwrap();
        let bytes = response.bytes().await.unwrap();
        assert!(!bytes.is_empty());
        if i >= WARMUP {
            times.push(started.elapsed());
        }
    }
    times
}

/// The harness: `WARMUP + ITERATIONS` provider turns of `request`; the times after the warm-up.
async fn provider_turns(provider: &dyn Provider, request: Request<'_>) -> Vec<Duration> {
    let mut times = Vec::new();
    for i in 0..WARMUP + ITERATIONS {
        let started = Instant::now();
        let response = provider.complete(request).await.unwrap();
        assert_eq!(response.turn.text, "Done: nothing else to change.");
        if i >= WARMUP {
            times.push(started.elapsed());
        }
    }
    times
}

async fn latency() {
    let server = MockServer::repeating(Reply::json(200, &final_reply())).await;
    server.stop_recording();
    let provider = Arc::new(bench_provider(&server.url()));
    let agent = Agent::builder(provider.clone())
        .skills(&SKILLS)
        .build()
        .unwrap();
    let messages = conversation_100kb();
    let request = Request::new(agent.system_prompt(), agent.tool_definitions(), &messages);
    let body = provider.request_body(request).unwrap();
    let reply_bytes = serde_json::to_vec(&final_reply()).unwrap();

    // Baseline: the raw round trip of the same bytes with a plain reqwest client.
    let client = reqwest::Client::new();
    let url = format!("{}/v1/messages", server.url());
    let raw = raw_round_trips(&client, &url, &body).await;

    // The harness: one provider turn on the same conversation.
    let harness = provider_turns(provider.as_ref(), request).await;

    // The harness's own CPU work, no network: encode the request, parse the reply.
    let mut cpu = Vec::new();
    for i in 0..WARMUP + ITERATIONS {
        let started = Instant::now();
        let bytes = provider.request_body(request).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&reply_bytes).unwrap();
        let parsed = anthropic::parse_response(value).unwrap();
        assert!(bytes.len() > 100_000 && parsed.turn.tool_calls.is_empty());
        if i >= WARMUP {
            cpu.push(started.elapsed());
        }
    }

    // The context budget's estimate of the whole request, from scratch.
    let mut estimate = Vec::new();
    for i in 0..WARMUP + ITERATIONS {
        let started = Instant::now();
        let bytes = agent::budget::request_bytes(&request);
        assert!(bytes > 100_000);
        if i >= WARMUP {
            estimate.push(started.elapsed());
        }
    }

    // A whole `Agent::run` turn (prompt pushed, request, reply appended), starting from a
    // 100 KB conversation that grows by two short messages per run.
    let mut session = agent.session();
    agent
        .run(&mut session, &"x".repeat(100 * 1024))
        .await
        .unwrap();
    let mut runs = Vec::new();
    for i in 0..WARMUP + ITERATIONS {
        let started = Instant::now();
        agent.run(&mut session, "continue").await.unwrap();
        if i >= WARMUP {
            runs.push(started.elapsed());
        }
    }

    // Streamed: the same turn with the reply as an event stream, against the raw round trip of
    // the same stream bytes.
    let stream_events = final_reply_events(&["Done: ", "nothing else ", "to change."]);
    let stream_server = MockServer::repeating(sse_reply(&stream_events)).await;
    stream_server.stop_recording();
    let stream_provider = bench_provider(&stream_server.url());
    let stream_url = format!("{}/v1/messages", stream_server.url());
    let ignore = |_: &AgentEvent<'_>| {};
    let streamed_request = Request {
        events: Some(&ignore),
        ..request
    };
    let stream_body = stream_provider.request_body(streamed_request).unwrap();
    let raw_stream = raw_round_trips(&client, &stream_url, &stream_body).await;
    let streamed = provider_turns(&stream_provider, streamed_request).await;

    let (raw, harness, cpu, runs) = (stats(raw), stats(harness), stats(cpu), stats(runs));
    let (raw_stream, streamed) = (stats(raw_stream), stats(streamed));
    let estimate = stats(estimate);
    println!(
        "Per-turn time, {} KB request body, {ITERATIONS} iterations (µs):\n",
        body.len() / 1024
    );
    println!("| measurement | median | p90 | mean |");
    println!("|---|---:|---:|---:|");
    for (name, s) in [
        (
            "baseline: raw reqwest POST + read body, same bytes, same mock",
            &raw,
        ),
        (
            "harness: `Provider::complete` (build, serialize, POST, parse)",
            &harness,
        ),
        (
            "harness: `Agent::run`, one turn (100 KB+ conversation)",
            &runs,
        ),
        (
            "harness CPU only: build + serialize request, parse reply",
            &cpu,
        ),
        (
            "baseline, streamed: raw reqwest POST + read the event stream, same bytes",
            &raw_stream,
        ),
        (
            "harness, streamed: `Provider::complete` (build, serialize, POST, decode events)",
            &streamed,
        ),
        (
            "context budget: size estimate of the whole request, uncached",
            &estimate,
        ),
    ] {
        println!(
            "| {name} | {} | {} | {} |",
            us(s.median),
            us(s.p90),
            us(s.mean)
        );
    }
    let overhead = harness.median.saturating_sub(raw.median);
    println!(
        "\nHarness overhead per turn (median `Provider::complete` minus median baseline): {} µs \
         (target < 1000 µs)",
        us(overhead)
    );
    let overhead = streamed.median.saturating_sub(raw_stream.median);
    println!(
        "Harness overhead per turn, streamed (median streamed `Provider::complete` minus median \
         streamed baseline): {} µs (target < 1000 µs)\n",
        us(overhead)
    );
}

/// Time to the first text and to the end of a run whose reply arrives in 20 pieces over 2 s,
/// with the reply streamed and read whole.
async fn first_text() {
    const PIECES: usize = 20;
    const OVER: Duration = Duration::from_secs(2);
    const RUNS: usize = 5;
    let interval = OVER / (PIECES as u32 - 1);
    let words: Vec<String> = (0..PIECES).map(|i| format!("word{i} ")).collect();
    let text = words.concat();
    // Streamed: the first piece carries the message start and the first word, the last one
    // the last word and the end events.
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let events = final_reply_events(&words);
    let last = events.len() - 3;
    let mut stream_chunks = vec![events[..3].concat().into_bytes()];
    stream_chunks.extend(events[3..last].iter().map(|e| e.clone().into_bytes()));
    stream_chunks
        .last_mut()
        .unwrap()
        .extend(events[last..].concat().into_bytes());
    assert_eq!(stream_chunks.len(), PIECES);
    // Whole: the same reply as one JSON body, cut in 20 pieces.
    let mut whole = final_reply();
    whole["content"][0]["text"] = json!(text);
    let whole = serde_json::to_vec(&whole).unwrap();
    let whole_chunks: Vec<Vec<u8>> = whole
        .chunks(whole.len().div_ceil(PIECES))
        .map(<[u8]>::to_vec)
        .collect();
    assert_eq!(whole_chunks.len(), PIECES);

    let mut rows = Vec::new();
    for (name, stream, chunks, content_type) in [
        (
            "streamed (`stream(true)`)",
            true,
            stream_chunks,
            "text/event-stream",
        ),
        (
            "read whole (`stream(false)`)",
            false,
            whole_chunks,
            "application/json",
        ),
    ] {
        let server = MockServer::repeating(Reply::Paced {
            status: 200,
            content_type: content_type.into(),
            chunks,
            interval,
            cut: false,
        })
        .await;
        server.stop_recording();
        let provider = bench_provider(&server.url());
        let agent = Agent::builder(Arc::new(provider))
            .skills(&SKILLS)
            .stream(stream)
            .build()
            .unwrap();
        let (mut first, mut done) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let mut session = agent.session();
            let started = Instant::now();
            let mut first_at = None;
            let out = agent
                .run_with_events(&mut session, "write twenty words", |event| {
                    if matches!(event, AgentEvent::TextDelta(_)) && first_at.is_none() {
                        first_at = Some(started.elapsed());
                    }
                })
                .await
                .unwrap();
            done.push(started.elapsed());
            assert_eq!(out.text, text);
            first.push(first_at.unwrap());
        }
        rows.push((name, stats(first).median, stats(done).median));
    }
    println!(
        "Time to the first text, reply in {PIECES} pieces over {} s, median of {RUNS} runs of \
         `Agent::run_with_events` (ms):\n",
        OVER.as_secs()
    );
    println!("| reply | first text | whole run |");
    println!("|---|---:|---:|");
    let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
    for (name, first, done) in &rows {
        println!("| {name} | {} | {} |", ms(*first), ms(*done));
    }
    println!(
        "\nFirst text: {} ms streamed, {} ms read whole (when the last piece is in): {} ms \
         sooner.\n",
        ms(rows[0].1),
        ms(rows[1].1),
        ms(rows[1].1.saturating_sub(rows[0].1))
    );
}

/// Runs in a child process: `baseline` or `harness`; prints `VmHWM` in kB.
async fn rss_child(mode: &str) {
    if mode == "baseline" {
        let server = MockServer::repeating(Reply::json(200, &final_reply())).await;
        server.stop_recording();
        let client = reqwest::Client::new();
        let body = vec![b' '; 100 * 1024];
        for _ in 0..50 {
            let response = client
                .post(format!("{}/v1/messages", server.url()))
                .body(body.clone())
                .send()
                .await
                .unwrap();
            response.bytes().await.unwrap();
        }
        println!("{}", peak_rss_kb());
        return;
    }
    let dir = std::env::temp_dir().join(format!("agent-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("data.txt"), "0123456789abcdef\n".repeat(120)).unwrap();
    let mut replies: Vec<Reply> = (0..49).map(|n| Reply::json(200, &tool_reply(n))).collect();
    replies.push(Reply::json(200, &final_reply()));
    let server = MockServer::start(replies).await;
    server.stop_recording();
    let provider = bench_provider(&server.url());
    let agent = Agent::builder(Arc::new(provider))
        .skills(&SKILLS)
        .workdir(&dir)
        .max_turns(50)
        .permissions(PermissionPolicy::new())
        .build()
        .unwrap();
    let mut session = agent.session();
    let out = agent
        .run(&mut session, &"x".repeat(100 * 1024))
        .await
        .unwrap();
    assert_eq!(out.turns, 50);
    let size: usize = session
        .conversation()
        .messages()
        .iter()
        .map(Message::text_len)
        .sum();
    std::fs::remove_dir_all(&dir).ok();
    println!("{} {} {}", peak_rss_kb(), out.turns, size);
}

fn child(mode: &str) -> Vec<u64> {
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args(["--rss-child", mode])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    if args.get(1).map(String::as_str) == Some("--rss-child") {
        runtime.block_on(rss_child(&args[2]));
        return;
    }
    runtime.block_on(latency());
    runtime.block_on(first_text());
    let baseline = child("baseline");
    let harness = child("harness");
    println!("Peak RSS (VmHWM), separate processes:\n");
    println!("| process | peak RSS |");
    println!("|---|---:|");
    println!(
        "| baseline: runtime + mock + 50 raw 100 KB requests | {:.1} MB |",
        baseline[0] as f64 / 1024.0
    );
    println!(
        "| harness: 50-turn run ({} turns, 100 KB prompt, {} KB conversation at the end) | {:.1} MB |",
        harness[1],
        harness[2] / 1024,
        harness[0] as f64 / 1024.0
    );
    println!(
        "\nHarness peak RSS: {:.1} MB (target < 30 MB); {:.1} MB above the baseline.",
        harness[0] as f64 / 1024.0,
        harness[0].saturating_sub(baseline[0]) as f64 / 1024.0
    );
}
