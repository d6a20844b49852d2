//! JavaScript dates: `Date.parse`, `new Date(value).getTime()`, `toISOString()`, and the civil
//! calendar under them (proleptic Gregorian, UTC).
//!
//! Time values are milliseconds since 1970-01-01T00:00:00Z as doubles, `NaN` for an invalid
//! date, within ±8.64e15 (`TimeClip`).
//!
//! [`parse`] reads the ECMAScript date-time string format (what `toISOString` writes) and a few
//! forms of V8's legacy fallback parser; the rest of that parser (month names, `GMT`, trailing
//! text, lone numbers such as `"5"`) gives `NaN` here although V8 accepts it. V8 reads a
//! date-time without an offset as local time; this reads it as UTC (Pi's oracle runs in UTC).

use serde_json::Value;

use crate::json::number_to_f64;

/// Milliseconds in a day.
pub const MS_PER_DAY: i64 = 86_400_000;

/// The largest time value a `Date` can hold, either side of the epoch.
const MAX_TIME: f64 = 8.64e15;

/// `new Date(value).getTime()`; `None` is `undefined`. Strings are parsed by [`parse`]; an array
/// through its joined string (ToPrimitive); other objects give `NaN`.
pub fn get_time(v: Option<&Value>) -> f64 {
    match v {
        None | Some(Value::Object(_)) => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => time_clip(number_to_f64(n)),
        Some(Value::String(s)) => parse(s),
        Some(v @ Value::Array(_)) => parse(&super::to_string(Some(v))),
    }
}

/// `TimeClip`: `NaN` outside ±8.64e15, otherwise truncated toward zero (and never `-0`).
pub fn time_clip(t: f64) -> f64 {
    if !t.is_finite() || t.abs() > MAX_TIME {
        f64::NAN
    } else {
        t.trunc() + 0.0
    }
}

/// `Date.parse(s)`: the ECMAScript date-time string format — `YYYY`, `±YYYYYY`, `-MM`, `-DD`,
/// `THH:mm`, `:ss`, `.sss` (any number of digits, truncated to milliseconds), `Z` / `±HH:mm` —
/// and the legacy forms of `legacy_to_iso`. Date-only forms are UTC. A day past the end of
/// its month (up to 31) rolls over into the next, as in V8.
pub fn parse(s: &str) -> f64 {
    parse_iso(s)
        .or_else(|| legacy_to_iso(s).and_then(|iso| parse_iso(&iso)))
        .unwrap_or(f64::NAN)
}

/// `new Date(t).toISOString()`: `YYYY-MM-DDTHH:mm:ss.sssZ`, with a signed six-digit year outside
/// 0000..9999; `None` where JavaScript throws (an invalid time).
pub fn to_iso_string(t: f64) -> Option<String> {
    let t = time_clip(t);
    if t.is_nan() {
        return None;
    }
    let ms = t as i64;
    let (y, m, d) = civil_from_days(ms.div_euclid(MS_PER_DAY));
    let rem = ms.rem_euclid(MS_PER_DAY);
    let (h, mi, s, f) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else {
        format!("{}{:06}", if y < 0 { '-' } else { '+' }, y.abs())
    };
    Some(format!(
        "{year}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{f:03}Z"
    ))
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). Linear in `d`, so a day
/// past the end of the month lands in the next one.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let (m, d) = (i64::from(m), i64::from(d));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a day number (days since 1970-01-01).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m as u32, d as u32)
}

