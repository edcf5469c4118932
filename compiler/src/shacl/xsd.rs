//! XSD datatypes as SHACL needs them: is a lexical form in the datatype's lexical space (an
//! ill-typed literal fails `sh:datatype`), and the order SPARQL's `<` gives two values
//! (`sh:minInclusive` … `sh:lessThanOrEquals`). The integer types' ranges are the model's
//! ([`IntegerKind::range`]), so a write and a report agree on what `xsd:byte` allows.

use std::cmp::Ordering;

use super::term::{Literal, Term};
use super::vocab::{XSD, XSD_STRING};
use crate::model::{IntegerKind, ValueType};

/// Whether `lexical` is a valid lexical form of `datatype`. Datatypes outside XSD (and XSD
/// types with no lexical rule here, such as `xsd:anyURI`) accept every form.
pub fn is_valid(datatype: &str, lexical: &str) -> bool {
    let Some(local) = datatype.strip_prefix(XSD) else {
        return true;
    };
    match local {
        "boolean" => matches!(lexical, "true" | "false" | "1" | "0"),
        "decimal" => Decimal::parse(lexical).is_some(),
        "float" | "double" => parse_double(lexical).is_some(),
        "normalizedString" => !lexical.contains(['\r', '\n', '\t']),
        "token" => is_token(lexical),
        "language" => is_language(lexical),
        "dateTime" => parse_date_time(lexical).is_some(),
        "dateTimeStamp" => parse_date_time(lexical).is_some_and(|d| d.offset.is_some()),
        "date" => parse_date(lexical).is_some(),
        "time" => parse_time(lexical).is_some(),
        "gYear" => gregorian(lexical, "Y"),
        "gYearMonth" => gregorian(lexical, "Y-M"),
        "gMonth" => gregorian(lexical, "--M"),
        "gDay" => gregorian(lexical, "---D"),
        "gMonthDay" => gregorian(lexical, "--M-D"),
        "duration" => is_duration(lexical, true, true),
        "dayTimeDuration" => is_duration(lexical, false, true),
        "yearMonthDuration" => is_duration(lexical, true, false),
        "hexBinary" => lexical.len().is_multiple_of(2) && lexical.bytes().all(|b| b.is_ascii_hexdigit()),
        "base64Binary" => is_base64(lexical),
        _ => match integer_kind(datatype) {
            Some(kind) => integer_in_range(kind, lexical),
            None => true,
        },
    }
}

/// The integer datatypes, by the vocabulary the rest of the compiler reads datatypes with.
fn integer_kind(datatype: &str) -> Option<IntegerKind> {
    match crate::check::datatype(datatype) {
        Some((_, ValueType::Integer(kind))) => Some(kind),
        _ => None,
    }
}

fn integer_in_range(kind: IntegerKind, lexical: &str) -> bool {
    let digits = lexical.strip_prefix(['+', '-']).unwrap_or(lexical);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let (lo, hi) = kind.range();
    // The model keeps values as i64; XSD's unsignedLong goes to 2^64 - 1.
    let hi = match kind {
        IntegerKind::UnsignedLong => Some(i128::from(u64::MAX)),
        _ => hi.map(i128::from),
    };
    match lexical.parse::<i128>() {
        Ok(n) => lo.is_none_or(|lo| n >= i128::from(lo)) && hi.is_none_or(|hi| n <= hi),
        // Beyond i128: only the unbounded directions hold it.
        Err(_) => {
            let negative = lexical.starts_with('-');
            if negative { lo.is_none() } else { hi.is_none() }
        }
    }
}

