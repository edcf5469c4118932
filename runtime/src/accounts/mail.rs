//! Mail for email verification: through SMTP (lettre, feature `smtp`) or, for development and
//! tests, into an outbox folder, one `.eml` file per message. The code is in the message body
//! and nowhere else: never in a log line.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::clock::format_rfc3339_micros;

/// One message.
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub body: String,
}

/// Where mail goes.
pub enum Mailer {
    Outbox {
        dir: PathBuf,
        from: String,
        next: AtomicU64,
    },
    #[cfg(feature = "smtp")]
    Smtp {
        transport: lettre::SmtpTransport,
        from: lettre::message::Mailbox,
    },
}

/// The sender when none is configured.
pub const DEFAULT_FROM: &str = "shacl-mcp <noreply@localhost>";

impl fmt::Debug for Mailer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mailer::Outbox { dir, .. } => f.debug_struct("Outbox").field("dir", dir).finish_non_exhaustive(),
            // Never the URL: it may carry credentials.
            #[cfg(feature = "smtp")]
            Mailer::Smtp { .. } => f.write_str("Smtp"),
        }
    }
}

impl Mailer {
    /// An outbox folder (created if need be).
    pub fn outbox(dir: &Path, from: Option<&str>) -> Result<Mailer, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the outbox {}: {e}", dir.display()))?;
        Ok(Mailer::Outbox {
            dir: dir.to_path_buf(),
            from: from.unwrap_or(DEFAULT_FROM).to_string(),
            next: AtomicU64::new(0),
        })
    }

    /// SMTP: `url` as lettre reads it (`smtps://host:465`, `smtp://host:587?tls=required`, with
    /// `user:password@` or the separate credentials).
    #[cfg(feature = "smtp")]
    pub fn smtp(url: &str, credentials: Option<(String, String)>, from: Option<&str>) -> Result<Mailer, String> {
        use lettre::transport::smtp::authentication::Credentials;
        // lettre's error would quote the URL, credentials and all.
        let mut builder = lettre::SmtpTransport::from_url(url)
            .map_err(|_| "the SMTP url is not one lettre understands (smtp:// or smtps://host[:port])".to_string())?;
        if let Some((user, password)) = credentials {
            builder = builder.credentials(Credentials::new(user, password));
        }
        let from = from
            .unwrap_or(DEFAULT_FROM)
            .parse()
            .map_err(|e| format!("the sender address is not a mailbox: {e}"))?;
        Ok(Mailer::Smtp {
            transport: builder.timeout(Some(std::time::Duration::from_secs(30))).build(),
            from,
        })
    }

    /// Sends one message (blocking).
    pub fn send(&self, mail: &Mail, now_micros: i64) -> Result<(), String> {
        match self {
            Mailer::Outbox { dir, from, next } => {
                let n = next.fetch_add(1, Ordering::SeqCst);
                let path = dir.join(format!("{now_micros:020}-{}-{n:06}.eml", std::process::id()));
                let text = format!(
                    "From: {from}\r\nTo: {}\r\nSubject: {}\r\nDate: {}\r\nMessage-ID: <{now_micros}.{n}@shacl-mcp>\r\n\
                     MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
                    mail.to,
                    mail.subject,
                    rfc2822_date(now_micros),
                    mail.body.replace('\n', "\r\n"),
                );
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
                let mut file = options
                    .open(&path)
                    .map_err(|e| format!("cannot write to the outbox {}: {e}", dir.display()))?;
                file.write_all(text.as_bytes())
                    .map_err(|e| format!("cannot write to the outbox {}: {e}", dir.display()))
            }
            #[cfg(feature = "smtp")]
            Mailer::Smtp { transport, from } => {
                use lettre::Transport;
                let to: lettre::message::Mailbox = mail.to.parse().map_err(|e| format!("not a mailbox: {e}"))?;
                let message = lettre::Message::builder()
                    .from(from.clone())
                    .to(to)
                    .subject(mail.subject.clone())
                    .header(lettre::message::header::ContentType::TEXT_PLAIN)
                    .body(mail.body.clone())
                    .map_err(|e| format!("cannot build the message: {e}"))?;
                transport
                    .send(&message)
                    .map(|_| ())
                    .map_err(|e| format!("the SMTP server refused the message: {e}"))
            }
        }
    }
}

/// `Thu, 24 Dec 2026 10:00:00 +0000`.
fn rfc2822_date(micros: i64) -> String {
    const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    // 1970-01-01 was a Thursday.
    let weekday = DAYS[(micros.div_euclid(86_400_000_000) + 4).rem_euclid(7) as usize];
    let text = format_rfc3339_micros(micros);
    let (date, time) = text.split_once('T').unwrap_or((&text, "00:00:00"));
    let mut ymd = date.split('-');
    let (y, m, d) = (
        ymd.next().unwrap_or("1970"),
        ymd.next().unwrap_or("01"),
        ymd.next().unwrap_or("01"),
    );
    let month = m
        .parse::<usize>()
        .ok()
        .and_then(|m| MONTHS.get(m.wrapping_sub(1)))
        .unwrap_or(&"Jan");
    format!(
        "{weekday}, {d} {month} {y} {} +0000",
        time.get(..8).unwrap_or("00:00:00")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_the_outbox() {
        let at = crate::clock::parse_rfc3339_micros("2026-12-24T10:00:00Z").unwrap();
        assert_eq!(rfc2822_date(at), "Thu, 24 Dec 2026 10:00:00 +0000");
        assert_eq!(rfc2822_date(0), "Thu, 01 Jan 1970 00:00:00 +0000");
        let dir = std::env::temp_dir().join(format!("shacl-mcp-outbox-{}", std::process::id()));
        let mailer = Mailer::outbox(&dir, None).unwrap();
        let mail = Mail {
            to: "ada@example.org".into(),
            subject: "Your code".into(),
            body: "Your code is 123456.\nBye.".into(),
        };
        mailer.send(&mail, at).unwrap();
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(files.len(), 1);
        let text = std::fs::read_to_string(files[0].path()).unwrap();
        assert!(text.contains("To: ada@example.org\r\n"), "{text}");
        assert!(text.ends_with("Your code is 123456.\r\nBye.\r\n"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = files[0].metadata().unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
