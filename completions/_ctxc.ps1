
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'ctxc' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'ctxc'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'ctxc' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate transcripts: parsing, tool call/result pairing, role order, chain links')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact transcripts: write each in its own format, smaller, and report what was done')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF')
            [CompletionResult]::new('fit', 'fit', [CompletionResultType]::ParameterValue, 'Make agent trajectories into training samples that fit --max-len tokens of the trained model''s tokenizer and chat template')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Rebuild the original transcript, byte for byte, from a compaction archive')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Inspect compaction archives')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value comes from')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Work with compaction reports')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List the Claude Code, Codex and pi sessions of this directory''s project (or all of them)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell''s completion script for ctxc (bash, zsh, fish, elvish, powershell)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print ctxc''s man page, or a command''s (`ctxc man compact`, `ctxc man report merge`)')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Measure what each strategy keeps: probes an agent must still answer after compaction')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;check' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print findings as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;compact' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer')
            [CompletionResult]::new('--trigger-ratio', '--trigger-ratio', [CompletionResultType]::ParameterName, 'Fire when context tokens reach this share of the window [default: 0.8]')
            [CompletionResult]::new('--trigger-remaining', '--trigger-remaining', [CompletionResultType]::ParameterName, 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO')
            [CompletionResult]::new('--turn-threshold', '--turn-threshold', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many user turns [default: 200]')
            [CompletionResult]::new('--max-events', '--max-events', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many messages [default: 700]')
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, dedup, trim-outputs, trim-calls, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate, drop-stored')
            [CompletionResult]::new('--target-tokens', '--target-tokens', [CompletionResultType]::ParameterName, 'Compact each conversation to at most this many context tokens [default: the trigger threshold]. Given here, it compacts whether or not a trigger fires (a target in the settings file only says how far once one does)')
            [CompletionResult]::new('--target-ratio', '--target-ratio', [CompletionResultType]::ParameterName, 'Compact each conversation to at most this share of its context tokens (e.g. 0.5). Given here, it compacts whether or not a trigger fires')
            [CompletionResult]::new('--summary-max-tokens', '--summary-max-tokens', [CompletionResultType]::ParameterName, 'Token budget of each summary [default: 1000]')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'extractive (offline, default), openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY')
            [CompletionResult]::new('--summary-model', '--summary-model', [CompletionResultType]::ParameterName, 'The model that writes summaries (required with openai and anthropic)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The API''s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]')
            [CompletionResult]::new('--summary-timeout', '--summary-timeout', [CompletionResultType]::ParameterName, 'Seconds a summary request may take, connect and response [default: 30]')
            [CompletionResult]::new('--llm-concurrency', '--llm-concurrency', [CompletionResultType]::ParameterName, 'Summary requests in flight at once, whatever --jobs is [default: 4]')
            [CompletionResult]::new('--on-summary-failure', '--on-summary-failure', [CompletionResultType]::ParameterName, 'What to do when a summary request finally fails: extractive (default), truncate or fail')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs'' tree')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup')
            [CompletionResult]::new('--on-findings', '--on-findings', [CompletionResultType]::ParameterName, 'What a conversation that already fails `ctxc check` does [default: keep]. keep: in a file of many conversations (a dataset, tau-bench runs, resolver output, Parquet rows) it is left byte-for-byte as it was and reported (PATH:LINE and the finding), the others are compacted and the file succeeds with a warning; a file that is one conversation or one session (Claude Code, Codex) is refused. refuse: the whole file is refused. allow: it is compacted anyway, and the output never has findings the input did not')
            [CompletionResult]::new('--shard', '--shard', [CompletionResultType]::ParameterName, 'Process only share K of N of the inputs (stable, by path): 1/4, 2/4, ... `auto` takes K (and N) from the job runner: Slurm arrays, Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX) and AWS Batch array jobs, which give no count: `auto/N`')
            [CompletionResult]::new('--resume-from', '--resume-from', [CompletionResultType]::ParameterName, 'Record each finished file in this manifest (JSON lines; a file, or an object URL whose entries go below URL.parts/ until the run ends), and skip the files it records as finished with these settings: a re-run after a crash, kill or preemption redoes only what was not finished, and ends as an uninterrupted run would')
            [CompletionResult]::new('--archive-dir', '--archive-dir', [CompletionResultType]::ParameterName, 'Write archives to this directory or object prefix instead (mirroring the inputs, like --out-dir)')
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir''s ctxc/ctxc.yaml]')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the report to this file or object URL (format from its extension: .json, .yaml or .yml, .md; anything else a table)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('--no-marker', '--no-marker', [CompletionResultType]::ParameterName, 'Ignore the !!!SUMMARY!!! marker in the last assistant message')
            [CompletionResult]::new('--raw-tokens', '--raw-tokens', [CompletionResultType]::ParameterName, 'Compare ctxc''s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider''s calibrated figure)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Compact even when no trigger fires. A file already under its target still gets the first step that changes something (as the marker, turn and event triggers ask), and the report says so: --target-ratio or --target-tokens says how far to go')
            [CompletionResult]::new('--keep-payloads', '--keep-payloads', [CompletionResultType]::ParameterName, 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain')
            [CompletionResult]::new('--drop-stored', '--drop-stored', [CompletionResultType]::ParameterName, 'Also drop what is stored but never sent, whether or not a trigger fires: Claude Code records before the latest compact boundary, progress and snapshot records, and toolUseResult copies. What the model is sent does not change; with --archive, `ctxc restore` brings it all back')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Send transcripts without redacting secrets (API keys, tokens, passwords) first')
            [CompletionResult]::new('--allow-insecure-http', '--allow-insecure-http', [CompletionResultType]::ParameterName, 'Allow plain http:// to a host that is not this machine')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink''s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run''s result (so the same command can run again), refused when it differs')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Do everything but write: report what would happen, create or change no file but the report asked for with --report. A file the real run would refuse fails here too (an output that exists and differs, a backup that differs, a directory it cannot write in, a lock another run holds)')
            [CompletionResult]::new('--allow-findings', '--allow-findings', [CompletionResultType]::ParameterName, 'The same as --on-findings allow')
            [CompletionResult]::new('--drop-torn-tail', '--drop-torn-tail', [CompletionResultType]::ParameterName, 'Compact a JSON Lines file whose last line is torn (not valid JSON, no newline after it: a client stopped mid-write) without that line, refused by default. With --archive the line is kept in the archive, so `ctxc restore` gives the file back as it was')
            [CompletionResult]::new('--repair', '--repair', [CompletionResultType]::ParameterName, 'Repair each input first, as `ctxc repair` does (an unanswered call answered as interrupted, a stray result dropped, a broken chain re-linked, replayed history, torn and garbage lines left out), then compact the repaired transcript: a file refused for what `check` finds is compacted instead. The report names every repair; the archive of a repaired file (written for it even without --archive) keeps a repair record and a compaction record, so `ctxc restore` gives back the damaged original byte for byte. A Parquet dataset''s rows are repaired one by one, and the dataset is archived')
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'Ask before writing each file (only at a terminal)')
            [CompletionResult]::new('--fail-fast', '--fail-fast', [CompletionResultType]::ParameterName, 'Stop at the first file that fails (files already written stay written)')
            [CompletionResult]::new('--archive', '--archive', [CompletionResultType]::ParameterName, 'Keep everything compaction removed in NAME.ctxc-archive.json beside each output, so `ctxc restore` can rebuild the original')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Read no settings file (environment and flags only)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;convert' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The format to write: atif or openai')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write outputs under this directory, mirroring the inputs'' tree')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;fit' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('--max-len', '--max-len', [CompletionResultType]::ParameterName, 'The longest sample, in tokens of the trained model''s tokenizer and chat template')
            [CompletionResult]::new('--tokenizer-file', '--tokenizer-file', [CompletionResultType]::ParameterName, 'The trained model''s Hugging Face tokenizer.json')
            [CompletionResult]::new('--chat-template', '--chat-template', [CompletionResultType]::ParameterName, 'The chat template: a tokenizer_config.json, a chat_template.json or a Jinja file [default: the tokenizer_config.json beside --tokenizer-file]')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Without --tokenizer-file: the encoding to count in, with the OpenAI chat overhead')
            [CompletionResult]::new('--policy', '--policy', [CompletionResultType]::ParameterName, 'split: the fewest samples training every assistant turn once; one: one sample per trajectory')
            [CompletionResult]::new('--train-field', '--train-field', [CompletionResultType]::ParameterName, 'The per-message train flag (1 trained, 0 context): `weight` for axolotl''s message_field_training, or any name a trainer reads')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'Who writes the summaries: extractive (offline, the default), openai or anthropic')
            [CompletionResult]::new('--summary-model', '--summary-model', [CompletionResultType]::ParameterName, 'The summary model (openai and anthropic)')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'The summarizer''s API base URL [default: the provider''s]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write every input''s samples to this one file, in input order (`-` for stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write every input''s samples to this one file, in input order (`-` for stdout)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write each input''s samples under this directory as NAME.fit.jsonl')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Write the report (per conversation and in total) as JSON to this file (`-`: stdout)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Make the samples and report them, but write no samples')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;repair' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)')
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs'' tree')
            [CompletionResult]::new('--backup', '--backup', [CompletionResultType]::ParameterName, 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup')
            [CompletionResult]::new('--archive-dir', '--archive-dir', [CompletionResultType]::ParameterName, 'Write the archive under this directory instead of beside the output')
            [CompletionResult]::new('--max-session-bytes', '--max-session-bytes', [CompletionResultType]::ParameterName, 'A session larger than this loses its stored-only payloads (progress records, snapshots, history above the latest compact boundary, toolUseResult copies), which changes nothing the model is sent; the report says whether it then fits the model''s window (K, M, G: powers of 1024)')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name, for the window an oversized session must fit (e.g. claude-sonnet-4-5)')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens, for an oversized session (default: the model''s, else the one the session records or its model''s, else 200000)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink''s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run''s result (so the same command can run again), refused when it differs')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List the repairs without writing anything')
            [CompletionResult]::new('--no-archive', '--no-archive', [CompletionResultType]::ParameterName, 'Write no archive. By default NAME.ctxc-archive.json beside the output keeps every record and line the repair removed or changed, so that `ctxc restore` gives back the damaged original byte for byte')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;restore' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the restored transcript here (a file, `-`, or an object URL) [default: the original''s path or URL, when it is free or is the compacted file itself, and is in the compacted file''s directory (an archive does not choose where restore writes): a file compacted in place is restored over itself, kept first as NAME.EXT.compacted]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the restored transcript here (a file, `-`, or an object URL) [default: the original''s path or URL, when it is free or is the compacted file itself, and is in the compacted file''s directory (an archive does not choose where restore writes): a file compacted in place is restored over itself, kept first as NAME.EXT.compacted]')
            [CompletionResult]::new('--steps', '--steps', [CompletionResultType]::ParameterName, 'Undo only the last N compactions, across generations [default: all]')
            [CompletionResult]::new('--generation', '--generation', [CompletionResultType]::ParameterName, 'Restore the file as generation N began: before its first compaction. A file changed since its last compaction (a resumed client appended to it) starts a new generation when compacted again; `ctxc archive show` lists them')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--original', '--original', [CompletionResultType]::ParameterName, 'Restore the first original, before any compaction (the default)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Restore even if the compacted file no longer matches the archive')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;archive' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'What each compaction of an archive dropped or summarized')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;archive;show' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print as JSON')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'One line per compaction (when, what it read and wrote, tokens and messages before and after, edits by kind) instead of every edit')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;archive;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'What each compaction of an archive dropped or summarized')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;archive;help;show' {
            break
        }
        'ctxc;archive;help;help' {
            break
        }
        'ctxc;config' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of `ctxc compact` and where each comes from')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;config;show' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir''s ctxc/ctxc.yaml]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--no-config', '--no-config', [CompletionResultType]::ParameterName, 'Read no settings file (environment and flags only)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;config;help' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of `ctxc compact` and where each comes from')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;config;help;show' {
            break
        }
        'ctxc;config;help;help' {
            break
        }
        'ctxc;report' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Combine JSON reports of `ctxc compact` (from shards or machines) into one')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;report;merge' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;report;help' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Combine JSON reports of `ctxc compact` (from shards or machines) into one')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;report;help;merge' {
            break
        }
        'ctxc;report;help;help' {
            break
        }
        'ctxc;sessions' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'List the sessions of every project, not only this directory''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'List the sessions of every project, not only this directory''s')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the list as JSON')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;completions' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write every page into this directory')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;stats' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer')
            [CompletionResult]::new('--trigger-ratio', '--trigger-ratio', [CompletionResultType]::ParameterName, 'Fire when context tokens reach this share of the window [default: 0.8]')
            [CompletionResult]::new('--trigger-remaining', '--trigger-remaining', [CompletionResultType]::ParameterName, 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO')
            [CompletionResult]::new('--turn-threshold', '--turn-threshold', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many user turns [default: 200]')
            [CompletionResult]::new('--max-events', '--max-events', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many messages [default: 700]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('--no-marker', '--no-marker', [CompletionResultType]::ParameterName, 'Ignore the !!!SUMMARY!!! marker in the last assistant message')
            [CompletionResult]::new('--raw-tokens', '--raw-tokens', [CompletionResultType]::ParameterName, 'Compare ctxc''s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider''s calibrated figure)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;eval' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('--max-input-bytes', '--max-input-bytes', [CompletionResultType]::ParameterName, 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent''s session file as text')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else the one the transcript records or its model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer')
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'Strategies to compare, comma-separated [default: adaptive]; each runs alone (see `ctxc compact --strategy`)')
            [CompletionResult]::new('--target-ratio', '--target-ratio', [CompletionResultType]::ParameterName, 'Target shares of each conversation''s context tokens to compare, comma-separated')
            [CompletionResult]::new('--summary-max-tokens', '--summary-max-tokens', [CompletionResultType]::ParameterName, 'Token budget of each summary [default: 1000]')
            [CompletionResult]::new('--judge', '--judge', [CompletionResultType]::ParameterName, 'Also have a model answer a sample of probe questions from each compacted context and from the original, and score the answers 0-5 on accuracy, context awareness, artifact trail, completeness, continuity and instruction following: openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY')
            [CompletionResult]::new('--judge-model', '--judge-model', [CompletionResultType]::ParameterName, 'The model that answers and judges (required with --judge)')
            [CompletionResult]::new('--judge-base-url', '--judge-base-url', [CompletionResultType]::ParameterName, 'The judge API''s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]')
            [CompletionResult]::new('--judge-probes', '--judge-probes', [CompletionResultType]::ParameterName, 'Probe questions asked per conversation, taken from the four categories in turn [default: 12]')
            [CompletionResult]::new('--judge-timeout', '--judge-timeout', [CompletionResultType]::ParameterName, 'Seconds a judge request may take, connect and response [default: 120]')
            [CompletionResult]::new('--llm-concurrency', '--llm-concurrency', [CompletionResultType]::ParameterName, 'Judge requests in flight at once, whatever --jobs is [default: 4]')
            [CompletionResult]::new('--judge-cache', '--judge-cache', [CompletionResultType]::ParameterName, 'Where replies are cached by the digest of their request, so a re-run costs nothing [default: ctxc/judge in the user''s cache directory, ~/.cache/ctxc/judge on Linux]; delete it to clear the cache')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('--no-judge-cache', '--no-judge-cache', [CompletionResultType]::ParameterName, 'Neither read nor write the judge cache')
            [CompletionResult]::new('--no-redact', '--no-redact', [CompletionResultType]::ParameterName, 'Send transcripts to the judge without redacting secrets (API keys, tokens, passwords) first')
            [CompletionResult]::new('--allow-insecure-http', '--allow-insecure-http', [CompletionResultType]::ParameterName, 'Allow plain http:// to a judge host that is not this machine')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Log what is done on stderr (-v: per file, -vv: per step)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate transcripts: parsing, tool call/result pairing, role order, chain links')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact transcripts: write each in its own format, smaller, and report what was done')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF')
            [CompletionResult]::new('fit', 'fit', [CompletionResultType]::ParameterValue, 'Make agent trajectories into training samples that fit --max-len tokens of the trained model''s tokenizer and chat template')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Rebuild the original transcript, byte for byte, from a compaction archive')
            [CompletionResult]::new('archive', 'archive', [CompletionResultType]::ParameterValue, 'Inspect compaction archives')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Show the effective configuration and where each value comes from')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Work with compaction reports')
            [CompletionResult]::new('sessions', 'sessions', [CompletionResultType]::ParameterValue, 'List the Claude Code, Codex and pi sessions of this directory''s project (or all of them)')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell''s completion script for ctxc (bash, zsh, fish, elvish, powershell)')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print ctxc''s man page, or a command''s (`ctxc man compact`, `ctxc man report merge`)')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Measure what each strategy keeps: probes an agent must still answer after compaction')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;help;check' {
            break
        }
        'ctxc;help;compact' {
            break
        }
        'ctxc;help;convert' {
            break
        }
        'ctxc;help;fit' {
            break
        }
        'ctxc;help;repair' {
            break
        }
        'ctxc;help;restore' {
            break
        }
        'ctxc;help;archive' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'What each compaction of an archive dropped or summarized')
            break
        }
        'ctxc;help;archive;show' {
            break
        }
        'ctxc;help;config' {
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print the effective settings of `ctxc compact` and where each comes from')
            break
        }
        'ctxc;help;config;show' {
            break
        }
        'ctxc;help;report' {
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'Combine JSON reports of `ctxc compact` (from shards or machines) into one')
            break
        }
        'ctxc;help;report;merge' {
            break
        }
        'ctxc;help;sessions' {
            break
        }
        'ctxc;help;completions' {
            break
        }
        'ctxc;help;man' {
            break
        }
        'ctxc;help;stats' {
            break
        }
        'ctxc;help;eval' {
            break
        }
        'ctxc;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
