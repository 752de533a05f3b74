
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
        &'ctxc;help'= {
            cand check 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'ctxc;help;check'= {
        }
        &'ctxc;help;help'= {
        }
    ]
    $completions[$command]
}
