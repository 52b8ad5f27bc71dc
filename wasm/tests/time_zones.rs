//! The browser module carries no time-zone data; the playground loads `tzdata.bin` (written
//! by `tzdata.py` from chrono-tz's tables) on first use. This test writes the table, checks
//! that it gives chrono-tz's offset for every zone just before, at and after every
//! transition (and far before and after all of them), then loads it through the API.
//! Skipped visibly without python3 or cargo's copy of chrono-tz's sources (fails under
//! CI=true).
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;
use std::process::Command;

use chrono::{DateTime, Offset, TimeZone};
use chrono_tz::{TZ_VARIANTS, Tz};
use kcel::time_zones::ZoneTable;
use serde_json::{Value as Json, json};

fn table_bytes() -> Option<Vec<u8>> {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tzdata.bin");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tzdata.py");
    match Command::new("python3").arg(&script).arg(&out).status() {
        Ok(status) if status.success() => Some(std::fs::read(&out).expect("tzdata.py wrote it")),
        other => {
            let why = format!("tzdata.py did not run: {other:?}");
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
            println!("skipped: {why}");
            None
        }
    }
}

fn chrono_offset(tz: Tz, secs: i64) -> i32 {
    let utc = DateTime::from_timestamp(secs, 0).unwrap().naive_utc();
    tz.offset_from_utc_datetime(&utc).fix().local_minus_utc()
}

#[test]
fn table_matches_chrono_tz_and_loads_through_the_api() {
    let Some(bytes) = table_bytes() else { return };
    let table = ZoneTable::decode(&bytes).expect("the table reads");
    assert_eq!(table.version(), chrono_tz::IANA_TZDB_VERSION);
    let names: Vec<&str> = table.names().collect();
    let mut expected: Vec<&str> = TZ_VARIANTS.iter().map(|tz| tz.name()).collect();
    expected.sort_unstable();
    assert_eq!(names, expected, "the same zone names as chrono-tz");

    let mut checked = 0usize;
    for tz in TZ_VARIANTS {
        let name = tz.name();
        let (first, transitions) = table.transitions(name).unwrap();
        let mut probes = vec![(-50_000_000_000i64, first)];
        let mut offset = first;
        let mut prev_at = None;
        for &(at, next) in &transitions {
            // The second before, the second of, and the middle of the span before.
            probes.push((at - 1, offset));
            probes.push((at, next));
            if let Some(p) = prev_at {
                probes.push((p + (at - p) / 2, offset));
            }
            prev_at = Some(at);
            offset = next;
        }
        probes.push((50_000_000_000, offset));
        for (secs, expected) in probes {
            assert_eq!(table.offset_at(name, secs), Some(expected));
            assert_eq!(chrono_offset(tz, secs), expected, "{name} at {secs}");
            checked += 1;
        }
        // And a grid of irregular steps from 1850 to 2110, for a transition the table
        // might lack between two it has.
        for secs in (-3_786_825_600i64..4_417_977_600).step_by(29 * 86_400 + 7 * 3_600 + 13) {
            assert_eq!(
                table.offset_at(name, secs),
                Some(chrono_offset(tz, secs)),
                "{name} at {secs}"
            );
            checked += 1;
        }
    }
    println!(
        "{checked} instants compared over {} zones",
        TZ_VARIANTS.len()
    );

    // Through the API: before loading a zone is an error; after, the zone's wall clock.
    let request = json!({
        "expression": "t.getHours('Asia/Kolkata') * 100 + t.getMinutes('Asia/Kolkata')",
        "variables": {"t": "2024-01-01T10:00:00Z"},
        "declarations": {"t": "timestamp"},
        "env": "cel",
    })
    .to_string();
    // Cargo unifies features across the packages of one build: under `cargo test
    // --workspace` the engine has its bundled zones (other members ask for them), so the
    // not-loaded answer can only be seen in `cargo test -p kcel-wasm` and in the browser
    // tests (wasm/test.sh); the installed table is read first either way.
    let bundled = kcel::time_zones::available();
    if bundled {
        println!(
            "note: zones are bundled in this build (workspace feature unification); \
             the answer before loading is checked by `cargo test -p kcel-wasm`"
        );
    } else {
        let before: Json = serde_json::from_str(&kcel_wasm::evaluate(&request)).unwrap();
        assert_eq!(before["error"]["message"], "time zone data not loaded");
        assert!(kcel_wasm::time_zones_wanted());
    }
    let loaded: Json = serde_json::from_str(&kcel_wasm::load_time_zones(&bytes)).unwrap();
    assert_eq!(loaded["zones"], TZ_VARIANTS.len());
    assert!(!kcel_wasm::time_zones_wanted());
    let after: Json = serde_json::from_str(&kcel_wasm::evaluate(&request)).unwrap();
    assert_eq!(after["value"], 1530, "{after}");
    let bad: Json = serde_json::from_str(&kcel_wasm::load_time_zones(b"nonsense")).unwrap();
    assert_eq!(bad["error"]["phase"], "input");
}