/// A few forms V8's legacy parser accepts, rewritten to the ISO format: a space instead of `T`,
/// `/` date separators and one-digit months and days (before a space or at the end), and
/// `±HHMM` offsets.
fn legacy_to_iso(s: &str) -> Option<String> {
    let (date, rest) = match s.find([' ', 'T', 't']) {
        Some(i) => (&s[..i], Some((&s[i + 1..], s.as_bytes()[i] == b' '))),
        None => (s, None),
    };
    let sep = if date.contains('/') { '/' } else { '-' };
    let mut parts = date.split(sep);
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let ok = |p: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
    };
    // Before a `T`, only the ISO date itself (`2026-1-1T10:00` is NaN in V8).
    let short = if matches!(rest, Some((_, false))) {
        if sep != '-' {
            return None;
        }
        2..=2
    } else {
        1..=2
    };
    if !ok(y, 4..=4) || !ok(m, short.clone()) || !ok(d, short) {
        return None;
    }
    let mut iso = format!("{y}-{m:0>2}-{d:0>2}");
    if let Some((time, _)) = rest {
        let mut time = time.to_string();
        // `±HHMM` → `±HH:MM`.
        if let Some(pos) = time.rfind(['+', '-']) {
            let off = &time[pos + 1..];
            if off.len() == 4 && off.bytes().all(|b| b.is_ascii_digit()) {
                time = format!("{}{}:{}", &time[..pos + 1], &off[..2], &off[2..]);
            }
        }
        iso.push('T');
        iso.push_str(&time);
    }
    Some(iso)
}

fn parse_iso(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize, n: usize| -> Option<i64> {
        let part = b.get(*i..*i + n)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        *i += n;
        Some(part.iter().fold(0i64, |a, d| a * 10 + i64::from(d - b'0')))
    };
    let year = match b.first()? {
        sign @ (b'+' | b'-') => {
            i = 1;
            let y = digits(&mut i, 6)?;
            match sign {
                b'-' if y == 0 => return None,
                b'-' => -y,
                _ => y,
            }
        }
        _ => digits(&mut i, 4)?,
    };
    let mut month = 1;
    let mut day = 1;
    if b.get(i) == Some(&b'-') {
        i += 1;
        month = digits(&mut i, 2)?;
        if b.get(i) == Some(&b'-') {
            i += 1;
            day = digits(&mut i, 2)?;
        }
    }
    let (mut h, mut mi, mut sec, mut ms) = (0, 0, 0, 0);
    let mut offset_min = 0i64;
    if i < b.len() {
        if b[i] != b'T' && b[i] != b't' {
            return None;
        }
        i += 1;
        h = digits(&mut i, 2)?;
        if b.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        mi = digits(&mut i, 2)?;
        if b.get(i) == Some(&b':') {
            i += 1;
            sec = digits(&mut i, 2)?;
            if b.get(i) == Some(&b'.') {
                i += 1;
                let start = i;
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                // Milliseconds: the first three digits, the rest truncated (as V8 does).
                ms = b[start..i]
                    .iter()
                    .chain(b"00")
                    .take(3)
                    .fold(0i64, |a, d| a * 10 + i64::from(d - b'0'));
            }
        }
        match b.get(i) {
            None => {}
            Some(b'Z' | b'z') => i += 1,
            Some(&sign @ (b'+' | b'-')) => {
                i += 1;
                let oh = digits(&mut i, 2)?;
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i += 1;
                let om = digits(&mut i, 2)?;
                if oh > 23 || om > 59 {
                    return None;
                }
                offset_min = (oh * 60 + om) * if sign == b'+' { 1 } else { -1 };
            }
            _ => return None,
        }
        if i != b.len() {
            return None;
        }
    }
    // V8's day composer checks a day against 1..31 only; MakeDay rolls it over.
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    if h > 24 || mi > 59 || sec > 59 || (h == 24 && (mi != 0 || sec != 0 || ms != 0)) {
        return None;
    }
    let days = days_from_civil(year, month as u32, day as u32);
    let t = (days as f64) * MS_PER_DAY as f64
        + (h * 3_600_000 + mi * 60_000 + sec * 1000 + ms) as f64
        - (offset_min * 60_000) as f64;
    let t = time_clip(t);
    (!t.is_nan()).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_round_trip() {
        for days in (-800_000..800_000).step_by(7) {
            let (y, m, d) = civil_from_days(days);
            assert!((1..=12).contains(&m) && (1..=31).contains(&d), "{days}");
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2026, 2, 31), days_from_civil(2026, 3, 3));
    }
}
