//! Command-line arguments (clap derive). Usage errors exit with status 2.

use clap::{Args, Parser, Subcommand, ValueEnum};
use kcel::Type;

use crate::libraries::{LibrarySpec, parse_spec};
use crate::usage_error::UsageError;

/// Evaluate, type-check and explore CEL expressions for Kubernetes.
#[derive(Parser, Debug)]
#[command(name = "kcel", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile and evaluate an expression.
    #[command(after_help = EVAL_EXAMPLES)]
    Eval {
        #[command(flatten)]
        expression: ExpressionArgs,
    },
    /// Parse and type-check an expression without evaluating it; prints its type and
    /// estimated cost. Accepts every option of `eval` (values are read only for their names).
    #[command(after_help = CHECK_EXAMPLES)]
    Check {
        #[command(flatten)]
        expression: ExpressionArgs,
    },
    /// Validate objects as kube-apiserver would: custom resources against a CRD's schema and
    /// x-kubernetes-validations rules, built-in kinds (Deployment, ConfigMap, ...) against
    /// Kubernetes 1.37's OpenAPI schemas (exit 1 when any object is invalid, 3 when the CRD's
    /// rules do not compile).
    #[command(after_help = VALIDATE_EXAMPLES)]
    Validate {
        /// CustomResourceDefinitions of the custom resources (YAML or JSON; several documents
        /// and Lists allowed; a directory stands for its .json, .yaml and .yml files; the
        /// option may be repeated): each custom resource is validated
        /// by the CRD of its kind and group; any other object must be of a built-in kind.
        #[arg(long, value_name = "CRD.yaml")]
        crd: Vec<std::path::PathBuf>,
        /// Old objects, for updates (transition rules and ratcheting; the update rules of
        /// built-in kinds, such as an immutable selector): each object is validated as an
        /// update of the old object with its group, kind, namespace and name.
        #[arg(long, value_name = "OLD.yaml")]
        old: Option<std::path::PathBuf>,
        /// The objects to validate (YAML or JSON; several documents and Lists allowed; a
        /// directory stands for its .json, .yaml and .yml files, as with `kubectl -f`; `-`
        /// for stdin).
        #[arg(required = true, value_name = "OBJECT.yaml")]
        objects: Vec<std::path::PathBuf>,
        /// The memory budget of each rule's evaluation, in bytes (default 67108864, 64 MiB,
        /// as `kcel-apiserver`'s `--cel-memory-limit-bytes`): a rule building or walking
        /// more fails with `operation cancelled: memory limit exceeded`; 0 for no limit.
        #[arg(long, value_name = "BYTES")]
        memory_limit: Option<u64>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Run test suites against ValidatingAdmissionPolicies and CRD rules (exit 1 when a case
    /// fails).
    #[command(after_help = TEST_EXAMPLES)]
    Test {
        /// Suite files (YAML or JSON), or directories of them.
        #[arg(required = true, value_name = "SUITE.yaml")]
        suites: Vec<std::path::PathBuf>,
        /// Also write JUnit XML to PATH (`-`: stdout, after the report).
        #[arg(long, value_name = "PATH")]
        junit: Option<std::path::PathBuf>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Interactive read-eval-print loop (reads lines from stdin when it is not a terminal).
    #[command(after_help = REPL_EXAMPLES)]
    Repl {
        #[command(flatten)]
        env: EnvArgs,
        #[command(flatten)]
        program: ProgramArgs,
    },
    /// List the functions and macros of the environment, or document one.
    #[command(after_help = FUNCTIONS_EXAMPLES)]
    Functions {
        /// A function name (e.g. `startsWith`, `_+_`); omit to list all.
        name: Option<String>,
        /// List every library with its versions (as `--lib` accepts them) instead.
        #[arg(long, conflicts_with = "name")]
        libraries: bool,
        /// Also list internal functions (names with `@`, which macros expand to).
        #[arg(long)]
        all: bool,
        /// The environment whose functions to list.
        #[command(flatten)]
        env: EnvChoice,
        /// Adds a library (repeatable), e.g. `optional` or `optional@1`.
        #[arg(long = "lib", value_name = "NAME[@VERSION]", value_parser = parse_spec)]
        lib: Vec<LibrarySpec>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell).
    #[command(after_help = COMPLETION_EXAMPLES)]
    Completion {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// The options `eval` and `check` share, so that scripts can pass one set to both.
#[derive(Args, Debug)]
pub struct ExpressionArgs {
    /// The CEL expression (it may start with `-`: `kcel eval '-1 + 2'`).
    #[arg(
        allow_hyphen_values = true,
        required_unless_present = "file",
        conflicts_with = "file"
    )]
    pub expr: Option<String>,
    /// Reads the expression from FILE (`-`: stdin) instead of the command line.
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub file: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub env: EnvArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Binds `authorizer` (Kubernetes' authz library): `allow-all`, `deny-all`, or
    /// `@PATH`, a YAML or JSON rule list (`user` and RBAC-like `rules`). `check` declares it.
    #[arg(long, value_name = "allow-all|deny-all|@PATH")]
    pub authorizer: Option<String>,
    #[command(flatten)]
    pub program: ProgramArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Prints a string result as its raw text, without quotes or escapes (like `jq -r`);
    /// other results as usual.
    #[arg(short = 'r', long = "raw-output")]
    pub raw: bool,
    /// Exit with status 1 when the result is false or null (`eval` only).
    #[arg(short = 'e', long = "exit-status")]
    pub exit_status: bool,
}

const EVAL_EXAMPLES: &str = "\
Examples:
  kcel eval '1 + 2 * 3'
  kcel eval 'self.spec.replicas <= 5' --var self=@examples/tour/deployment.yaml
  kubectl get deploy web -o json | kcel eval 'self.spec.replicas' --var self=@-
  kcel eval 'd * 2.0' --declare d=double --var d=2
  kcel eval -f rule.cel --var self=@object.yaml -o json
  kcel eval 'self.metadata.name' --var self=@object.yaml -r
  kcel eval 'authorizer.group(\"apps\").resource(\"deployments\").check(\"get\").allowed()' --authorizer allow-all

Exit status: 0 success, 1 false or null with -e, 2 usage or input error, 3 compile error,
4 evaluation error.";

const CHECK_EXAMPLES: &str = "\
Examples:
  kcel check 'n + 1' --declare n=int
  kcel check 'self.spec.replicas > 0' --schema examples/tour/widgets-crd.yaml
  kcel check -f rule.cel --var self=@object.yaml -o json

Exit status: 0 the expression compiles, 2 usage or input error, 3 compile error.";

const VALIDATE_EXAMPLES: &str = "\
Examples:
  kcel validate --crd examples/tour/widgets-crd.yaml examples/tour/widget.yaml
  kcel validate --crd crds/ --crd widgets-crd.yaml manifests/
  kubectl get widgets -o yaml | kcel validate --crd widgets-crd.yaml -
  kcel validate --crd widgets-crd.yaml --old old.yaml new.yaml -o json
  kcel validate deployment.yaml configmaps.yaml";

const TEST_EXAMPLES: &str = "\
Examples:
  kcel test tests/admission tests/crd
  kcel test suites/ --junit report.xml
  kcel test suites/ -o json";

const REPL_EXAMPLES: &str = "\
Examples:
  kcel repl
  kcel repl --env cel --lib strings
  echo '1 + 2' | kcel repl

Commands inside the REPL: %let NAME = EXPR, %declare NAME : TYPE (or NAME=TYPE),
%delete NAME, %env, %help, %exit. Tab completes variables, functions and commands.";

const FUNCTIONS_EXAMPLES: &str = "\
Examples:
  kcel functions
  kcel functions startsWith
  kcel functions all
  kcel functions --libraries
  kcel functions --env cel --lib strings -o json";

const COMPLETION_EXAMPLES: &str = "\
Examples:
  kcel completion bash > ~/.local/share/bash-completion/completions/kcel
  kcel completion zsh > \"${fpath[1]}/_kcel\"
  kcel completion fish > ~/.config/fish/completions/kcel.fish";

/// Which environment to compile against.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvKind {
    /// Kubernetes' CEL environment of `--k8s-version` in `--mode`: the standard library, the
    /// Kubernetes libraries and the cel-go extensions that version enables, homogeneous
    /// literals, literal validators, free `has()` and the 1,000,000 per-call cost limit.
    Kubernetes,
    /// The plain CEL standard library.
    Cel,
}

/// Which of Kubernetes' two environments.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    /// For new or changed expressions: what the version introduced.
    New,
    /// For stored expressions: every library not removed (the newest configuration).
    Stored,
}

/// `--env`, `--k8s-version` and `--mode`.
#[derive(Args, Debug, Clone, Copy)]
pub struct EnvChoice {
    /// The environment.
    #[arg(long, value_enum, default_value_t = EnvKind::Kubernetes)]
    pub env: EnvKind,
    /// The Kubernetes version whose environment `--env kubernetes` builds (1.27 to 1.37).
    #[arg(long = "k8s-version", value_name = "X.Y", value_parser = k8s_version, default_value = "1.37")]
    pub k8s_version: (u32, u32),
    /// Kubernetes' environment for new expressions or for stored ones.
    #[arg(long, value_enum, default_value_t = ModeArg::New)]
    pub mode: ModeArg,
}

fn k8s_version(text: &str) -> Result<(u32, u32), UsageError> {
    let bad = || UsageError::K8sVersion(text.to_string());
    let (major, minor) = text.split_once('.').ok_or_else(bad)?;
    let version = (
        major.parse::<u32>().map_err(|_| bad())?,
        minor.parse::<u32>().map_err(|_| bad())?,
    );
    if version.0 != 1 || !(27..=37).contains(&version.1) {
        return Err(bad());
    }
    Ok(version)
}

/// Options describing the compilation environment and the variables.
#[derive(Args, Debug)]
pub struct EnvArgs {
    #[command(flatten)]
    pub env: EnvChoice,
    /// Adds a library (repeatable), e.g. `optional` or `optional@1`; the newest version when
    /// none is given.
    #[arg(long = "lib", value_name = "NAME[@VERSION]", value_parser = parse_spec)]
    pub libraries: Vec<LibrarySpec>,
    /// Binds a variable: VALUE is JSON or YAML text, @PATH (a JSON or YAML file) or @- (stdin).
    /// Variables not given a type with --declare are declared `dyn`.
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = name_value)]
    pub vars: Vec<(String, String)>,
    /// Declares a variable's type in CEL type syntax, e.g. `list(int)`, `map(string, dyn)`.
    #[arg(long = "declare", value_name = "NAME=TYPE", value_parser = declaration)]
    pub declarations: Vec<(String, Type)>,
    /// The container (namespace) used to resolve names.
    #[arg(long, value_name = "NAME")]
    pub container: Option<String>,
}

