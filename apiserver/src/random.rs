//! Random identifiers: object uids and bearer tokens, from the kernel's random source.

use std::fs::File;
use std::io::Read;
use std::sync::OnceLock;

/// `/dev/urandom`, opened once for the process: every create takes a uid from it, and an
/// open and close per uid cost more than the read. Reads through a shared handle need no
/// lock (`Read for &File`; the kernel serves each read whole).
static URANDOM: OnceLock<File> = OnceLock::new();

/// The process's handle on `/dev/urandom`, opened on first use (a failed open is reported and
/// tried again next time).
fn urandom() -> std::io::Result<&'static File> {
    if let Some(file) = URANDOM.get() {
        return Ok(file);
    }
    let file = File::open("/dev/urandom")?;
    // Another thread may have opened it meanwhile: either handle will do.
    Ok(URANDOM.get_or_init(|| file))
}

/// `n` random bytes from `/dev/urandom`.
pub fn bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    let mut buf = [0u8; N];
    urandom()?.read_exact(&mut buf)?;
    Ok(buf)
}

/// A random number below `n` (0 when `n` is 0, or when the random source fails: callers
/// search onward from it, so any start will do). Uniform enough for picking where a search
/// starts: the modulo bias of a 64-bit draw is negligible for the ranges used.
pub fn below(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    bytes::<8>().map(u64::from_le_bytes).unwrap_or(0) % n
}

/// A version-4 UUID in its dashed lowercase form, as `metadata.uid` holds it.
pub fn uuid_v4() -> std::io::Result<String> {
    let mut b = bytes::<16>()?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = hex(&b);
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// A bearer token: 32 random bytes in lowercase hex.
pub fn token() -> std::io::Result<String> {
    Ok(hex(&bytes::<32>()?))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let a = uuid_v4().unwrap();
        let b = uuid_v4().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
        assert_eq!(token().unwrap().len(), 64);
    }
}
