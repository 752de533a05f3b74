
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
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate transcripts: parsing, tool call/result pairing, role order, chain links')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact transcripts: write each in its own format, smaller, and report what was done')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;check' {
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'File-name patterns to pick in directories (repeatable)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of detecting it')
            [CompletionResult]::new('--messages-path', '--messages-path', [CompletionResultType]::ParameterName, 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print findings as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
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
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate')
            [CompletionResult]::new('--trigger-ratio', '--trigger-ratio', [CompletionResultType]::ParameterName, 'Fire when context tokens reach this share of the window [default: 0.8]')
            [CompletionResult]::new('--turn-threshold', '--turn-threshold', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many user turns [default: 200]')
            [CompletionResult]::new('--max-events', '--max-events', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many messages [default: 700]')
            [CompletionResult]::new('--strategy', '--strategy', [CompletionResultType]::ParameterName, 'Strategies to run in order, comma-separated [default: adaptive]: adaptive, strip-payloads, sliding-window, importance, key-events, incremental, selective, observation-masking, full-summary, truncate')
            [CompletionResult]::new('--target-tokens', '--target-tokens', [CompletionResultType]::ParameterName, 'Compact each conversation to at most this many context tokens [default: the trigger threshold]')
            [CompletionResult]::new('--target-ratio', '--target-ratio', [CompletionResultType]::ParameterName, 'Compact each conversation to at most this share of its context tokens (e.g. 0.5)')
            [CompletionResult]::new('--summary-max-tokens', '--summary-max-tokens', [CompletionResultType]::ParameterName, 'Token budget of each summary [default: 1000]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the output here instead of beside the input (one input only; `-` for stdout)')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('--no-marker', '--no-marker', [CompletionResultType]::ParameterName, 'Ignore the !!!SUMMARY!!! marker in the last assistant message')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Compact even when no trigger fires')
            [CompletionResult]::new('--keep-payloads', '--keep-payloads', [CompletionResultType]::ParameterName, 'Do not strip stored payloads (progress records, toolUseResult copies, base64 media) in the adaptive chain')
            [CompletionResult]::new('--force-overwrite', '--force-overwrite', [CompletionResultType]::ParameterName, 'Replace an existing output file')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Do everything but write: report what would happen')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
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
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'Model name: sets the encoding and context window (e.g. gpt-4o, claude-sonnet-4-5). Models without a public tokenizer are counted with o200k_base and marked estimated')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'Context window in tokens (default: the model''s, else 200000)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Tokenizer: o200k_base, cl100k_base, p50k_base, r50k_base or estimate')
            [CompletionResult]::new('--trigger-ratio', '--trigger-ratio', [CompletionResultType]::ParameterName, 'Fire when context tokens reach this share of the window [default: 0.8]')
            [CompletionResult]::new('--turn-threshold', '--turn-threshold', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many user turns [default: 200]')
            [CompletionResult]::new('--max-events', '--max-events', [CompletionResultType]::ParameterName, 'Fire when a conversation has this many messages [default: 700]')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Worker threads (default: one per core)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Tokenize every text, even text seen before (for measurements)')
            [CompletionResult]::new('--no-marker', '--no-marker', [CompletionResultType]::ParameterName, 'Ignore the !!!SUMMARY!!! marker in the last assistant message')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the report as JSON (camelCase, with schemaVersion)')
            [CompletionResult]::new('--yaml', '--yaml', [CompletionResultType]::ParameterName, 'Print the report as YAML')
            [CompletionResult]::new('--markdown', '--markdown', [CompletionResultType]::ParameterName, 'Print the report as a markdown table')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing but data and errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'ctxc;help' {
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate transcripts: parsing, tool call/result pairing, role order, chain links')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact transcripts: write each in its own format, smaller, and report what was done')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Dry-run token report: context tokens per file, by role, kind and tool; which triggers fire')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'ctxc;help;check' {
            break
        }
        'ctxc;help;compact' {
            break
        }
        'ctxc;help;stats' {
            break
        }
        'ctxc;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
