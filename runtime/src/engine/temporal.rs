//! The datetime family (docs/data-model.md): RFC 3339 date-time with an offset, `YYYY-MM-DD`
//! dates, and RFC 3339 full-time with an offset. Stricter than XSD on purpose.

/// The parts of a date-time; `second` may be 60 (a leap second).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTimeParts {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub micros: u32,
    pub offset_minutes: i32,
}

/// `2026-12-24T10:00:00Z`, `…+01:00`, with optional fractional seconds; `T`/`t` and `Z`/`z`.
pub fn parse_date_time(text: &str) -> Option<DateTimeParts> {
    let sep = text.find(['T', 't'])?;
    let (year, month, day) = parse_date(&text[..sep])?;
    let time = parse_time_parts(&text[sep + 1..])?;
    Some(DateTimeParts {
        year,
        month,
        day,
        hour: time.0,
        minute: time.1,
        second: time.2,
        micros: time.3,
        offset_minutes: time.4,
    })
}

/// `YYYY-MM-DD`, a real calendar day.
pub fn parse_date(text: &str) -> Option<(i64, u32, u32)> {
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = digits(&text[0..4])?;
    let month = digits(&text[5..7])?;
    let day = digits(&text[8..10])?;
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days_in_month)
        .contains(&day)
        .then_some((i64::from(year), month, day))
}

/// RFC 3339 full-time: `10:00:00Z`, `10:00:00.25+01:00`.
pub fn is_time(text: &str) -> bool {
    parse_time_parts(text).is_some()
}

pub fn is_date(text: &str) -> bool {
    parse_date(text).is_some()
}

pub fn is_date_time(text: &str) -> bool {
    parse_date_time(text).is_some()
}

/// (hour, minute, second, micros, offset minutes)
fn parse_time_parts(text: &str) -> Option<(u32, u32, u32, u32, i32)> {
    let b = text.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return None;
    }
    let hour = digits(&text[0..2])?;
    let minute = digits(&text[3..5])?;
    let second = digits(&text[6..8])?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[8..];
    let mut micros = 0u32;
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        let padded: String = frac[..n].chars().chain(std::iter::repeat('0')).take(6).collect();
        micros = padded.parse().ok()?;
        rest = &frac[n..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let b = rest.as_bytes();
            if b.len() != 6 || !matches!(b[0], b'+' | b'-') || b[3] != b':' {
                return None;
            }
            let (h, m) = (digits(&rest[1..3])?, digits(&rest[4..6])?);
            if h > 23 || m > 59 {
                return None;
            }
            let total = i32::try_from(h * 60 + m).ok()?;
            if b[0] == b'-' { -total } else { total }
        }
    };
    Some((hour, minute, second, micros, offset))
}

fn digits(s: &str) -> Option<u32> {
    if s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_and_refused_forms() {
        for ok in [
            "2026-12-24T10:00:00Z",
            "2026-12-24T10:00:00+01:00",
            "2026-12-24t10:00:00.123456z",
            "2024-02-29T00:00:60-05:30",
        ] {
            assert!(is_date_time(ok), "{ok}");
        }
        for bad in [
            "2026-12-24T10:00:00",
            "2026-12-24 10:00:00Z",
            "2026-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-12-24T10:00Z",
            "2026-12-24T10:00:00.Z",
            "",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        assert!(is_date("2026-12-24") && !is_date("2026-12-32") && !is_date("26-12-24") && !is_date("2026-12-24Z"));
        assert!(is_time("10:00:00Z") && is_time("23:59:59.5+01:00") && !is_time("10:00:00") && !is_time("24:00:00Z"));
    }
}