/// SPARQL's `<` between two terms: `Some(order)` when both are literals of comparable
/// kinds (numbers, strings, booleans, dateTimes, dates, times) with valid lexical forms and
/// the order is determinate; `None` otherwise.
pub fn compare(a: &Term, b: &Term) -> Option<Ordering> {
    let (Term::Literal(a), Term::Literal(b)) = (a, b) else {
        return None;
    };
    match (value(a)?, value(b)?) {
        (Value::Decimal(x), Value::Decimal(y)) => Some(x.cmp(&y)),
        (Value::Decimal(x), Value::Double(y)) => x.to_f64().partial_cmp(&y),
        (Value::Double(x), Value::Decimal(y)) => x.partial_cmp(&y.to_f64()),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(&y),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        (Value::Boolean(x), Value::Boolean(y)) => Some(x.cmp(&y)),
        (Value::Moment(k1, x), Value::Moment(k2, y)) if k1 == k2 => x.compare(&y),
        _ => None,
    }
}

enum Value<'a> {
    Decimal(Decimal),
    Double(f64),
    String(&'a str),
    Boolean(bool),
    /// dateTime, date or time, as an instant on the time line.
    Moment(&'static str, Moment),
}

fn value(l: &Literal) -> Option<Value<'_>> {
    if l.language.is_some() {
        return None;
    }
    if l.datatype == XSD_STRING {
        return Some(Value::String(&l.lexical));
    }
    let local = l.datatype.strip_prefix(XSD)?;
    let lexical = l.lexical.as_str();
    match local {
        "decimal" => Decimal::parse(lexical).map(Value::Decimal),
        "float" | "double" => parse_double(lexical).map(Value::Double),
        "boolean" => match lexical {
            "true" | "1" => Some(Value::Boolean(true)),
            "false" | "0" => Some(Value::Boolean(false)),
            _ => None,
        },
        "dateTime" | "dateTimeStamp" => parse_date_time(lexical).map(|m| Value::Moment("dateTime", m)),
        "date" => parse_date(lexical).map(|m| Value::Moment("date", m)),
        "time" => parse_time(lexical).map(|m| Value::Moment("time", m)),
        _ if integer_kind(&l.datatype).is_some() && is_valid(&l.datatype, lexical) => {
            Decimal::parse(lexical).map(Value::Decimal)
        }
        _ => None,
    }
}

// ----- numbers -----

/// An exact decimal: sign, integer digits without leading zeros, fraction digits without
/// trailing zeros (zero is never negative).
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    int: String,
    frac: String,
}

impl Decimal {
    /// `[+-]?(\d+(\.\d*)?|\.\d+)`
    fn parse(text: &str) -> Option<Decimal> {
        let negative = text.starts_with('-');
        let body = text.strip_prefix(['+', '-']).unwrap_or(text);
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let int = int.trim_start_matches('0').to_string();
        let frac = frac.trim_end_matches('0').to_string();
        let zero = int.is_empty() && frac.is_empty();
        Some(Decimal {
            negative: negative && !zero,
            int,
            frac,
        })
    }

    fn to_f64(&self) -> f64 {
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}0{}.{}0", self.int, self.frac)
            .parse()
            .unwrap_or(f64::NAN)
    }

    fn magnitude_cmp(&self, other: &Decimal) -> Ordering {
        self.int
            .len()
            .cmp(&other.int.len())
            .then_with(|| self.int.cmp(&other.int))
            .then_with(|| self.frac.cmp(&other.frac))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `xsd:double` / `xsd:float`: a decimal mantissa with an optional exponent, `INF`, `-INF`,
/// `+INF` or `NaN`.
fn parse_double(text: &str) -> Option<f64> {
    match text {
        "INF" | "+INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "NaN" => return Some(f64::NAN),
        _ => {}
    }
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], Some(&text[i + 1..])),
        None => (text, None),
    };
    Decimal::parse(mantissa)?;
    if let Some(e) = exponent {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
    }
    text.parse().ok()
}

// ----- strings -----

fn is_token(text: &str) -> bool {
    !text.contains(['\r', '\n', '\t']) && !text.starts_with(' ') && !text.ends_with(' ') && !text.contains("  ")
}

