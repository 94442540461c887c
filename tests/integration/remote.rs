//! Issue 43, item 5: a remote ClickHouse. `https://` with the certificate verified against
//! `ca_file` (a local HTTPS endpoint answering as ClickHouse does: a self-signed certificate
//! made by `openssl`, served by Python's `http.server`), a wrong CA refused and counted as a
//! failed insert, and `ttl` on the tables `create_tables` makes, on the installed ClickHouse.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::clickhouse::ClickHouse;
use crate::common::*;

fn sink_figure(d: &Daemon, key: &str) -> u64 {
    named(&d.status()["sinks"], "ch")[key].as_u64().unwrap()
}

/// A CA (`NAME-ca.pem`) and a certificate for 127.0.0.1 it signed (`NAME.pem`, `NAME.key`) in
/// `dir` (webpki takes no CA certificate as a server's own).
fn certificate(dir: &Path, name: &str) -> bool {
    let path = |f: &str| dir.join(f.replace("NAME", name));
    std::fs::write(path("NAME.ext"), "subjectAltName=IP:127.0.0.1\n").is_ok()
        && [
            vec![
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=test CA",
                "-keyout",
                "NAME-ca.key",
                "-out",
                "NAME-ca.pem",
            ],
            vec![
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-subj",
                "/CN=127.0.0.1",
                "-keyout",
                "NAME.key",
                "-out",
                "NAME.csr",
            ],
            vec![
                "x509",
                "-req",
                "-in",
                "NAME.csr",
                "-CA",
                "NAME-ca.pem",
                "-CAkey",
                "NAME-ca.key",
                "-CAcreateserial",
                "-days",
                "2",
                "-extfile",
                "NAME.ext",
                "-out",
                "NAME.pem",
            ],
        ]
        .iter()
        .all(|args| {
            Command::new("openssl")
                .current_dir(dir)
                .args(args.iter().map(|a| a.replace("NAME", name)))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        })
}

/// Answers every POST with 200 and an empty body, as ClickHouse answers an insert, over TLS
/// with `cert`; prints its port, then one line per request it answered.
const SERVER: &str = r#"
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        self.send_response(200); self.send_header('Content-Length', '0'); self.end_headers()
        print('answered', flush=True)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = c.wrap_socket(s.socket, server_side=True)
print(s.server_address[1], flush=True)
s.serve_forever()
"#;

struct Server(Child, u16);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn https_server(dir: &Path) -> Option<Server> {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(SERVER)
        .arg(dir.join("server.pem"))
        .arg(dir.join("server.key"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut()?)
        .read_line(&mut line)
        .ok()?;
    let port = line.trim().parse().ok()?;
    Some(Server(child, port))
}

fn https_config(port: u16, ca: &Path) -> String {
    format!(
        "[[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"https://127.0.0.1:{port}\"\n\
         ca_file = {ca:?}\nuser = \"u\"\npassword = \"tls-secret-pw\"\nbatch_rows = 100\n\
         batch_time = \"100ms\"\ntimeout = \"2s\"\n"
    )
}

#[test]
fn https_inserts_verify_the_server_against_ca_file() {
    let dir = tempfile::tempdir().unwrap();
    let required = std::env::var_os("PINBAD_REQUIRE_TLS").is_some();
    if !certificate(dir.path(), "server") || !certificate(dir.path(), "other") {
        assert!(
            !required,
            "PINBAD_REQUIRE_TLS is set but openssl cannot make a certificate"
        );
        eprintln!("SKIPPED: openssl cannot make a test certificate");
        return;
    }
    let Some(server) = https_server(dir.path()) else {
        assert!(
            !required,
            "PINBAD_REQUIRE_TLS is set but python3 cannot serve HTTPS"
        );
        eprintln!("SKIPPED: python3 cannot serve HTTPS");
        return;
    };

    // The right CA: every request acknowledged over TLS.
    let d = Daemon::start_logged(
        &https_config(server.1, &dir.path().join("server-ca.pem")),
        "debug",
    );
    d.send(&corpus(300, 5));
    d.wait_merged(300);
    d.wait_for(
        |d| sink_figure(d, "sent") == 300,
        "300 rows sent over https",
    );
    assert_eq!(sink_figure(&d, "failed"), 0);
    let logs = d.logs();
    assert!(
        logs.iter().all(|l| !l.contains("tls-secret-pw")),
        "the password in the logs"
    );
    drop(d);

    // Another CA: the server is refused, each attempt counted as failed, nothing sent.
    let d = Daemon::start_logged(
        &https_config(server.1, &dir.path().join("other-ca.pem")),
        "debug",
    );
    d.send(&corpus(50, 6));
    d.wait_merged(50);
    d.wait_for(|d| sink_figure(d, "failed") >= 2, "inserts refused");
    assert_eq!(sink_figure(&d, "sent"), 0);
    let logs = d.logs();
    assert!(
        logs.iter()
            .any(|l| l.contains("insert failed") && l.to_lowercase().contains("certificate")),
        "the refusal says why: {logs:?}"
    );
    assert!(
        logs.iter().all(|l| !l.contains("tls-secret-pw")),
        "the password in the logs"
    );
}

/// `ttl` on the installed ClickHouse: Debian's 18.16 has no TTL (19.6 added it), so there the
/// CREATE is refused, counted as failed inserts and logged with the server's error, and nothing
/// is written; on a server with TTL the tables have it.
#[test]
fn ttl_goes_on_the_tables_create_tables_makes() {
    let Some(ch) = ClickHouse::start() else {
        return;
    };
    let config = format!(
        "[[sink]]\nname = \"ch\"\nkind = \"clickhouse\"\nurl = \"{}\"\ncreate_tables = true\n\
         ttl = \"30d\"\nbatch_rows = 100\nbatch_time = \"100ms\"\n",
        ch.url()
    );
    let d = Daemon::start_logged(&config, "info");
    d.send(&corpus(100, 7));
    d.wait_merged(100);
    let version = ch.query("SELECT version()");
    let major: u32 = version.split('.').next().unwrap().parse().unwrap();
    let minor: u32 = version.split('.').nth(1).unwrap().parse().unwrap();
    if (major, minor) >= (19, 6) {
        d.wait_for(|d| sink_figure(d, "sent") == 100, "100 rows sent");
        for table in ["pinba_requests", "pinba_timers"] {
            let ddl = ch.query(&format!("SHOW CREATE TABLE {table}"));
            assert!(
                ddl.contains("TTL time + toIntervalSecond(2592000)"),
                "{ddl}"
            );
        }
    } else {
        d.wait_for(|d| sink_figure(d, "failed") >= 1, "the CREATE refused");
        assert_eq!(sink_figure(&d, "sent"), 0);
        d.wait_log("TTL");
        assert_eq!(ch.query("EXISTS TABLE pinba_requests"), "0");
    }
}
