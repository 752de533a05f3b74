# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_ctxc_global_optspecs
    string join \n q/quiet j/jobs= h/help V/version
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
complete -c ctxc -n "__fish_ctxc_needs_command" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_needs_command" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "check" -d 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "compact" -d 'Compact transcripts: write each in its own format, smaller, and report what was done'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "stats" -d 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l format -d 'Read every input as this format instead of detecting it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l json -d 'Print findings as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l format -d 'Read every input as this format instead of detecting it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l context-window -d 'Context window in tokens (default: the model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l encoding -d 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l trigger-ratio -d 'Fire when context tokens reach this share of the window [default: 0.8]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l turn-threshold -d 'Fire when a conversation has this many user turns [default: 200]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l max-events -d 'Fire when a conversation has this many messages [default: 700]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l strategy -d 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l target-tokens -d 'Compact each conversation to at most this many context tokens [default: the trigger threshold]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l target-ratio -d 'Compact each conversation to at most this share of its context tokens (e.g. 0.5)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l summary-max-tokens -d 'Token budget of each summary [default: 1000]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s o -l output -d 'Write the output here instead of beside the input (one input only; `-` for stdout)' -r -F
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l no-marker -d 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l force -d 'Compact even when no trigger fires'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l keep-payloads -d 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l force-overwrite -d 'Replace an existing output file'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l dry-run -d 'Do everything but write: report what would happen'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand compact" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l format -d 'Read every input as this format instead of detecting it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l model -d 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l context-window -d 'Context window in tokens (default: the model\'s, else 200000)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l encoding -d 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l trigger-ratio -d 'Fire when context tokens reach this share of the window [default: 0.8]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l turn-threshold -d 'Fire when a conversation has this many user turns [default: 200]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l max-events -d 'Fire when a conversation has this many messages [default: 700]' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l no-cache -d 'Tokenize every text, even text seen before (for measurements)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l no-marker -d 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l json -d 'Print the report as JSON (camelCase, with schemaVersion)'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l yaml -d 'Print the report as YAML'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -l markdown -d 'Print the report as a markdown table'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand stats" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact stats help" -f -a "check" -d 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact stats help" -f -a "compact" -d 'Compact transcripts: write each in its own format, smaller, and report what was done'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact stats help" -f -a "stats" -d 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check compact stats help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
