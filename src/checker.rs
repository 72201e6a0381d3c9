//! Runs an external model checker (NuSMV or nuXmv) and reads its verdicts.
//!
//! Input: an SMV model (text, written to a temporary directory, or a path),
//! a [`Tool`], an [`Engine`] and an optional timeout. Output: a [`CheckRun`]
//! holding the parsed [`CheckerOutput`] (see [`crate::trace`]) and the raw
//! output.
//!
//! Invariants:
//! * the binary is found explicitly: a given path, else the tool's
//!   environment variable (`NUSMV`, `NUXMV`), else `PATH` — a path or
//!   variable that points nowhere is an error, never a silent fallback;
//! * a run never outlives its timeout: the child is killed and
//!   [`CheckerError::Timeout`] returned;
//! * NuSMV exits 0 even when a property is false, so verdicts come only
//!   from the parsed output; each way of failing (missing binary, model
//!   rejected, other non-zero exit, timeout, unreadable output) is its own
//!   [`CheckerError`] variant.

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use nom::bytes::complete::{tag, take_until};
use nom::character::complete::{char, space0, u32 as dec_u32};
use nom::combinator::{opt, rest};
use nom::sequence::tuple;
use nom::IResult;
use thiserror::Error;

use crate::trace::{self, CheckerOutput, TraceError};

/// Which model checker to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tool {
    /// NuSMV 2.5/2.6: binary `NuSMV`, environment variable `NUSMV`.
    NuSmv,
    /// nuXmv: binary `nuXmv`, environment variable `NUXMV`.
    NuXmv,
}

impl Tool {
    /// The executable's name on `PATH`.
    pub fn binary_name(self) -> &'static str {
        match self {
            Tool::NuSmv => "NuSMV",
            Tool::NuXmv => "nuXmv",
        }
    }

    /// The environment variable that may hold the executable's path.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::NuSmv => "NUSMV",
            Tool::NuXmv => "NUXMV",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.binary_name())
    }
}

/// How the checker decides the properties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// BDD-based checking of every property: `NuSMV model.smv`.
    Bdd,
    /// SAT-based bounded model checking of paths of length `0..=bound`:
    /// `NuSMV -bmc -bmc_length K model.smv`. LTL properties without a
    /// counterexample come back as `NoCounterexampleUpTo(K)`; INVARSPECs are
    /// tried by induction and may come back as `InductionFailed`.
    Bmc { bound: usize },
    /// nuXmv's MathSAT-based BMC (`read_model; go_msat;
    /// msat_check_ltlspec_bmc -k K` through a `-source` script). nuXmv only.
    MsatBmc { bound: usize },
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Engine::Bdd => f.write_str("BDD"),
            Engine::Bmc { bound } => write!(f, "BMC up to bound {bound}"),
            Engine::MsatBmc { bound } => write!(f, "MathSAT BMC up to bound {bound}"),
        }
    }
}