/// `[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*`
fn is_language(text: &str) -> bool {
    text.split('-').enumerate().all(|(i, part)| {
        (1..=8).contains(&part.len())
            && part.bytes().all(|b| {
                if i == 0 {
                    b.is_ascii_alphabetic()
                } else {
                    b.is_ascii_alphanumeric()
                }
            })
    })
}

fn is_base64(text: &str) -> bool {
    let chars: Vec<u8> = text.bytes().filter(|b| *b != b' ').collect();
    let body_len = chars.iter().rposition(|b| *b != b'=').map_or(0, |i| i + 1);
    let padding = chars.len() - body_len;
    chars.len().is_multiple_of(4)
        && padding <= 2
        && chars[..body_len]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

fn is_duration(text: &str, years_months: bool, days_time: bool) -> bool {
    let body = text.strip_prefix('-').unwrap_or(text);
    let Some(body) = body.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match body.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (body, None),
    };
    if time == Some("") {
        return false;
    }
    let mut any = false;
    let mut fields = |part: &str, designators: &str, allowed: &str, fraction_last: bool| -> bool {
        let mut rest = part;
        let mut order = designators.chars();
        while !rest.is_empty() {
            let n = rest.bytes().take_while(|b| b.is_ascii_digit() || *b == b'.').count();
            let (number, tail) = rest.split_at(n);
            let Some(designator) = tail.chars().next() else {
                return false;
            };
            // Designators come in order, each at most once.
            if !order.any(|d| d == designator) || !allowed.contains(designator) {
                return false;
            }
            let fraction_ok = fraction_last && designator == 'S';
            let valid_number = match number.split_once('.') {
                Some((i, f)) => fraction_ok && !i.is_empty() && !f.is_empty() && !f.contains('.'),
                None => !number.is_empty(),
            };
            if !valid_number {
                return false;
            }
            any = true;
            rest = &tail[1..];
        }
        true
    };
    let date_allowed = match (years_months, days_time) {
        (true, true) => "YMD",
        (true, false) => "YM",
        _ => "D",
    };
    let time_allowed = if days_time { "HMS" } else { "" };
    fields(date, "YMD", date_allowed, false) && time.is_none_or(|t| fields(t, "HMS", time_allowed, true)) && any
}

// ----- dates and times -----

/// A point on the time line: nanoseconds since 0000-01-01T00:00:00 as written (local), and
/// the offset in minutes when the value has a time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Moment {
    local: i128,
    offset: Option<i32>,
}

const NANOS_PER_MINUTE: i128 = 60_000_000_000;
/// XSD's bound on time zones: a value without one may be anywhere within ±14:00.
const FOURTEEN_HOURS: i128 = 14 * 60 * NANOS_PER_MINUTE;

impl Moment {
    fn utc(&self) -> i128 {
        self.local - i128::from(self.offset.unwrap_or(0)) * NANOS_PER_MINUTE
    }

    /// XSD's partial order (XML Schema 2, §3.2.7.4): a value without a time zone is compared
    /// as the whole range it may stand for; overlapping ranges are indeterminate.
    fn compare(&self, other: &Moment) -> Option<Ordering> {
        match (self.offset, other.offset) {
            (Some(_), Some(_)) => Some(self.utc().cmp(&other.utc())),
            (None, None) => Some(self.local.cmp(&other.local)),
            (Some(_), None) => {
                let p = self.utc();
                if p < other.local - FOURTEEN_HOURS {
                    Some(Ordering::Less)
                } else if p > other.local + FOURTEEN_HOURS {
                    Some(Ordering::Greater)
                } else {
                    None
                }
            }
            (None, Some(_)) => other.compare(self).map(Ordering::reverse),
        }
    }
}

/// Reads digits, signs and separators off the front of a lexical form.
struct Cursor<'a> {
    rest: &'a str,
}

