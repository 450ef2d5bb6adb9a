//! A bounded load against several servers at once, interleaved: `--rounds R` rounds, each
//! sending one chunk of `--requests N` POSTs (`--concurrency C` at a time, keep-alive
//! connections) to every `--target URL BODY` in turn, the order reversed every other round so
//! that a busy moment of the machine hits every server alike. Every response is checked to be a
//! success (holding `--expect TEXT` when given). A first chunk per target warms up and is not
//! counted.
//!
//! Prints one JSON line per target: the median of the rounds' requests per second, p50 and p99
//! over every counted request, and the error count; exits 1 if any response failed.
//!
//! It runs on one thread, so that on a small machine it leaves the other cores to the servers;
//! every server measured gets the same client.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Target {
    url: Arc<str>,
    body: &'static str,
    client: reqwest::Client,
    rps: Vec<f64>,
    latencies: Vec<Duration>,
    errors: Vec<String>,
}

/// `requests` POSTs to `target`, `concurrency` at a time: the seconds taken, each latency and
/// each failure.
async fn chunk(
    target: &Target,
    requests: usize,
    concurrency: usize,
    expect: Option<&'static str>,
) -> (f64, Vec<Duration>, Vec<String>) {
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (client, next, url, body) = (
                target.client.clone(),
                next.clone(),
                target.url.clone(),
                target.body,
            );
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                let mut errors = Vec::new();
                while next.fetch_add(1, Ordering::Relaxed) < requests {
                    let sent = Instant::now();
                    let outcome = match mcp_bench::post(&client, &url, body).send().await {
                        Ok(response) => {
                            let status = response.status().as_u16();
                            match response.bytes().await {
                                Ok(bytes) => mcp_bench::check_success(status, &bytes, expect),
                                Err(e) => Err(e.to_string()),
                            }
                        }
                        Err(e) => Err(e.to_string()),
                    };
                    latencies.push(sent.elapsed());
                    if let Err(e) = outcome {
                        errors.push(e);
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(requests);
    let mut errors = Vec::new();
    for worker in workers {
        match worker.await {
            Ok((l, e)) => {
                latencies.extend(l);
                errors.extend(e);
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    (start.elapsed().as_secs_f64(), latencies, errors)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: load --requests N --concurrency C --rounds R [--expect TEXT] \
                 --target URL BODY [--target URL BODY ...]";
    let requests: usize = mcp_bench::flag("requests").ok_or(usage)?.parse()?;
    let concurrency: usize = mcp_bench::flag("concurrency").ok_or(usage)?.parse()?;
    let rounds: usize = mcp_bench::flag("rounds").ok_or(usage)?.parse()?;
    let expect: Option<&'static str> = mcp_bench::flag("expect").map(|e| &*e.leak());
    let args: Vec<String> = std::env::args().collect();
    let mut targets = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if arg == "--target" {
            let (url, body) = match (args.get(i + 1), args.get(i + 2)) {
                (Some(url), Some(body)) => (url, body),
                _ => return Err(usage.into()),
            };
            targets.push(Target {
                url: url.as_str().into(),
                body: body.clone().leak(),
                client: reqwest::Client::builder()
                    .pool_max_idle_per_host(concurrency)
                    .timeout(Duration::from_secs(10))
                    .build()?,
                rps: Vec::new(),
                latencies: Vec::new(),
                errors: Vec::new(),
            });
        }
    }
    if targets.is_empty() {
        return Err(usage.into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        for target in &mut targets {
            let (_, _, errors) = chunk(target, requests, concurrency, expect).await;
            target.errors.extend(errors);
        }
        for round in 0..rounds {
            let order: Vec<usize> = if round % 2 == 0 {
                (0..targets.len()).collect()
            } else {
                (0..targets.len()).rev().collect()
            };
            for i in order {
                let (seconds, latencies, errors) =
                    chunk(&targets[i], requests, concurrency, expect).await;
                let target = &mut targets[i];
                target.rps.push(latencies.len() as f64 / seconds);
                target.latencies.extend(latencies);
                target.errors.extend(errors);
            }
        }
    });
    let mut failed = false;
    for target in &mut targets {
        target.latencies.sort();
        target.rps.sort_by(f64::total_cmp);
        let latencies = &target.latencies;
        let percentile = |p: f64| {
            let rank = ((p * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
            latencies[rank - 1].as_secs_f64() * 1e6
        };
        println!(
            "{}",
            serde_json::json!({
                "url": &*target.url,
                "requests": latencies.len(),
                "errors": target.errors.len(),
                "rps": target.rps[target.rps.len() / 2],
                "rps_min": target.rps[0],
                "rps_max": target.rps[target.rps.len() - 1],
                "p50_us": percentile(0.50),
                "p99_us": percentile(0.99),
                "first_error": target.errors.first(),
            })
        );
        if let Some(first) = target.errors.first() {
            eprintln!(
                "{}: {} responses failed; first: {first}",
                target.url,
                target.errors.len()
            );
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
    Ok(())
}