/// Why a check did not produce verdicts.
#[derive(Debug, Error)]
pub enum CheckerError {
    #[error("{tool} not found: {searched}")]
    NotFound { tool: Tool, searched: String },
    #[error("the {engine} engine needs {needs}, not {tool}")]
    Unsupported {
        tool: Tool,
        engine: Engine,
        needs: Tool,
    },
    #[error("cannot prepare the model for {tool}: {source}")]
    Io {
        tool: Tool,
        #[source]
        source: io::Error,
    },
    #[error("cannot start {}: {source}", binary.display())]
    Spawn {
        binary: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The checker rejected the model (syntax error, type error, undefined
    /// name, unreadable file): it printed `file F: line N: …` and failed.
    #[error("{tool} rejected the model: file {file}{}: {message}", line.map(|l| format!(", line {l}")).unwrap_or_default())]
    Model {
        tool: Tool,
        file: String,
        line: Option<usize>,
        message: String,
        /// Everything the checker wrote on standard error.
        stderr: String,
    },
    /// Any other non-zero exit (bad option, crash, killed by a signal).
    #[error("{tool} failed ({status}): {}", last_lines(stderr, 3))]
    Exit {
        tool: Tool,
        status: String,
        stderr: String,
    },
    #[error("{tool} did not finish within {:.1} s and was killed", limit.as_secs_f64())]
    Timeout { tool: Tool, limit: Duration },
    /// The checker finished but its output could not be read.
    #[error("cannot read the output of {tool}: {source}")]
    Parse {
        tool: Tool,
        #[source]
        source: TraceError,
        stdout: String,
    },
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return "no message on standard error".to_string();
    }
    lines[lines.len().saturating_sub(n)..].join(" / ")
}

/// One finished run.
#[derive(Clone, Debug)]
pub struct CheckRun {
    /// The parsed verdicts and traces. Warnings the checker wrote on
    /// standard error are appended to `output.warnings`.
    pub output: CheckerOutput,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock time of the run (for reports, not for tests).
    pub elapsed: Duration,
}

/// A located model checker with its run settings.
#[derive(Clone, Debug)]
pub struct Checker {
    tool: Tool,
    binary: PathBuf,
    timeout: Option<Duration>,
    extra_args: Vec<OsString>,
}

impl Checker {
    /// Finds `tool`: `explicit` if given, else the path in the tool's
    /// environment variable if set, else the binary on `PATH`.
    pub fn locate(tool: Tool, explicit: Option<&Path>) -> Result<Checker, CheckerError> {
        let env = std::env::var_os(tool.env_var());
        let binary = locate_with(tool, explicit, env, |name| which::which(name).ok())?;
        Ok(Checker {
            tool,
            binary,
            timeout: None,
            extra_args: Vec::new(),
        })
    }

    /// Kills the checker and fails with [`CheckerError::Timeout`] after
    /// `limit` (`None`: no limit).
    pub fn with_timeout(mut self, limit: Option<Duration>) -> Self {
        self.timeout = limit;
        self
    }

    /// Passes extra command-line options before the model (e.g. `-dcx`).
    pub fn with_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.extra_args = args.into_iter().map(Into::into).collect();
        self
    }

    pub fn tool(&self) -> Tool {
        self.tool
    }

    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// Checks the model text: writes it to `model.smv` in a fresh temporary
    /// directory (so messages say `file model.smv`) and runs there.
    pub fn check_str(&self, model: &str, engine: Engine) -> Result<CheckRun, CheckerError> {
        let io_err = |source| CheckerError::Io {
            tool: self.tool,
            source,
        };
        let dir = tempfile::Builder::new()
            .prefix("checkmate-")
            .tempdir()
            .map_err(io_err)?;
        let path = dir.path().join("model.smv");
        std::fs::write(&path, model).map_err(io_err)?;
        self.run(Path::new("model.smv"), dir.path(), engine)
    }

    /// Checks the model file at `model`.
    pub fn check_file(&self, model: &Path, engine: Engine) -> Result<CheckRun, CheckerError> {
        let cwd = std::env::current_dir().map_err(|source| CheckerError::Io {
            tool: self.tool,
            source,
        })?;
        self.run(model, &cwd, engine)
    }

    fn run(&self, model: &Path, cwd: &Path, engine: Engine) -> Result<CheckRun, CheckerError> {
        // `_script` (nuXmv's command file, if any) must outlive the run.
        let (args, _script) = self.command(model, engine)?;
        self.finish(&args, cwd)
    }

    /// The command-line arguments for `engine`, and the `-source` script
    /// they name, if any.
    fn command(
        &self,
        model: &Path,
        engine: Engine,
    ) -> Result<(Vec<OsString>, Option<tempfile::NamedTempFile>), CheckerError> {
        let mut args = self.extra_args.clone();
        match engine {
            Engine::Bdd => args.push(model.into()),
            Engine::Bmc { bound } => {
                args.extend([
                    "-bmc".into(),
                    "-bmc_length".into(),
                    bound.to_string().into(),
                ]);
                args.push(model.into());
            }
            Engine::MsatBmc { bound } => {
                if self.tool != Tool::NuXmv {
                    return Err(CheckerError::Unsupported {
                        tool: self.tool,
                        engine,
                        needs: Tool::NuXmv,
                    });
                }
                let io_err = |source| CheckerError::Io {
                    tool: self.tool,
                    source,
                };
                let mut script = tempfile::Builder::new()
                    .prefix("checkmate-msat-")
                    .suffix(".cmd")
                    .tempfile()
                    .map_err(io_err)?;
                script
                    .write_all(msat_script(model, bound).as_bytes())
                    .map_err(io_err)?;
                args.extend(["-source".into(), script.path().into()]);
                return Ok((args, Some(script)));
            }
        }
        Ok((args, None))
    }