/// `--schema` and `--resource-root`: `self` and `oldSelf` typed by an OpenAPI v3 schema.
#[derive(Args, Debug, Default)]
pub struct SchemaArgs {
    /// An OpenAPI v3 schema (YAML or JSON; or a CRD: its first version's schema) that types
    /// `self` and `oldSelf` as for a CRD rule at the schema's root; `--var self=...` and
    /// `--var oldSelf=...` are read under it.
    #[arg(long, value_name = "PATH")]
    pub schema: Option<std::path::PathBuf>,
    /// Treat the schema's root as a resource: `apiVersion`, `kind`, `metadata.name` and
    /// `metadata.generateName` are declared, as Kubernetes does for a CRD's top level.
    #[arg(long, requires = "schema")]
    pub resource_root: bool,
}

/// Options for planning and running programs.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ProgramArgs {
    /// Stop evaluation with an error (exit status 4) once its actual cost passes N (default:
    /// 1000000, Kubernetes' per-call limit, in Kubernetes' environment; 100000000 in the
    /// plain one); 0 for no limit.
    #[arg(long, value_name = "N")]
    pub cost_limit: Option<u64>,
    /// No constant folding or precomputation (like cel-go without OptOptimize).
    #[arg(long)]
    pub no_optimize: bool,
    /// The memory budget of an evaluation, in bytes (default 67108864, 64 MiB): building
    /// larger values, walking values past BYTES / 8 elements, or printing a result longer
    /// than BYTES is an evaluation error (exit status 4); 0 for no limit.
    #[arg(long, value_name = "BYTES")]
    pub memory_limit: Option<u64>,
}

