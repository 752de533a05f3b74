//! ctxc: compact stored LLM agent transcripts offline, in their own format.
//!
//! The binary is a thin shell over [`run`]: it parses the command line into [`cli::Cli`] and
//! maps the returned [`ExitStatus`] to the process exit code.
//!
//! # Module map, in the order data flows through a run
//!
//! | stage | modules |
//! |---|---|
//! | command line and settings | [`cli`] (clap definitions), [`config`] (flags over `CTXC_*` over YAML), [`commands`] (one per subcommand), [`exit`] (the exit status and its merge rule) |
//! | finding inputs | [`discover`] (paths, globs, stdin), [`sessions`] (`@ID` in the clients' stores), [`shard`], [`store`] (object storage), [`dataset`] (Parquet rows) |
//! | reading | [`json`] (span-preserving JSON), [`transcript`] (the format-neutral model and one adapter per format) |
//! | measuring | [`tokens`] (counting), [`count`] (context tokens of a conversation), [`calibrate`] (the provider's own count), [`trigger`] (whether compaction is due) |
//! | repairing | [`repair`] (orphaned calls, broken chains, replayed history, bad lines, oversized sessions) |
//! | compacting | [`pipeline`] (one transcript end to end), [`engine`] (one conversation's strategy chain), [`plan`] (the working edit), [`strategy`] (one file per strategy), [`summarizer`] (extractive and LLM summaries), [`preserve`] (what never changes), [`facts`] and [`retention`] (paths, commands, errors, requests kept) |
//! | writing and proving | [`verify`] (the invariants, checked on every output), [`archive`] (what `restore` needs), [`inplace`] (`--in-place` without loss), [`manifest`] (resumable fleet runs), [`outputs`] (one `Destination` per output: names, atomic writes, stdout, temporary files) |
//! | measuring fidelity | [`eval`] (probes an agent must still answer; `ctxc eval`) |
//! | reporting | [`report`] (table, JSON, YAML, markdown; the compact report's data and table), [`progress`] (stderr), [`human`] (thousands, plurals and warnings, for every layer), [`time`] (RFC 3339 stamps) |
//! | converting | [`convert`] (OpenAI chat ⇄ ATIF, for `ctxc convert`) |
//! | embedding | [`api`] (one text in, compacted text and report out: the Python package's core) |
//! | support | [`workers`] (inputs over the thread pool, in order), [`panics`] (a panic made one input's error), [`failpoint`] (crash points for tests), [`resident`] (releasing read-only pages) |
//!
//! Each folder is a module with its `mod.rs`; an adapter, a strategy or a command too large
//! for one file becomes a folder of the same name. Formats are registered in one line of
//! `formats!` (`transcript/mod.rs`), strategies in one line of `strategies!`
//! (`strategy/mod.rs`); `CONTRIBUTING.md` walks through both.
//!
//! Comments cite the product spec as "DESIGN" (`../shared/DESIGN.md`, beside the checkout)
//! and its source documents as "seed 000"–"seed 004" (`../shared/seeds/000_….txt` to `004_….txt`).

pub mod api;
pub mod archive;
pub mod calibrate;
pub mod cli;
pub(crate) mod commands;
pub mod config;
pub mod convert;
pub mod count;
pub(crate) mod dataset;
pub(crate) mod discover;
pub(crate) mod engine;
pub mod eval;
pub mod exit;
pub mod facts;
pub(crate) mod failpoint;
pub mod fit;
pub(crate) mod human;
pub(crate) mod inplace;
pub(crate) mod json;
pub(crate) mod manifest;
pub(crate) mod outputs;
pub(crate) mod panics;
pub mod pipeline;
pub(crate) mod plan;
pub(crate) mod preserve;
pub(crate) mod progress;
pub mod repair;
pub(crate) mod report;
pub(crate) mod resident;
pub mod retention;
pub(crate) mod sessions;
pub(crate) mod shard;
pub mod store;
pub mod strategy;
pub mod summarizer;
pub(crate) mod time;
pub mod tokens;
pub mod transcript;
pub mod trigger;
pub(crate) mod verify;
pub(crate) mod workers;

pub use exit::ExitStatus;
/// Standard output, where a failed write is an error (kept at its old path: `outputs::stdout`).
pub use outputs::stdout as output;

/// Runs the command the user asked for.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitStatus> {
    // This thread is one of the workers (`--jobs 1`: the only one): a file `compact` reads
    // here and plans on other threads would free its decoded text into one allocator arena
    // while planning fills another. Without `--jobs`, rayon's default count (0); other
    // commands then start no thread before they need one.
    let compact = matches!(cli.command, cli::Command::Compact(_));
    if cli.jobs.is_some() || compact {
        rayon::ThreadPoolBuilder::new()
            .num_threads(cli.jobs.map_or(0, |jobs| jobs.max(1)))
            .use_current_thread()
            .build_global()?;
    }
    if matches!(
        cli.command,
        cli::Command::Compact(_)
            | cli::Command::Repair(_)
            | cli::Command::Restore(_)
            | cli::Command::Archive(_)
    ) {
        outputs::tempfiles::remove_on_signal();
    }
    match &cli.command {
        cli::Command::Check(args) => commands::check::run(args, cli.quiet),
        cli::Command::Stats(args) => commands::stats::run(args, cli.quiet),
        cli::Command::Eval(args) => commands::eval::run(args, cli.quiet, cli.verbose),
        cli::Command::Compact(args) => commands::compact::run(args, cli.quiet, cli.verbose),
        cli::Command::Convert(args) => commands::convert::run(args, cli.quiet),
        cli::Command::Fit(args) => commands::fit::run(args, cli.quiet, cli.verbose),
        cli::Command::Repair(args) => commands::repair::run(args, cli.quiet),
        cli::Command::Restore(args) => commands::restore::run(args, cli.quiet),
        cli::Command::Archive(command) => commands::archive::run(command),
        cli::Command::Config(command) => commands::config::run(command),
        cli::Command::Report(command) => commands::report::run(command),
        cli::Command::Sessions(args) => commands::sessions::run(args, cli.quiet),
        cli::Command::Completions { shell } => commands::docs::completions(*shell),
        cli::Command::Man { command, dir } => {
            commands::docs::man(command, dir.as_deref(), cli.quiet)
        }
    }
}