impl<'a> Cursor<'a> {
    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn digits(&mut self) -> &'a str {
        let n = self.rest.bytes().take_while(u8::is_ascii_digit).count();
        let (d, rest) = self.rest.split_at(n);
        self.rest = rest;
        d
    }

    /// Exactly two digits.
    fn two(&mut self) -> Option<u32> {
        let d = self.rest.get(..2).filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
        self.rest = &self.rest[2..];
        d.parse().ok()
    }

    /// `-?` and four or more digits (no leading zero beyond four).
    fn year(&mut self) -> Option<i64> {
        let negative = self.eat('-');
        let d = self.digits();
        if d.len() < 4 || (d.len() > 4 && d.starts_with('0')) {
            return None;
        }
        let y: i64 = d.parse().ok()?;
        Some(if negative { -y } else { y })
    }

    /// `Z`, `±hh:mm` (at most 14:00), or nothing; `None` when malformed.
    fn zone(&mut self) -> Option<Option<i32>> {
        if self.rest.is_empty() {
            return Some(None);
        }
        if self.eat('Z') {
            return Some(Some(0));
        }
        let sign = if self.eat('+') {
            1
        } else if self.eat('-') {
            -1
        } else {
            return None;
        };
        let h = self.two()?;
        if !self.eat(':') {
            return None;
        }
        let m = self.two()?;
        if m > 59 || h > 14 || (h == 14 && m > 0) {
            return None;
        }
        Some(Some(sign * i32::try_from(h * 60 + m).ok()?))
    }

    fn end(&self) -> bool {
        self.rest.is_empty()
    }
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days from 0000-03-01-based civil calendar to a day count (proleptic Gregorian).
fn day_number(year: i64, month: u32, day: u32) -> i128 {
    let y = i128::from(if month <= 2 { year - 1 } else { year });
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i128::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i128::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe
}

/// `YYYY-MM-DD` at the cursor.
fn date_part(c: &mut Cursor<'_>) -> Option<(i64, u32, u32)> {
    let year = c.year()?;
    if !c.eat('-') {
        return None;
    }
    let month = c.two()?;
    if !c.eat('-') {
        return None;
    }
    let day = c.two()?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some((year, month, day))
}

/// `hh:mm:ss(.s+)?` at the cursor, as nanoseconds into the day (`24:00:00` is the day's end).
fn time_part(c: &mut Cursor<'_>) -> Option<i128> {
    let h = c.two()?;
    if !c.eat(':') {
        return None;
    }
    let m = c.two()?;
    if !c.eat(':') {
        return None;
    }
    let s = c.two()?;
    let mut nanos: i128 = 0;
    let mut fraction_zero = true;
    if c.eat('.') {
        let f = c.digits();
        if f.is_empty() {
            return None;
        }
        fraction_zero = f.bytes().all(|b| b == b'0');
        let padded: String = f.chars().chain(std::iter::repeat('0')).take(9).collect();
        nanos = padded.parse().ok()?;
    }
    let end_of_day = h == 24 && m == 0 && s == 0 && fraction_zero;
    if !end_of_day && (h > 23 || m > 59 || s > 59) {
        return None;
    }
    let seconds = i128::from(h * 3600 + m * 60 + s);
    Some(seconds * 1_000_000_000 + nanos)
}

const NANOS_PER_DAY: i128 = 86_400_000_000_000;

fn parse_date_time(text: &str) -> Option<Moment> {
    let mut c = Cursor { rest: text };
    let (y, mo, d) = date_part(&mut c)?;
    if !c.eat('T') {
        return None;
    }
    let time = time_part(&mut c)?;
    let offset = c.zone()?;
    c.end().then_some(Moment {
        local: day_number(y, mo, d) * NANOS_PER_DAY + time,
        offset,
    })
}

fn parse_date(text: &str) -> Option<Moment> {
    let mut c = Cursor { rest: text };
    let (y, mo, d) = date_part(&mut c)?;
    let offset = c.zone()?;
    c.end().then_some(Moment {
        local: day_number(y, mo, d) * NANOS_PER_DAY,
        offset,
    })
}

