//! Printing to stdout without panicking when the reader goes away.

/// Set once stdout's reader has gone away.
static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to stdout. When stdout is closed early (piped into `head`), later output is dropped
/// quietly instead of panicking as `print!` does, and the command still ends with the exit
/// status of its result (`kcel test ... | head -1` still fails when a case failed, under
/// `set -o pipefail`); other write failures exit with status 2.
pub fn write(args: std::fmt::Arguments) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args).and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(2);
    }
}

/// `print!` through [`write()`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}

/// `println!` through [`write()`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
