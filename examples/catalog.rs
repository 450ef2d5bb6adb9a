//! What the model sees of the demo bundle in `skills/`, and what progressive disclosure saves.
//!
//! The bundle is validated and compiled into this binary by `embed_skills!`; at run time nothing
//! is read from disk. The example prints:
//!
//! 1. the Markdown catalog (one line per skill, the part of every request that grows with the
//!    number of skills),
//! 2. the system prompt built from a short preamble and that catalog,
//! 3. the `load_skill` tool definition in the Anthropic (`input_schema`) and OpenAI
//!    (`function.parameters`) shapes, with the valid names as an `enum`,
//! 4. a summary: number of skills, catalog bytes against the bytes of all bodies.
//!
//! It needs no optional feature:
//!
//! ```text
//! cargo run --example catalog --no-default-features
//! ```

static SKILLS: skills_runtime::Registry = skills_runtime::embed_skills!("skills");

const PREAMBLE: &str = "You are a careful coding agent working in the user's repository. \
You have the tools bash, read_file, write_file, edit_file and glob.";

fn heading(title: &str) {
    println!("\n== {title} ==\n");
}

fn main() {
    heading("Catalog (Markdown)");
    println!("{}", SKILLS.catalog());

    heading("System prompt");
    println!("{}", SKILLS.system_prompt(PREAMBLE));

    heading("load_skill tool, Anthropic shape");
    println!(
        "{}",
        SKILLS
            .load_skill_tool_anthropic()
            .unwrap_or("(no skills: tool left out)")
    );

    heading("load_skill tool, OpenAI shape");
    println!(
        "{}",
        SKILLS
            .load_skill_tool_openai()
            .unwrap_or("(no skills: tool left out)")
    );

    heading("Summary");
    let summary = skills_demo::DisclosureSummary::of(&SKILLS);
    println!("skills:              {}", summary.skills);
    for skill in SKILLS.iter() {
        println!(
            "  {:<20} v{:<7} {:>6} body bytes  sha256 {}",
            skill.name(),
            skill.version().unwrap_or("-"),
            skill.body().len(),
            &skill.sha256()[..12],
        );
    }
    println!("catalog bytes:       {}", summary.catalog_bytes);
    println!("all bodies, bytes:   {}", summary.body_bytes);
    if summary.body_bytes > 0 {
        println!(
            "Every request carries the catalog ({} bytes) instead of every body ({} bytes): \
             {} bytes saved per request, {:.1}% of the bodies. A body costs tokens only in the \
             conversation that loads it.",
            summary.catalog_bytes,
            summary.body_bytes,
            summary.saved_bytes(),
            summary.saved_percent(),
        );
    }
}