fn parse_time(text: &str) -> Option<Moment> {
    let mut c = Cursor { rest: text };
    let time = time_part(&mut c)?;
    let offset = c.zone()?;
    // On XSD's reference day, 1972-12-31.
    c.end().then_some(Moment {
        local: day_number(1972, 12, 31) * NANOS_PER_DAY + time,
        offset,
    })
}

/// The Gregorian fragments: `form` is one of `Y`, `Y-M`, `--M`, `---D`, `--M-D`.
fn gregorian(text: &str, form: &str) -> bool {
    let mut c = Cursor { rest: text };
    let ok = match form {
        "Y" => c.year().is_some(),
        "Y-M" => c.year().is_some() && c.eat('-') && c.two().is_some_and(|m| (1..=12).contains(&m)),
        "--M" => c.eat('-') && c.eat('-') && c.two().is_some_and(|m| (1..=12).contains(&m)),
        "---D" => c.eat('-') && c.eat('-') && c.eat('-') && c.two().is_some_and(|d| (1..=31).contains(&d)),
        _ => {
            c.eat('-')
                && c.eat('-')
                && match c.two() {
                    Some(m) if (1..=12).contains(&m) => {
                        c.eat('-') && c.two().is_some_and(|d| d >= 1 && d <= days_in_month(2000, m))
                    }
                    _ => false,
                }
        }
    };
    ok && c.zone().is_some() && c.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xsd(local: &str) -> String {
        format!("{XSD}{local}")
    }

    fn lit(lexical: &str, local: &str) -> Term {
        Term::typed(lexical, &xsd(local))
    }

    #[test]
    fn lexical_spaces() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            ("boolean", &["true", "false", "1", "0"], &["TRUE", "yes", ""]),
            ("integer", &["0", "-12", "+7", "007"], &["1.0", "", "+", "1e3", " 1"]),
            ("byte", &["127", "-128"], &["128", "300", "c"]),
            (
                "unsignedLong",
                &["18446744073709551615"],
                &["18446744073709551616", "-1"],
            ),
            (
                "positiveInteger",
                &["1", "99999999999999999999999999999999999999999"],
                &["0", "-1"],
            ),
            (
                "decimal",
                &["1", "-1.5", ".5", "5.", "+0.0"],
                &["1e2", ".", "", "1.2.3"],
            ),
            (
                "double",
                &["1e300", "-1.5E-3", "INF", "-INF", "NaN", ".5e1"],
                &["e3", "1e", "inf", "1.0f"],
            ),
            (
                "dateTime",
                &[
                    "2002-10-10T12:00:00-05:00",
                    "2002-10-10T12:00:00",
                    "2024-02-29T24:00:00Z",
                    "-0044-03-15T12:00:00.5Z",
                ],
                &[
                    "2002-10-10",
                    "2023-02-29T00:00:00",
                    "2002-10-10T12:00",
                    "2002-10-10T12:00:00+15:00",
                    "02-10-10T12:00:00",
                ],
            ),
            ("dateTimeStamp", &["2002-10-10T12:00:00Z"], &["2002-10-10T12:00:00"]),
            (
                "date",
                &["2002-10-10", "2002-10-10Z", "2002-10-10+01:00"],
                &["2002-10-32", "2002-1-10"],
            ),
            ("time", &["13:20:00", "13:20:00.25Z"], &["25:00:00", "13:20"]),
            ("gYear", &["2002", "2002Z"], &["02"]),
            ("gYearMonth", &["2002-10"], &["2002-13"]),
            ("gMonthDay", &["--02-29"], &["--02-30"]),
            ("gDay", &["---31"], &["---32"]),
            ("gMonth", &["--12"], &["--13"]),
            (
                "duration",
                &["P1Y2M3DT4H5M6.5S", "-P1D", "PT1S"],
                &["P", "PT", "P1S", "P1D2Y", "1D"],
            ),
            ("dayTimeDuration", &["P1DT2H"], &["P1Y"]),
            ("yearMonthDuration", &["P1Y2M"], &["P1D"]),
            ("hexBinary", &["0FB7", ""], &["0FB", "XY"]),
            ("base64Binary", &["aGVsbG8=", ""], &["aGVsbG8", "a$=="]),
            (
                "language",
                &["en", "en-US", "zh-Hant-TW"],
                &["", "en_US", "toolonglang"],
            ),
            ("token", &["a b"], &[" a", "a  b"]),
            ("string", &["anything \n at all"], &[]),
        ];
        for (local, good, bad) in cases {
            for g in *good {
                assert!(is_valid(&xsd(local), g), "{g} should be a valid xsd:{local}");
            }
            for b in *bad {
                assert!(!is_valid(&xsd(local), b), "{b} should not be a valid xsd:{local}");
            }
        }
        assert!(is_valid("http://ex/dt", "whatever"));
    }

    #[test]
    fn numbers_compare_across_types_and_exactly() {
        use Ordering::*;
        assert_eq!(compare(&lit("1", "integer"), &lit("1.0", "decimal")), Some(Equal));
        assert_eq!(compare(&lit("2", "byte"), &lit("1.5", "double")), Some(Greater));
        assert_eq!(
            compare(
                &lit("10000000000000000001", "integer"),
                &lit("10000000000000000000", "integer")
            ),
            Some(Greater)
        );
        assert_eq!(compare(&lit("-0.5", "decimal"), &lit("-0.25", "decimal")), Some(Less));
        assert_eq!(compare(&lit("-0", "integer"), &lit("0", "integer")), Some(Equal));
        assert_eq!(compare(&lit("NaN", "double"), &lit("1", "double")), None);
        assert_eq!(compare(&lit("c", "integer"), &lit("1", "integer")), None);
        assert_eq!(compare(&lit("1", "integer"), &Term::string("1")), None);
        assert_eq!(compare(&Term::string("a"), &Term::string("b")), Some(Less));
        assert_eq!(
            compare(&Term::lang_string("a", "en"), &Term::lang_string("b", "en")),
            None
        );
        assert_eq!(compare(&Term::iri("http://ex/a"), &lit("1", "integer")), None);
        assert_eq!(compare(&lit("false", "boolean"), &lit("1", "boolean")), Some(Less));
    }

    #[test]
    fn date_times_follow_the_xsd_partial_order() {
        use Ordering::*;
        let dt = |s: &str| lit(s, "dateTime");
        let min = dt("2002-10-10T12:00:00-05:00");
        assert_eq!(compare(&dt("2002-10-10T17:00:00Z"), &min), Some(Equal));
        assert_eq!(compare(&dt("2002-10-10T12:00:01-05:00"), &min), Some(Greater));
        assert_eq!(compare(&dt("2002-10-09T12:00:00-05:00"), &min), Some(Less));
        // Without a time zone within 14 hours: indeterminate.
        assert_eq!(compare(&dt("2002-10-10T12:00:00"), &min), None);
        assert_eq!(compare(&dt("2002-10-12T12:00:00"), &min), Some(Greater));
        assert_eq!(compare(&min, &dt("2002-10-12T12:00:00")), Some(Less));
        assert_eq!(
            compare(&dt("2002-10-10T12:00:00"), &dt("2002-10-10T12:00:00")),
            Some(Equal)
        );
        assert_eq!(
            compare(&dt("2002-10-10T24:00:00Z"), &dt("2002-10-11T00:00:00Z")),
            Some(Equal)
        );
        assert_eq!(
            compare(&lit("2002-10-10", "date"), &lit("2002-10-11", "date")),
            Some(Less)
        );
        assert_eq!(compare(&lit("2002-10-10", "date"), &dt("2002-10-11T00:00:00")), None);
        assert_eq!(
            compare(&lit("10:00:00Z", "time"), &lit("11:00:00+02:00", "time")),
            Some(Greater)
        );
    }
}