/// How results and errors are printed.
#[derive(Args, Debug)]
pub struct OutputArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// An output format.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CEL syntax for values, cel-go style diagnostics on stderr.
    Text,
    /// The value alone as a CEL literal that parses back to an equal value (diagnostics as
    /// with `text`).
    Cel,
    /// Exactly one JSON object on stdout.
    Json,
    /// The JSON shapes as YAML on stdout.
    Yaml,
}

impl Format {
    /// Whether the output is for people (`text`, and `cel`, which only `eval` prints
    /// differently): diagnostics on stderr, reports as lines.
    pub fn is_text(self) -> bool {
        matches!(self, Format::Text | Format::Cel)
    }
}

/// Splits `NAME=VALUE` at the first `=`.
fn name_value(text: &str) -> Result<(String, String), UsageError> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| UsageError::NotNameValue(text.to_string()))?;
    Ok((checked_name(name)?, value.to_string()))
}

/// Parses `NAME=TYPE`.
fn declaration(text: &str) -> Result<(String, Type), UsageError> {
    let (name, ty) = text
        .split_once('=')
        .ok_or_else(|| UsageError::NotNameType(text.to_string()))?;
    Ok((checked_name(name)?, Type::parse(ty.trim())?))
}

/// Accepts a CEL identifier, possibly qualified (`a.b.c`).
pub fn checked_name(name: &str) -> Result<String, UsageError> {
    let name = name.trim();
    let valid = !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if valid {
        Ok(name.to_string())
    } else {
        Err(UsageError::VariableName(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn arguments_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn names_and_declarations_parse() {
        assert_eq!(
            name_value("a.b={\"x\": 1}").unwrap(),
            ("a.b".into(), "{\"x\": 1}".into())
        );
        assert!(name_value("1x=2").is_err());
        assert_eq!(
            declaration("m=map(string, int)").unwrap().1,
            Type::map(Type::String, Type::Int)
        );
        assert!(declaration("m=map(").is_err());
    }
}
