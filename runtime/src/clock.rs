//! Time and fresh ids, injectable so tests compare exact JSON (docs/data-model.md, Determinism).

use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};

/// Microseconds since the Unix epoch, UTC.
pub trait Clock: Send + Sync {
    fn now_micros(&self) -> i64;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_micros(&self) -> i64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        i64::try_from(now.as_micros()).unwrap_or(i64::MAX)
    }
}

/// A clock that stands still unless told otherwise: every link gets the same timestamp and
/// the store's sequence number orders them.
#[derive(Debug, Default)]
pub struct FixedClock(AtomicI64);

impl FixedClock {
    pub fn new(micros: i64) -> Self {
        FixedClock(AtomicI64::new(micros))
    }

    /// From RFC 3339 text (`2026-12-24T10:00:00Z`); `None` when it is not valid.
    pub fn at(rfc3339: &str) -> Option<Self> {
        parse_rfc3339_micros(rfc3339).map(Self::new)
    }

    pub fn advance(&self, micros: i64) {
        self.0.fetch_add(micros, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now_micros(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Mints instance ids (`ad4m://obj/` + 24 lowercase letters, docs/tools.md) and
/// perspective uuids.
pub trait IdSource: Send + Sync {
    fn mint(&self) -> String;

    /// A version-4 UUID built from the same source.
    fn mint_uuid(&self) -> String {
        let letters = self.mint();
        let bytes: Vec<u8> = letters[ID_PREFIX.len()..]
            .bytes()
            .chain(self.mint()[ID_PREFIX.len()..].bytes())
            .collect();
        uuid_from(&bytes)
    }
}

/// Formats 16 bytes (taken from `seed`'s first 16) as a version-4, variant-1 UUID.
fn uuid_from(seed: &[u8]) -> String {
    let mut b = [0u8; 16];
    for (i, byte) in seed.iter().take(16).enumerate() {
        b[i] = byte.wrapping_mul(37).wrapping_add(i as u8);
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

pub const ID_PREFIX: &str = "ad4m://obj/";

/// Random ids from the operating system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomIds;

impl IdSource for RandomIds {
    fn mint_uuid(&self) -> String {
        let mut bytes = [0u8; 16];
        if getrandom::fill(&mut bytes).is_err() {
            return SeededIds::new(SystemClock.now_micros() as u64).mint_uuid();
        }
        uuid_from(&bytes)
    }

    fn mint(&self) -> String {
        let mut bytes = [0u8; 24];
        if getrandom::fill(&mut bytes).is_err() {
            // No OS randomness: fall back to the clock and a counter, still unique per process.
            let seed = SystemClock.now_micros() as u64 ^ COUNTER.fetch_add(1, Ordering::SeqCst) as u64;
            return SeededIds::new(seed).mint();
        }
        letters(bytes.iter().map(|b| *b as u64))
    }
}

static COUNTER: AtomicI64 = AtomicI64::new(0);

/// Deterministic ids from a seed (splitmix64), for tests and reproducible runs.
#[derive(Debug)]
pub struct SeededIds(Mutex<u64>);

impl SeededIds {
    pub fn new(seed: u64) -> Self {
        SeededIds(Mutex::new(seed))
    }
}

impl IdSource for SeededIds {
    fn mint(&self) -> String {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = || {
            *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = *state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        letters((0..24).map(|_| next()))
    }
}

fn letters(values: impl Iterator<Item = u64>) -> String {
    let mut id = String::with_capacity(ID_PREFIX.len() + 24);
    id.push_str(ID_PREFIX);
    id.extend(values.take(24).map(|v| (b'a' + (v % 26) as u8) as char));
    id
}

/// RFC 3339, UTC, microseconds: `2026-12-24T10:00:00.000000Z`.
pub fn format_rfc3339_micros(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if (0..=9999).contains(&y) {
        // Every instance object carries three of these: the digits by hand, not `format!`.
        let mut text = *b"0000-00-00T00:00:00.000000Z";
        let fields = [
            (0..4, y as u64),
            (5..7, u64::from(m)),
            (8..10, u64::from(d)),
            (11..13, (rem / 3600) as u64),
            (14..16, ((rem / 60) % 60) as u64),
            (17..19, (rem % 60) as u64),
            (20..26, frac as u64),
        ];
        for (range, mut n) in fields {
            for digit in text[range].iter_mut().rev() {
                *digit = b'0' + (n % 10) as u8;
                n /= 10;
            }
        }
        return text.iter().map(|&b| char::from(b)).collect();
    }
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:06}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Parses RFC 3339 date-time with an offset to microseconds since the epoch (UTC).
pub fn parse_rfc3339_micros(text: &str) -> Option<i64> {
    let parts = crate::temporal::parse_date_time(text)?;
    let days = days_from_civil(parts.year, parts.month, parts.day);
    let secs =
        days * 86_400 + i64::from(parts.hour) * 3600 + i64::from(parts.minute) * 60 + i64::from(parts.second.min(59))
            - i64::from(parts.offset_minutes) * 60;
    Some(secs * 1_000_000 + i64::from(parts.micros))
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        assert_eq!(format_rfc3339_micros(0), "1970-01-01T00:00:00.000000Z");
        let t = parse_rfc3339_micros("2026-12-24T10:00:00.5Z").unwrap();
        assert_eq!(format_rfc3339_micros(t), "2026-12-24T10:00:00.500000Z");
        assert_eq!(
            parse_rfc3339_micros("2026-12-24T11:00:00+01:00"),
            parse_rfc3339_micros("2026-12-24T10:00:00Z")
        );
        assert_eq!(
            format_rfc3339_micros(parse_rfc3339_micros("2000-02-29T23:59:59.999999Z").unwrap()),
            "2000-02-29T23:59:59.999999Z"
        );
    }

    #[test]
    fn hand_made_digits_match_format() {
        let by_format = |micros: i64| {
            let (secs, frac) = (micros.div_euclid(1_000_000), micros.rem_euclid(1_000_000));
            let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
            let (y, m, d) = civil_from_days(days);
            let (h, min, s) = (rem / 3600, (rem / 60) % 60, rem % 60);
            format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{frac:06}Z")
        };
        let mut micros = -62_167_219_200_000_001; // just before 0000-01-01
        for _ in 0..20_000 {
            assert_eq!(format_rfc3339_micros(micros), by_format(micros), "{micros}");
            micros = (micros + 31_556_952_123_457) % 260_000_000_000_000_000;
        }
        for micros in [
            0,
            -1,
            1,
            253_402_300_799_999_999,
            253_402_300_800_000_000,
            i64::MIN / 2,
            i64::MAX / 2,
        ] {
            assert_eq!(format_rfc3339_micros(micros), by_format(micros), "{micros}");
        }
    }

    #[test]
    fn seeded_ids_repeat() {
        let (a, b) = (SeededIds::new(7), SeededIds::new(7));
        let first = a.mint();
        assert_eq!(first, b.mint());
        assert_ne!(first, a.mint());
        assert!(first.starts_with(ID_PREFIX) && first.len() == ID_PREFIX.len() + 24);
        assert!(first[ID_PREFIX.len()..].chars().all(|c| c.is_ascii_lowercase()));
        assert_ne!(RandomIds.mint(), RandomIds.mint());
    }
}
