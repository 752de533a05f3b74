# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ctxc_global_optspecs
    string join \n q/quiet v/verbose j/jobs= color= h/help V/version
end

function __fish_ctxc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_ctxc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_ctxc_using_subcommand
    set -l cmd (__fish_ctxc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c ctxc -n "__fish_ctxc_needs_command" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_needs_command" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_needs_command" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_needs_command" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_needs_command" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "check" -d 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "compact" -d 'Compact transcripts: write each in its own format, smaller, and report what was done'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "convert" -d 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "fit" -d 'Make agent trajectories into training samples that fit --max-len tokens of the trained model\'s tokenizer and chat template'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "repair" -d 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "restore" -d 'Rebuild the original transcript, byte for byte, from a compaction archive'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "archive" -d 'Inspect compaction archives'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "config" -d 'Show the effective configuration and where each value comes from'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "report" -d 'Work with compaction reports'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "sessions" -d 'List the Claude Code, Codex and pi sessions of this directory\'s project (or all of them)'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "completions" -d 'Print a shell\'s completion script for ctxc (bash, zsh, fish, elvish, powershell)'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "man" -d 'Print ctxc\'s man page, or a command\'s (`ctxc man compact`, `ctxc man report merge`)'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "stats" -d 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "eval" -d 'Measure what each strategy keeps: probes an agent must still answer after compaction'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l json -d 'Print findings as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l context-window -d 'Context window in tokens (default: the model\'s, else the one the transcript records or its model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l encoding -d 'Tokenizer' -r -f -a "o200k_base\t''
cl100k_base\t''
p50k_base\t''
r50k_base\t''
llama3\t''
qwen2\t''
deepseek_v3\t''
mistral_v3\t''
kimi_k2\t''
glm4\t''
glm5\t''
minimax_m2\t''
estimate\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l trigger-ratio -d 'Fire when context tokens reach this share of the window [default: 0.8]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l trigger-remaining -d 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l turn-threshold -d 'Fire when a conversation has this many user turns [default: 200]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l max-events -d 'Fire when a conversation has this many messages [default: 700]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l strategy -d 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, dedup, trim-outputs, trim-calls, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate, drop-stored' -r -f -a "adaptive\t''
strip-payloads\t''
dedup\t''
trim-outputs\t''
trim-calls\t''
sliding-window\t''
importance\t''
key-events\t''
incremental\t''
selective\t''
observation-masking\t''
full-summary\t''
truncate\t''
drop-stored\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l target-tokens -d 'Compact each conversation to at most this many context tokens [default: the trigger threshold]. Given here, it compacts whether or not a trigger fires (a target in the settings file only says how far once one does)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l target-ratio -d 'Compact each conversation to at most this share of its context tokens (e.g. 0.5). Given here, it compacts whether or not a trigger fires' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l summary-max-tokens -d 'Token budget of each summary [default: 1000]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l summarizer -d 'extractive (offline, default), openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY' -r -f -a "extractive\t''
openai\t''
anthropic\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l summary-model -d 'The model that writes summaries (required with openai and anthropic)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l base-url -d 'The API\'s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l summary-timeout -d 'Seconds a summary request may take, connect and response [default: 30]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l llm-concurrency -d 'Summary requests in flight at once, whatever --jobs is [default: 4]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l on-summary-failure -d 'What to do when a summary request finally fails: extractive (default), truncate or fail' -r -f -a "extractive\t''
truncate\t''
fail\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s o -l output -d 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l out-dir -d 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs\' tree' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l backup -d 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l on-findings -d 'What a conversation that already fails `ctxc check` does [default: keep]. keep: in a file of many conversations (a dataset, tau-bench runs, resolver output, Parquet rows) it is left byte-for-byte as it was and reported (PATH:LINE and the finding), the others are compacted and the file succeeds with a warning; a file that is one conversation or one session (Claude Code, Codex) is refused. refuse: the whole file is refused. allow: it is compacted anyway, and the output never has findings the input did not' -r -f -a "keep\t''
refuse\t''
allow\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l shard -d 'Process only share K of N of the inputs (stable, by path): 1/4, 2/4, ... `auto` takes K (and N) from the job runner: Slurm arrays, Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX) and AWS Batch array jobs, which give no count: `auto/N`' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l resume-from -d 'Record each finished file in this manifest (JSON lines; a file, or an object URL whose entries go below URL.parts/ until the run ends), and skip the files it records as finished with these settings: a re-run after a crash, kill or preemption redoes only what was not finished, and ends as an uninterrupted run would' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l archive-dir -d 'Write archives to this directory or object prefix instead (mirroring the inputs, like --out-dir)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l config -d 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir\'s ctxc/ctxc.yaml]' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l report -d 'Also write the report to this file or object URL (format from its extension: .json, .yaml or .yml, .md; anything else a table)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-marker -d 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l raw-tokens -d 'Compare ctxc\'s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider\'s calibrated figure)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l force -d 'Compact even when no trigger fires. A file already under its target still gets the first step that changes something (as the marker, turn and event triggers ask), and the report says so: --target-ratio or --target-tokens says how far to go'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l keep-payloads -d 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l drop-stored -d 'Also drop what is stored but never sent, whether or not a trigger fires: Claude Code records before the latest compact boundary, progress and snapshot records, and toolUseResult copies. What the model is sent does not change; with --archive, `ctxc restore` brings it all back'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-redact -d 'Send transcripts without redacting secrets (API keys, tokens, passwords) first'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l allow-insecure-http -d 'Allow plain http:// to a host that is not this machine'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l in-place -d 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink\'s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l force-overwrite -d 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run\'s result (so the same command can run again), refused when it differs'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l dry-run -d 'Do everything but write: report what would happen, create or change no file but the report asked for with --report. A file the real run would refuse fails here too (an output that exists and differs, a backup that differs, a directory it cannot write in, a lock another run holds)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l allow-findings -d 'The same as --on-findings allow'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l drop-torn-tail -d 'Compact a JSON Lines file whose last line is torn (not valid JSON, no newline after it: a client stopped mid-write) without that line, refused by default. With --archive the line is kept in the archive, so `ctxc restore` gives the file back as it was'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l repair -d 'Repair each input first, as `ctxc repair` does (an unanswered call answered as interrupted, a stray result dropped, a broken chain re-linked, replayed history, torn and garbage lines left out), then compact the repaired transcript: a file refused for what `check` finds is compacted instead. The report names every repair; the archive of a repaired file (written for it even without --archive) keeps a repair record and a compaction record, so `ctxc restore` gives back the damaged original byte for byte. A Parquet dataset\'s rows are repaired one by one, and the dataset is archived'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l confirm -d 'Ask before writing each file (only at a terminal)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l fail-fast -d 'Stop at the first file that fails (files already written stay written)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l archive -d 'Keep everything compaction removed in NAME.ctxc-archive.json beside each output, so `ctxc restore` can rebuild the original'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-config -d 'Read no settings file (environment and flags only)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l to -d 'The format to write: atif or openai' -r -f -a "atif\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s o -l output -d 'Write the output here instead of beside the input (one input only; `-` for stdout)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l out-dir -d 'Write outputs under this directory, mirroring the inputs\' tree' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -l force-overwrite -d 'Replace an existing output file'
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand convert" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l max-len -d 'The longest sample, in tokens of the trained model\'s tokenizer and chat template' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l tokenizer-file -d 'The trained model\'s Hugging Face tokenizer.json' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l chat-template -d 'The chat template: a tokenizer_config.json, a chat_template.json or a Jinja file [default: the tokenizer_config.json beside --tokenizer-file]' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l encoding -d 'Without --tokenizer-file: the encoding to count in, with the OpenAI chat overhead' -r -f -a "o200k_base\t''
cl100k_base\t''
p50k_base\t''
r50k_base\t''
llama3\t''
qwen2\t''
deepseek_v3\t''
mistral_v3\t''
kimi_k2\t''
glm4\t''
glm5\t''
minimax_m2\t''
estimate\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l policy -d 'split: the fewest samples training every assistant turn once; one: one sample per trajectory' -r -f -a "split\t'The fewest samples that together train every assistant turn once'
one\t'One sample per trajectory: the longest tail that fits, the rest summarized'"
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l train-field -d 'The per-message train flag (1 trained, 0 context): `weight` for axolotl\'s message_field_training, or any name a trainer reads' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l summarizer -d 'Who writes the summaries: extractive (offline, the default), openai or anthropic' -r -f -a "extractive\t''
openai\t''
anthropic\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l summary-model -d 'The summary model (openai and anthropic)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l base-url -d 'The summarizer\'s API base URL [default: the provider\'s]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s o -l output -d 'Write every input\'s samples to this one file, in input order (`-` for stdout)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l out-dir -d 'Write each input\'s samples under this directory as NAME.fit.jsonl' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l report -d 'Write the report (per conversation and in total) as JSON to this file (`-`: stdout)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l force-overwrite -d 'Replace an existing output file'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -l dry-run -d 'Make the samples and report them, but write no samples'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand fit" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s o -l output -d 'Write the output here instead of beside the input (one input only; `-` for stdout; for compact, an object URL such as s3://bucket/key)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l out-dir -d 'Write outputs under this directory (for compact, or object prefix: s3://bucket/out/), mirroring the inputs\' tree' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l backup -d 'With --in-place, first keep the original as NAME.EXT + SUFFIX [default: .bak]. An existing backup is never overwritten: that file is refused instead, unless the backup holds exactly the file (left by an interrupted run), which is kept as its backup' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l archive-dir -d 'Write the archive under this directory instead of beside the output' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l max-session-bytes -d 'A session larger than this loses its stored-only payloads (progress records, snapshots, history above the latest compact boundary, toolUseResult copies), which changes nothing the model is sent; the report says whether it then fits the model\'s window (K, M, G: powers of 1024)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l model -d 'Model name, for the window an oversized session must fit (e.g. claude-sonnet-4-5)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l context-window -d 'Context window in tokens, for an oversized session (default: the model\'s, else the one the session records or its model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l in-place -d 'Replace each input with its new version (atomically). The file is locked while ctxc works on it, and left alone if it changes meanwhile or another process holds it open for writing (a live session); a symlink\'s target is replaced, owner and mode kept. An input the run leaves unchanged is not rewritten'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l force-overwrite -d 'Replace an existing output file. Without it an output that is there already is left alone: done when it holds exactly this run\'s result (so the same command can run again), refused when it differs'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l dry-run -d 'List the repairs without writing anything'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l no-archive -d 'Write no archive. By default NAME.ctxc-archive.json beside the output keeps every record and line the repair removed or changed, so that `ctxc restore` gives back the damaged original byte for byte'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand repair" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s o -l output -d 'Write the restored transcript here (a file, `-`, or an object URL) [default: the original\'s path or URL, when it is free or is the compacted file itself, and is in the compacted file\'s directory (an archive does not choose where restore writes): a file compacted in place is restored over itself, kept first as NAME.EXT.compacted]' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l steps -d 'Undo only the last N compactions, across generations [default: all]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l generation -d 'Restore the file as generation N began: before its first compaction. A file changed since its last compaction (a resumed client appended to it) starts a new generation when compacted again; `ctxc archive show` lists them' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l original -d 'Restore the first original, before any compaction (the default)'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l force -d 'Restore even if the compacted file no longer matches the archive'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -l force-overwrite -d 'Replace an existing output file'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand restore" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'What each compaction of an archive dropped or summarized'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -l json -d 'Print as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -l summary -d 'One line per compaction (when, what it read and wrote, tokens and messages before and after, edits by kind) instead of every edit'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "show" -d 'What each compaction of an archive dropped or summarized'
complete -c ctxc -n "__fish_ctxc_using_subcommand archive; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "show" -d 'Print the effective settings of `ctxc compact` and where each comes from'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and not __fish_seen_subcommand_from show help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -l config -d 'Read settings from this YAML file [default: ./ctxc.yaml, else the user config dir\'s ctxc/ctxc.yaml]' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -l no-config -d 'Read no settings file (environment and flags only)'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -l json -d 'Print as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "show" -d 'Print the effective settings of `ctxc compact` and where each comes from'
complete -c ctxc -n "__fish_ctxc_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -f -a "merge" -d 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and not __fish_seen_subcommand_from merge help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from merge" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from help" -f -a "merge" -d 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
complete -c ctxc -n "__fish_ctxc_using_subcommand report; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l context-window -d 'Context window in tokens (default: the model\'s, else the one the transcript records or its model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l encoding -d 'Tokenizer' -r -f -a "o200k_base\t''
cl100k_base\t''
p50k_base\t''
r50k_base\t''
llama3\t''
qwen2\t''
deepseek_v3\t''
mistral_v3\t''
kimi_k2\t''
glm4\t''
glm5\t''
minimax_m2\t''
estimate\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s a -l all -d 'List the sessions of every project, not only this directory\'s'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l json -d 'Print the list as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand sessions" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand completions" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -l dir -d 'Write every page into this directory' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand man" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l context-window -d 'Context window in tokens (default: the model\'s, else the one the transcript records or its model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l encoding -d 'Tokenizer' -r -f -a "o200k_base\t''
cl100k_base\t''
p50k_base\t''
r50k_base\t''
llama3\t''
qwen2\t''
deepseek_v3\t''
mistral_v3\t''
kimi_k2\t''
glm4\t''
glm5\t''
minimax_m2\t''
estimate\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l trigger-ratio -d 'Fire when context tokens reach this share of the window [default: 0.8]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l trigger-remaining -d 'Fire when less than this share of the window remains (seed 000: 0.25); the same as --trigger-ratio 1-RATIO' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l turn-threshold -d 'Fire when a conversation has this many user turns [default: 200]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l max-events -d 'Fire when a conversation has this many messages [default: 700]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l no-marker -d 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l raw-tokens -d 'Compare ctxc\'s own count with the token trigger and --target-tokens even when the transcript records provider usage (by default the provider\'s calibrated figure)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l format -d 'Read every input as this format instead of detecting it' -r -f -a "qwen\t''
claude-code\t''
codex\t''
pi\t''
gemini\t''
sharegpt\t''
openhands\t''
openhands-sdk\t''
atif\t''
anthropic\t''
openai\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l max-input-bytes -d 'Refuse an input larger than this, without reading it (K, M, G, T: powers of 1024); standard input and named pipes are read up to it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l column -d 'The conversation column of a Parquet dataset [default: the first of messages, conversations, conversation, trajectory, history, traj, chat, session]: a list of structs, a string of JSON, or an agent\'s session file as text' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l context-window -d 'Context window in tokens (default: the model\'s, else the one the transcript records or its model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l encoding -d 'Tokenizer' -r -f -a "o200k_base\t''
cl100k_base\t''
p50k_base\t''
r50k_base\t''
llama3\t''
qwen2\t''
deepseek_v3\t''
mistral_v3\t''
kimi_k2\t''
glm4\t''
glm5\t''
minimax_m2\t''
estimate\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l strategy -d 'Strategies to compare, comma-separated [default: adaptive]; each runs alone (see `ctxc compact --strategy`)' -r -f -a "adaptive\t''
strip-payloads\t''
dedup\t''
trim-outputs\t''
trim-calls\t''
sliding-window\t''
importance\t''
key-events\t''
incremental\t''
selective\t''
observation-masking\t''
full-summary\t''
truncate\t''
drop-stored\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l target-ratio -d 'Target shares of each conversation\'s context tokens to compare, comma-separated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l summary-max-tokens -d 'Token budget of each summary [default: 1000]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge -d 'Also have a model answer a sample of probe questions from each compacted context and from the original, and score the answers 0-5 on accuracy, context awareness, artifact trail, completeness, continuity and instruction following: openai (any OpenAI-compatible /chat/completions) or anthropic (/messages). The API key comes only from OPENAI_API_KEY, ANTHROPIC_API_KEY or CTXC_API_KEY' -r -f -a "openai\t''
anthropic\t''"
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge-model -d 'The model that answers and judges (required with --judge)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge-base-url -d 'The judge API\'s base URL [default: https://api.openai.com/v1, https://api.anthropic.com/v1]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge-probes -d 'Probe questions asked per conversation, taken from the four categories in turn [default: 12]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge-timeout -d 'Seconds a judge request may take, connect and response [default: 120]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l llm-concurrency -d 'Judge requests in flight at once, whatever --jobs is [default: 4]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l judge-cache -d 'Where replies are cached by the digest of their request, so a re-run costs nothing [default: ctxc/judge in the user\'s cache directory, ~/.cache/ctxc/judge on Linux]; delete it to clear the cache' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l color -d 'When to colour what ctxc writes (help and errors; reports and progress have none): auto colours a terminal unless NO_COLOR is set, or CLICOLOR_FORCE is' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set (or anywhere when CLICOLOR_FORCE is)'
always\t'Always, even into a pipe or file'
never\t'Never'"
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l no-judge-cache -d 'Neither read nor write the judge cache'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l no-redact -d 'Send transcripts to the judge without redacting secrets (API keys, tokens, passwords) first'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l allow-insecure-http -d 'Allow plain http:// to a judge host that is not this machine'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -s v -l verbose -d 'Log what is done on stderr (-v: per file, -vv: per step)'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand eval" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "check" -d 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "compact" -d 'Compact transcripts: write each in its own format, smaller, and report what was done'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "convert" -d 'Convert transcripts between formats whose meaning maps cleanly: OpenAI chat and ATIF'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "fit" -d 'Make agent trajectories into training samples that fit --max-len tokens of the trained model\'s tokenizer and chat template'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "repair" -d 'Fix what stops a session from resuming, naming every repair as `path:line: what was wrong → what was done`'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "restore" -d 'Rebuild the original transcript, byte for byte, from a compaction archive'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "archive" -d 'Inspect compaction archives'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "config" -d 'Show the effective configuration and where each value comes from'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "report" -d 'Work with compaction reports'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "sessions" -d 'List the Claude Code, Codex and pi sessions of this directory\'s project (or all of them)'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "completions" -d 'Print a shell\'s completion script for ctxc (bash, zsh, fish, elvish, powershell)'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "man" -d 'Print ctxc\'s man page, or a command\'s (`ctxc man compact`, `ctxc man report merge`)'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "stats" -d 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "eval" -d 'Measure what each strategy keeps: probes an agent must still answer after compaction'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact convert fit repair restore archive config report sessions completions man stats eval help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and __fish_seen_subcommand_from archive" -f -a "show" -d 'What each compaction of an archive dropped or summarized'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "show" -d 'Print the effective settings of `ctxc compact` and where each comes from'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and __fish_seen_subcommand_from report" -f -a "merge" -d 'Combine JSON reports of `ctxc compact` (from shards or machines) into one'
