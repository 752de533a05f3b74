use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = ctxc::cli::parse();
    match ctxc::run(cli) {
        Ok(status) => ExitCode::from(status as u8),
        // A reader that closed our stdout early (`ctxc check ... | head`) is not an error.
        Err(err) if ctxc::output::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if ctxc::output::is_output_error(&err) => {
            eprintln!("ctxc: {err:#}");
            ExitCode::from(ctxc::ExitStatus::Failure as u8)
        }
        Err(err) => {
            eprintln!("ctxc: {err:#}");
            ExitCode::from(ctxc::ExitStatus::Error as u8)
        }
    }
}