    fn finish(&self, args: &[OsString], cwd: &Path) -> Result<CheckRun, CheckerError> {
        let (status, stdout, stderr, elapsed) = self.spawn_and_wait(args, cwd)?;
        if !status.success() {
            return Err(self.failure(status, stderr));
        }
        let mut output = trace::parse_text(&stdout).map_err(|source| CheckerError::Parse {
            tool: self.tool,
            source,
            stdout: stdout.clone(),
        })?;
        output.warnings.extend(
            stderr
                .lines()
                .filter(|l| l.trim_start().to_ascii_lowercase().starts_with("warning"))
                .map(str::to_string),
        );
        Ok(CheckRun {
            output,
            stdout,
            stderr,
            elapsed,
        })
    }

    /// Runs the binary, reading both pipes on their own threads so a full
    /// pipe can never stall the child, and polls for exit or timeout.
    fn spawn_and_wait(
        &self,
        args: &[OsString],
        cwd: &Path,
    ) -> Result<(ExitStatus, String, String, Duration), CheckerError> {
        let start = Instant::now();
        let mut child = Command::new(&self.binary)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| CheckerError::Spawn {
                binary: self.binary.clone(),
                source,
            })?;
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        let status = self.wait(&mut child, start)?;
        let stdout = join(out);
        let stderr = join(err);
        Ok((status, stdout, stderr, start.elapsed()))
    }

    fn wait(&self, child: &mut Child, start: Instant) -> Result<ExitStatus, CheckerError> {
        let mut pause = Duration::from_millis(1);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Ok(status),
                Ok(None) => {}
                Err(source) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(CheckerError::Spawn {
                        binary: self.binary.clone(),
                        source,
                    });
                }
            }
            if let Some(limit) = self.timeout {
                if start.elapsed() >= limit {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(CheckerError::Timeout {
                        tool: self.tool,
                        limit,
                    });
                }
            }
            thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }

    fn failure(&self, status: ExitStatus, stderr: String) -> CheckerError {
        if let Some((file, line, message)) = stderr.lines().find_map(model_error) {
            return CheckerError::Model {
                tool: self.tool,
                file,
                line,
                message,
                stderr,
            };
        }
        let status = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_string(),
        };
        CheckerError::Exit {
            tool: self.tool,
            status,
            stderr,
        }
    }
}

/// The search itself, with the environment and `PATH` passed in.
fn locate_with(
    tool: Tool,
    explicit: Option<&Path>,
    env: Option<OsString>,
    on_path: impl Fn(&str) -> Option<PathBuf>,
) -> Result<PathBuf, CheckerError> {
    let not_found = |searched: String| CheckerError::NotFound { tool, searched };
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(not_found(format!(
                "the given path {} is not a file",
                path.display()
            )))
        };
    }
    if let Some(value) = env.filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&value);
        if path.is_file() {
            return Ok(path);
        }
        if let Some(found) = path.to_str().and_then(&on_path) {
            return Ok(found);
        }
        return Err(not_found(format!(
            "{}={} is neither a file nor a command on PATH",
            tool.env_var(),
            path.display()
        )));
    }
    on_path(tool.binary_name()).ok_or_else(|| {
        let hint = match tool {
            Tool::NuSmv => "; scripts/install-nusmv.sh builds it",
            Tool::NuXmv => "",
        };
        not_found(format!(
            "no `{}` on PATH and {} is not set{hint}",
            tool.binary_name(),
            tool.env_var()
        ))
    })
}

