//! Real kubectl against a fresh server: the harness the kubectl tests share.
//!
//! [`Kubectl::start`] starts `kcel-apiserver` ([`Server::start`]) and finds the kubectl binary
//! ([`real_client`] `KCEL_KUBECTL`); each command runs with `KUBECONFIG` set to the kubeconfig
//! the server wrote and `HOME` set to a fresh directory, within [`COMMAND_LIMIT`].

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::{Ran, Server, real_client, run_bounded};

/// The longest one kubectl command may take.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(60);

/// A server and the kubectl that talks to it.
pub struct Kubectl {
    bin: PathBuf,
    /// The server (a test may replace it, e.g. to restart it on the same data directory).
    pub server: Server,
    /// kubectl's `HOME`, also where [`Kubectl::start_with`] writes its files.
    pub home: tempfile::TempDir,
}

impl Kubectl {
    /// A fresh server and kubectl, or `None` (the test is skipped) without kubectl.
    pub fn start(test: &str) -> Option<Kubectl> {
        Self::start_with(test, &[], &[])
    }

    /// Like [`Kubectl::start`], with `files` (name, content) written to the home directory
    /// first and the server given `flags`, where `{home}` stands for that directory.
    pub fn start_with(test: &str, files: &[(&str, &str)], flags: &[&str]) -> Option<Kubectl> {
        let bin = real_client("KCEL_KUBECTL", "kubectl", test)?;
        let home = tempfile::tempdir().unwrap();
        for (name, content) in files {
            std::fs::write(home.path().join(name), content).unwrap();
        }
        let home_text = home.path().display().to_string();
        let flags: Vec<String> = flags
            .iter()
            .map(|f| f.replace("{home}", &home_text))
            .collect();
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        Some(Kubectl {
            bin,
            server: Server::start(&flags),
            home,
        })
    }

    /// The admin kubeconfig the server wrote.
    pub fn kubeconfig(&self) -> PathBuf {
        self.server.data_dir().join("kubeconfig")
    }

    /// A kubectl command with `args`, the admin kubeconfig and no editor or diff program
    /// from the environment.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.bin);
        command
            .args(args)
            .env("KUBECONFIG", self.kubeconfig())
            .env("HOME", self.home.path())
            .env_remove("KUBECTL_EXTERNAL_DIFF")
            .env_remove("KUBE_EDITOR")
            .env_remove("EDITOR");
        command
    }

    /// Runs kubectl to its end.
    pub fn run(&self, args: &[&str]) -> Ran {
        run_bounded(self.command(args), None, COMMAND_LIMIT)
    }

    /// Runs kubectl with `input` on stdin.
    pub fn run_stdin(&self, args: &[&str], input: &str) -> Ran {
        run_bounded(self.command(args), Some(input), COMMAND_LIMIT)
    }

    /// Runs kubectl with another kubeconfig (the admin's when `None`) and optional stdin.
    pub fn run_as(&self, kubeconfig: Option<&PathBuf>, args: &[&str], input: Option<&str>) -> Ran {
        let mut command = self.command(args);
        if let Some(config) = kubeconfig {
            command.env("KUBECONFIG", config);
        }
        run_bounded(command, input, COMMAND_LIMIT)
    }

    /// Runs kubectl, asserting success with nothing on stderr; answers stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        expect_ok(args, self.run(args))
    }

    /// Like [`Kubectl::ok`] with stdin.
    pub fn ok_stdin(&self, args: &[&str], input: &str) -> String {
        expect_ok(args, self.run_stdin(args, input))
    }

    /// Runs kubectl expecting failure; answers stderr.
    pub fn fails(&self, args: &[&str]) -> String {
        let ran = self.run(args);
        assert_ne!(ran.code, 0, "kubectl {args:?} should fail: {ran:?}");
        ran.stderr
    }

    /// Runs kubectl with `-o json` added, asserting success; answers the output.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        serde_json::from_str(&self.ok(&all)).unwrap()
    }

    /// `kubectl apply -f -` of `yaml`.
    pub fn apply(&self, yaml: &str) -> Ran {
        self.run_stdin(&["apply", "-f", "-"], yaml)
    }

    /// Applies, expecting success with nothing on stderr; answers stdout.
    pub fn applied(&self, yaml: &str) -> String {
        let ran = self.apply(yaml);
        assert!(ran.code == 0 && ran.stderr.is_empty(), "{yaml}: {ran:?}");
        ran.stdout
    }

    /// A kubeconfig like the admin's with another bearer token, written to the home
    /// directory.
    pub fn kubeconfig_for(&self, token: &str) -> PathBuf {
        let config = std::fs::read_to_string(self.kubeconfig()).unwrap();
        let line = config
            .lines()
            .find(|l| l.trim_start().starts_with("token:"))
            .unwrap();
        let path = self.home.path().join(format!("{token}-kubeconfig"));
        std::fs::write(&path, config.replace(line, &format!("    token: {token}"))).unwrap();
        path
    }
}

fn expect_ok(args: &[&str], ran: Ran) -> String {
    assert!(
        ran.code == 0 && ran.stderr.is_empty(),
        "kubectl {args:?}: {ran:?}"
    );
    ran.stdout
}
