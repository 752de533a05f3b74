
use builtin;
use str;

set edit:completion:arg-completer[ctxc] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'ctxc'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'ctxc'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
            cand compact 'Compact transcripts: write each in its own format, smaller, and report what was done'
            cand convert 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF'
            cand fit 'Make agent trajectories into training samples that fit --max-len tokens of the trained model''s tokenizer and chat template'
            cand repair 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`'
            cand restore 'Rebuild the original transcript, byte for byte, from a compaction archive'
            cand archive 'Inspect compaction archives'
            cand config 'Show the effective configuration and where each value comes from'
            cand report 'Work with compaction reports'
            cand sessions 'List the Claude Code, Codex and pi sessions of this directory''s project (or all of them)'
            cand completions 'Print a shell''s completion script for ctxc (bash, zsh, fish, elvish, powershell)'
            cand man 'Print ctxc''s man page, or a command''s (`ctxc man compact`, `ctxc man report merge`)'
            cand stats 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
            cand eval 'Measure what each strategy keeps: probes an agent must still answer after compaction'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;check'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --json 'Print findings as JSON'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;compact'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)'
            cand --encoding 'Tokenizer'
            cand --trigger-ratio 'Fire when context tokens reach this share of the window [default: 0.8]'
            cand --trigger-remaining 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO'
            cand --turn-threshold 'Fire when a conversation has this many user turns [default: 200]'
            cand --max-events 'Fire when a conversation has this many messages [default: 700]'
            cand --strategy 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, dedup, trim-outputs, trim-calls, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate, drop-stored'
            cand --target-tokens 'Compact each conversation to at most this many context tokens [default: the trigger threshold]. Given here, it compacts whether or not a trigger fires (a target in the settings file only says how far once one does)'
            cand --target-ratio 'Compact each conversation to at most this share of its context tokens (e.g. 0.5). Given here, it compacts whether or not a trigger fires'
            cand --summary-max-tokens 'Token budget of each summary [default: 1000]'
            cand --summarizer 'extractive (offline, default), openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY'
            cand --summary-model 'The model that writes summaries (required with openai and anthropic)'
            cand --base-url 'The API''s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]'
            cand --summary-timeout 'Seconds a summary request may take, connect and response [default: 30]'
            cand --llm-concurrency 'Summary requests in flight at once, whatever --jobs is [default: 4]'
            cand --on-summary-failure 'What to do when a summary request finally fails: extractive (default), truncate or fail'
            cand -o 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)'
            cand --output 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)'
            cand --out-dir 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs'' tree'
            cand --backup 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup'
            cand --on-findings 'What a conversation that already fails `ctxc check` does [default: keep]. keep: in a file of many conversations (a dataset, tau-bench runs, resolver output, Parquet rows) it is left byte-for-byte as it was and reported (PATH:LINE and the finding), the others are compacted and the file succeeds with a warning; a file that is one conversation or one session (Claude Code, Codex) is refused. refuse: the whole file is refused. allow: it is compacted anyway, and the output never has findings the input did not'
            cand --shard 'Process only share K of N of the inputs (stable, by path): 1/4, 2/4, ... `auto` takes K (and N) from the job runner: Slurm arrays, Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX) and AWS Batch array jobs, which give no count: `auto/N`'
            cand --resume-from 'Record each finished file in this manifest (JSON lines; a file, or an object URL whose entries go below URL.parts/ until the run ends), and skip the files it records as finished with these settings: a re-run after a crash, kill or preemption redoes only what was not finished, and ends as an uninterrupted run would'
            cand --archive-dir 'Write archives to this directory or object prefix instead (mirroring the inputs, like --out-dir)'
            cand --config 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir''s ctxc/ctxc.yaml]'
            cand --report 'Also write the report to this file or object URL (format from its extension: .json, .yaml or .yml, .md; anything else a table)'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand --no-marker 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
            cand --raw-tokens 'Compare ctxc''s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider''s calibrated figure)'
            cand --force 'Compact even when no trigger fires. A file already under its target still gets the first step that changes something (as the marker, turn and event triggers ask), and the report says so: --target-ratio or --target-tokens says how far to go'
            cand --keep-payloads 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain'
            cand --drop-stored 'Also drop what is stored but never sent, whether or not a trigger fires: Claude Code records before the latest compact boundary, progress and snapshot records, and toolUseResult copies. What the model is sent does not change; with --archive, `ctxc restore` brings it all back'
            cand --no-redact 'Send transcripts without redacting secrets (API keys, tokens, passwords) first'
            cand --allow-insecure-http 'Allow plain http:// to a host that is not this machine'
            cand --in-place 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink''s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten'
            cand --force-overwrite 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run''s result (so the same command can run again), refused when it differs'
            cand --dry-run 'Do everything but write: report what would happen, create or change no file but the report asked for with --report. A file the real run would refuse fails here too (an output that exists and differs, a backup that differs, a directory it cannot write in, a lock another run holds)'
            cand --allow-findings 'The same as --on-findings allow'
            cand --drop-torn-tail 'Compact a JSON Lines file whose last line is torn (not valid JSON, no newline after it: a client stopped mid-write) without that line, refused by default. With --archive the line is kept in the archive, so `ctxc restore` gives the file back as it was'
            cand --repair 'Repair each input first, as `ctxc repair` does (an unanswered call answered as interrupted, a stray result dropped, a broken chain re-linked, replayed history, torn and garbage lines left out), then compact the repaired transcript: a file refused for what `check` finds is compacted instead. The report names every repair; the archive of a repaired file (written for it even without --archive) keeps a repair record and a compaction record, so `ctxc restore` gives back the damaged original byte for byte. A Parquet dataset''s rows are repaired one by one, and the dataset is archived'
            cand --confirm 'Ask before writing each file (only at a terminal)'
            cand --fail-fast 'Stop at the first file that fails (files already written stay written)'
            cand --archive 'Keep everything compaction removed in NAME.ctxc-archive.json beside each output, so `ctxc restore` can rebuild the original'
            cand --no-config 'Read no settings file (environment and flags only)'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;convert'= {
            cand --to 'The format to write: atif or openai'
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand -o 'Write the output here instead of beside the input (one input only; `-` for stdout)'
            cand --output 'Write the output here instead of beside the input (one input only; `-` for stdout)'
            cand --out-dir 'Write outputs under this directory, mirroring the inputs'' tree'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --force-overwrite 'Replace an existing output file'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;fit'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand --max-len 'The longest sample, in tokens of the trained model''s tokenizer and chat template'
            cand --tokenizer-file 'The trained model''s Hugging Face tokenizer.json'
            cand --chat-template 'The chat template: a tokenizer_config.json, a chat_template.json or a Jinja file [default: the tokenizer_config.json beside --tokenizer-file]'
            cand --encoding 'Without --tokenizer-file: the encoding to count in, with the OpenAI chat overhead'
            cand --policy 'split: the fewest samples training every assistant turn once; one: one sample per trajectory'
            cand --train-field 'The per-message train flag (1 trained, 0 context): `weight` for axolotl''s message_field_training, or any name a trainer reads'
            cand --summarizer 'Who writes the summaries: extractive (offline, the default), openai or anthropic'
            cand --summary-model 'The summary model (openai and anthropic)'
            cand --base-url 'The summarizer''s API base URL [default: the provider''s]'
            cand -o 'Write every input''s samples to this one file, in input order (`-` for stdout)'
            cand --output 'Write every input''s samples to this one file, in input order (`-` for stdout)'
            cand --out-dir 'Write each input''s samples under this directory as NAME.fit.jsonl'
            cand --report 'Write the report (per conversation and in total) as JSON to this file (`-`: stdout)'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --force-overwrite 'Replace an existing output file'
            cand --dry-run 'Make the samples and report them, but write no samples'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;repair'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand -o 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)'
            cand --output 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)'
            cand --out-dir 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs'' tree'
            cand --backup 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup'
            cand --archive-dir 'Write the archive under this directory instead of beside the output'
            cand --max-session-bytes 'A session larger than this loses its stored-only payloads (progress records, snapshots, history above the latest compact boundary, toolUseResult copies), which changes nothing the model is sent; the report says whether it then fits the model''s window (K, M, G: powers of 1024)'
            cand --model 'Model name, for the window an oversized session must fit (e.g. claude-sonnet-4-5)'
            cand --context-window 'Context window in tokens, for an oversized session (default: the model''s, else the one the session records or its model''s, else 200000)'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --in-place 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink''s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten'
            cand --force-overwrite 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run''s result (so the same command can run again), refused when it differs'
            cand --dry-run 'List the repairs without writing anything'
            cand --no-archive 'Write no archive. By default NAME.ctxc-archive.json beside the output keeps every record and line the repair removed or changed, so that `ctxc restore` gives back the damaged original byte for byte'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;restore'= {
            cand -o 'Write the restored transcript here (a file, `-`, or an object URL) [default: the original''s path or URL, when it is free or is the compacted file itself, and is in the compacted file''s directory (an archive does not choose where restore writes): a file compacted in place is restored over itself, kept first as NAME.EXT.compacted]'
            cand --output 'Write the restored transcript here (a file, `-`, or an object URL) [default: the original''s path or URL, when it is free or is the compacted file itself, and is in the compacted file''s directory (an archive does not choose where restore writes): a file compacted in place is restored over itself, kept first as NAME.EXT.compacted]'
            cand --steps 'Undo only the last N compactions, across generations [default: all]'
            cand --generation 'Restore the file as generation N began: before its first compaction. A file changed since its last compaction (a resumed client appended to it) starts a new generation when compacted again; `ctxc archive show` lists them'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --original 'Restore the first original, before any compaction (the default)'
            cand --force 'Restore even if the compacted file no longer matches the archive'
            cand --force-overwrite 'Replace an existing output file'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;archive'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand show 'What each compaction of an archive dropped or summarized'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;archive;show'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --json 'Print as JSON'
            cand --summary 'One line per compaction (when, what it read and wrote, tokens and messages before and after, edits by kind) instead of every edit'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;archive;help'= {
            cand show 'What each compaction of an archive dropped or summarized'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;archive;help;show'= {
        }
        &'ctxc;archive;help;help'= {
        }
        &'ctxc;config'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand show 'Print the effective settings of `ctxc compact` and where each comes from'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;config;show'= {
            cand --config 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir''s ctxc/ctxc.yaml]'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --no-config 'Read no settings file (environment and flags only)'
            cand --json 'Print as JSON'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;config;help'= {
            cand show 'Print the effective settings of `ctxc compact` and where each comes from'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;config;help;show'= {
        }
        &'ctxc;config;help;help'= {
        }
        &'ctxc;report'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand merge 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;report;merge'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;report;help'= {
            cand merge 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;report;help;merge'= {
        }
        &'ctxc;report;help;help'= {
        }
        &'ctxc;sessions'= {
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)'
            cand --encoding 'Tokenizer'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -a 'List the sessions of every project, not only this directory''s'
            cand --all 'List the sessions of every project, not only this directory''s'
            cand --json 'Print the list as JSON'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;completions'= {
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;man'= {
            cand --dir 'Write every page into this directory'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;stats'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)'
            cand --encoding 'Tokenizer'
            cand --trigger-ratio 'Fire when context tokens reach this share of the window [default: 0.8]'
            cand --trigger-remaining 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO'
            cand --turn-threshold 'Fire when a conversation has this many user turns [default: 200]'
            cand --max-events 'Fire when a conversation has this many messages [default: 700]'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand --no-marker 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
            cand --raw-tokens 'Compare ctxc''s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider''s calibrated figure)'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;eval'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --max-input-bytes 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it'
            cand --column 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text'
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)'
            cand --encoding 'Tokenizer'
            cand --strategy 'Strategies to compare, comma-separated [default: adaptive]; each runs alone (see `ctxc compact --strategy`)'
            cand --target-ratio 'Target shares of each conversation''s context tokens to compare, comma-separated'
            cand --summary-max-tokens 'Token budget of each summary [default: 1000]'
            cand --judge 'Also have a model answer a sample of probe questions from each compacted context and from the original, and score the answers 0-5 on accuracy, context awareness, artifact trail, completeness, continuity and instruction following: openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY'
            cand --judge-model 'The model that answers and judges (required with --judge)'
            cand --judge-base-url 'The judge API''s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]'
            cand --judge-probes 'Probe questions asked per conversation, taken from the four categories in turn [default: 12]'
            cand --judge-timeout 'Seconds a judge request may take, connect and response [default: 120]'
            cand --llm-concurrency 'Judge requests in flight at once, whatever --jobs is [default: 4]'
            cand --judge-cache 'Where replies are cached by the digest of their request, so a re-run costs nothing [default: ctxc/judge in the user''s cache directory, ~/.cache/ctxc/judge on Linux]; delete it to clear the cache'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --color 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand --no-judge-cache 'Neither read nor write the judge cache'
            cand --no-redact 'Send transcripts to the judge without redacting secrets (API keys, tokens, passwords) first'
            cand --allow-insecure-http 'Allow plain http:// to a judge host that is not this machine'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -v 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand --verbose 'Log what is done on stderr (-v: per file, -vv: per step)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;help'= {
            cand check 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
            cand compact 'Compact transcripts: write each in its own format, smaller, and report what was done'
            cand convert 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF'
            cand fit 'Make agent trajectories into training samples that fit --max-len tokens of the trained model''s tokenizer and chat template'
            cand repair 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`'
            cand restore 'Rebuild the original transcript, byte for byte, from a compaction archive'
            cand archive 'Inspect compaction archives'
            cand config 'Show the effective configuration and where each value comes from'
            cand report 'Work with compaction reports'
            cand sessions 'List the Claude Code, Codex and pi sessions of this directory''s project (or all of them)'
            cand completions 'Print a shell''s completion script for ctxc (bash, zsh, fish, elvish, powershell)'
            cand man 'Print ctxc''s man page, or a command''s (`ctxc man compact`, `ctxc man report merge`)'
            cand stats 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
            cand eval 'Measure what each strategy keeps: probes an agent must still answer after compaction'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;help;check'= {
        }
        &'ctxc;help;compact'= {
        }
        &'ctxc;help;convert'= {
        }
        &'ctxc;help;fit'= {
        }
        &'ctxc;help;repair'= {
        }
        &'ctxc;help;restore'= {
        }
        &'ctxc;help;archive'= {
            cand show 'What each compaction of an archive dropped or summarized'
        }
        &'ctxc;help;archive;show'= {
        }
        &'ctxc;help;config'= {
            cand show 'Print the effective settings of `ctxc compact` and where each comes from'
        }
        &'ctxc;help;config;show'= {
        }
        &'ctxc;help;report'= {
            cand merge 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
        }
        &'ctxc;help;report;merge'= {
        }
        &'ctxc;help;sessions'= {
        }
        &'ctxc;help;completions'= {
        }
        &'ctxc;help;man'= {
        }
        &'ctxc;help;stats'= {
        }
        &'ctxc;help;eval'= {
        }
        &'ctxc;help;help'= {
        }
    ]
    $completions[$command]
}
