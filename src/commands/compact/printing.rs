//! The run's report: printed in the chosen format (a table on a terminal) and written to
//! `--report FILE`.

use super::*;
use crate::human::Shown;

/// Prints the report (`report`, its files in `files`): JSON streamed, other formats laid out
/// from all the reports.
pub(super) fn print(
    report: &CompactReport,
    files: &Spooled,
    format: OutputFormat,
    quiet: bool,
    to_stderr: bool,
) -> Result<()> {
    if quiet && format == OutputFormat::Table {
        return Ok(());
    }
    if format == OutputFormat::Json {
        if to_stderr {
            let mut err = std::io::BufWriter::new(std::io::stderr().lock());
            files.write_json(report, &mut err)?;
            return Ok(err.flush()?);
        }
        let mut out = std::io::BufWriter::with_capacity(1 << 20, crate::output::Stdout);
        return files
            .write_json(report, &mut out)
            .and_then(|()| out.flush().map_err(Into::into))
            .context(crate::output::OutputFailed);
    }
    let terminal = if to_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let text = rendered(report, files, format, terminal)?;
    if to_stderr {
        std::io::stderr().lock().write_all(text.as_bytes())?;
    } else {
        crate::output::write_stdout(text.as_bytes())?;
    }
    Ok(())
}

/// The report with all its files, in a format other than JSON; a table for a `terminal`
/// with its paths shortened.
pub(super) fn rendered(
    report: &CompactReport,
    files: &Spooled,
    format: OutputFormat,
    terminal: bool,
) -> Result<String> {
    let whole = CompactReport {
        schema_version: report.schema_version,
        tokenizer: report.tokenizer.clone(),
        strategies: report.strategies.clone(),
        summarizer: report.summarizer.clone(),
        dry_run: report.dry_run,
        interrupted: report.interrupted,
        files: files.all()?,
        totals: report.totals.clone(),
    };
    let mut table = table(&whole, Columns::of(format));
    if terminal && format == OutputFormat::Table {
        report::fit_terminal(&mut table, 0);
    }
    report::render(format, &whole, &table)
}

/// Writes the report to `path` (a file, or an object named by its URL) in the format its
/// extension names.
pub(super) fn write_report_file(
    report: &CompactReport,
    files: &Spooled,
    path: &Path,
) -> Result<()> {
    let format = report::format_of_path(path);
    if let Some(url) = Url::of_path(path) {
        let url = url?;
        let uploaded = if format == OutputFormat::Json {
            // Streamed from the spool to an unnamed file, then uploaded (in parts when large).
            tempfile::tempfile()
                .map_err(Into::into)
                .and_then(|mut tmp| {
                    let mut out = std::io::BufWriter::new(&tmp);
                    files.write_json(report, &mut out)?;
                    out.flush()?;
                    drop(out);
                    store::put_file(&url, &mut tmp).map(drop)
                })
        } else {
            rendered(report, files, format, false)
                .and_then(|text| store::put(&url, text.as_bytes()).map(drop))
        };
        return uploaded.with_context(|| format!("writing the report {url}", url = url.shown()));
    }
    let written = if format == OutputFormat::Json {
        crate::outputs::atomic::write_streamed(path, |out| files.write_json(report, out))
    } else {
        rendered(report, files, format, false)
            .and_then(|text| crate::outputs::write_atomic(path, text.as_bytes(), None))
    };
    written.with_context(|| format!("writing the report {}", path.shown()))
}
