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
complete -c ctxc -n "__fish_ctxc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l glob -d 'File-name patterns to pick in directories (repeatable)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l format -d 'Read every input as this format instead of detecting it' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l messages-path -d 'JSON pointer naming the message lists, `*` for each element (e.g. `/*/traj`)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s j -l jobs -d 'Worker threads (default: one per core)' -r
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -l json -d 'Print findings as JSON'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s q -l quiet -d 'Print nothing but data and errors'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c ctxc -n "__fish_ctxc_using_subcommand check" -s V -l version -d 'Print version'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check help" -f -a "check" -d 'Validate transcripts: parsing, tool call/result pairing, role order, chain links'
complete -c ctxc -n "__fish_ctxc_using_subcommand help; and not __fish_seen_subcommand_from check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
