
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
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand check 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
            cand compact 'Compact transcripts: write each in its own format, smaller, and report what was done'
            cand stats 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;check'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --json 'Print findings as JSON'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;compact'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else 200000)'
            cand --encoding 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate'
            cand --trigger-ratio 'Fire when context tokens reach this share of the window [default: 0.8]'
            cand --turn-threshold 'Fire when a conversation has this many user turns [default: 200]'
            cand --max-events 'Fire when a conversation has this many messages [default: 700]'
            cand --strategy 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate'
            cand --target-tokens 'Compact each conversation to at most this many context tokens [default: the trigger threshold]'
            cand --target-ratio 'Compact each conversation to at most this share of its context tokens (e.g. 0.5)'
            cand --summary-max-tokens 'Token budget of each summary [default: 1000]'
            cand -o 'Write the output here instead of beside the input (one input only; `-` for stdout)'
            cand --output 'Write the output here instead of beside the input (one input only; `-` for stdout)'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand --no-marker 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
            cand --force 'Compact even when no trigger fires'
            cand --keep-payloads 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain'
            cand --force-overwrite 'Replace an existing output file'
            cand --dry-run 'Do everything but write: report what would happen'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;stats'= {
            cand --glob 'File-name patterns to pick in directories (repeatable)'
            cand --format 'Read every input as this format instead of detecting it'
            cand --messages-path 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)'
            cand --model 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated'
            cand --context-window 'Context window in tokens (default: the model''s, else 200000)'
            cand --encoding 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate'
            cand --trigger-ratio 'Fire when context tokens reach this share of the window [default: 0.8]'
            cand --turn-threshold 'Fire when a conversation has this many user turns [default: 200]'
            cand --max-events 'Fire when a conversation has this many messages [default: 700]'
            cand -j 'Worker threads (default: one per core)'
            cand --jobs 'Worker threads (default: one per core)'
            cand --no-cache 'Tokenize every text, even text seen before (for measurements)'
            cand --no-marker 'Ignore the !!!SUMMARY!!! marker in the last assistant message'
            cand --json 'Print the report as JSON (camelCase, with schemaVersion)'
            cand --yaml 'Print the report as YAML'
            cand --markdown 'Print the report as a markdown table'
            cand -q 'Print nothing but data and errors'
            cand --quiet 'Print nothing but data and errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'ctxc;help'= {
            cand check 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
            cand compact 'Compact transcripts: write each in its own format, smaller, and report what was done'
            cand stats 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;help;check'= {
        }
        &'ctxc;help;compact'= {
        }
        &'ctxc;help;stats'= {
        }
        &'ctxc;help;help'= {
        }
    ]
    $completions[$command]
}