/// The `-source` script for nuXmv's MathSAT BMC.
fn msat_script(model: &Path, bound: usize) -> String {
    format!(
        "set on_failure_script_quits\nread_model -i \"{}\"\ngo_msat\nmsat_check_ltlspec_bmc -k {bound}\nquit\n",
        model.display()
    )
}

type Drain = JoinHandle<Vec<u8>>;

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<Drain> {
    pipe.map(|mut p| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = p.read_to_end(&mut buf);
            buf
        })
    })
}

fn join(handle: Option<Drain>) -> String {
    let bytes = handle.and_then(|h| h.join().ok()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads `file F: line N: message` (and NuSMV's `TYPE ERROR file F: line
/// N : message`) from one line of standard error.
fn model_error(line: &str) -> Option<(String, Option<usize>, String)> {
    fn parse(i: &str) -> IResult<&str, (&str, u32, &str)> {
        let (i, _) = tuple((space0, opt(tag("TYPE ERROR ")), tag("file ")))(i)?;
        let (i, file) = take_until(": line ")(i)?;
        let (i, (_, n, _, _, _, msg)) =
            tuple((tag(": line "), dec_u32, space0, char(':'), space0, rest))(i)?;
        Ok((i, (file, n, msg)))
    }
    let (_, (file, n, msg)) = parse(line).ok()?;
    Some((file.to_string(), Some(n as usize), msg.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nusmv_error_lines() {
        assert_eq!(
            model_error("file syn.smv: line 4: at token \";\": syntax error"),
            Some((
                "syn.smv".into(),
                Some(4),
                "at token \";\": syntax error".into()
            ))
        );
        assert_eq!(
            model_error("TYPE ERROR file ty2.smv: line 3 : illegal operand types of \":=\" : boolean and integer"),
            Some((
                "ty2.smv".into(),
                Some(3),
                "illegal operand types of \":=\" : boolean and integer".into()
            ))
        );
        assert_eq!(model_error("NuSMV terminated by a signal"), None);
    }

    #[test]
    fn search_order_is_explicit_then_env_then_path() {
        let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let path_has = |_: &str| Some(PathBuf::from("/on/path/NuSMV"));
        let path_lacks = |_: &str| None;

        let found = locate_with(Tool::NuSmv, Some(&here), Some("x".into()), path_has).unwrap();
        assert_eq!(found, here, "an explicit path wins");
        let found = locate_with(Tool::NuSmv, None, Some(here.clone().into()), path_has).unwrap();
        assert_eq!(found, here, "then the environment variable");
        let found = locate_with(Tool::NuSmv, None, None, path_has).unwrap();
        assert_eq!(found, PathBuf::from("/on/path/NuSMV"), "then PATH");
        let found = locate_with(Tool::NuSmv, None, Some("".into()), path_has).unwrap();
        assert_eq!(
            found,
            PathBuf::from("/on/path/NuSMV"),
            "an empty variable is unset"
        );

        let err = locate_with(Tool::NuXmv, None, None, path_lacks).unwrap_err();
        assert_eq!(
            err.to_string(),
            "nuXmv not found: no `nuXmv` on PATH and NUXMV is not set"
        );
        let err =
            locate_with(Tool::NuSmv, None, Some("/no/such/NuSMV".into()), path_lacks).unwrap_err();
        assert!(err.to_string().contains("NUSMV=/no/such/NuSMV"), "{err}");
        let err =
            locate_with(Tool::NuSmv, Some(Path::new("/no/such")), None, path_has).unwrap_err();
        assert!(
            matches!(err, CheckerError::NotFound { .. }),
            "no fallback from a bad explicit path"
        );
    }

    #[test]
    fn msat_script_reads_the_model_and_quits() {
        let s = msat_script(Path::new("model.smv"), 7);
        assert!(s.contains("read_model -i \"model.smv\""));
        assert!(s.contains("go_msat\nmsat_check_ltlspec_bmc -k 7\nquit\n"));
    }
}
