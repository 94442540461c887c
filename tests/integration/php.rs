//! End-to-end with the real PHP Pinba extension (Debian's php8.2-pinba): PHP sends, pinbad shows.
//!
//! Skips with a visible message when `php` (with the pinba extension) is absent, unless
//! `PINBAD_REQUIRE_PHP` is set, in which case its absence fails the test (CI sets it).

use std::process::Command;

use serde_json::json;

use crate::common::*;

/// True when PHP with the pinba extension can run; otherwise skips (or fails under PINBAD_REQUIRE_PHP).
pub fn php_available() -> bool {
    let ok = Command::new("php")
        // pinba.enabled=0: this probe must not send a datagram to whatever pinba server the
        // machine's php.ini names.
        .args([
            "-d",
            "pinba.enabled=0",
            "-r",
            "exit(function_exists('pinba_timer_start') ? 0 : 1);",
        ])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        assert!(
            std::env::var_os("PINBAD_REQUIRE_PHP").is_none(),
            "PINBAD_REQUIRE_PHP is set but php with the pinba extension is not available"
        );
        eprintln!("SKIPPED: php with the pinba extension is not installed (apt-get install php-cli php8.2-pinba)");
    }
    ok
}

/// Runs a PHP script with pinba pointed at `server`.
pub fn run_php(server: std::net::SocketAddr, script: &str) {
    let out = Command::new("php")
        .args([
            "-d",
            "pinba.enabled=1",
            "-d",
            &format!("pinba.server={server}"),
            "-r",
            script,
        ])
        .output()
        .expect("run php");
    assert!(
        out.status.success(),
        "php failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn real_php_extension_requests_tags_and_timers_show_up() {
    if !php_available() {
        return;
    }
    let d = Daemon::start("");
    run_php(
        d.udp[0],
        r#"
        pinba_script_name_set('/php/checkout.php');
        pinba_hostname_set('php-host');
        pinba_server_name_set('shop.example.com');
        pinba_schema_set('https');
        pinba_tag_set('country', 'nl');
        pinba_tag_set('lang', 'en');
        $t = pinba_timer_start(['group' => 'db', 'op' => 'select']);
        usleep(3000);
        pinba_timer_stop($t);
        $u = pinba_timer_start(['group' => 'db', 'op' => 'select']);
        usleep(1000);
        pinba_timer_stop($u);
        $v = pinba_timer_start(['group' => 'cache']);
        pinba_timer_stop($v);
        pinba_flush();
        pinba_script_name_set('/php/second.php');
        pinba_flush();
        "#,
    );
    // Two pinba_flush() calls and the send at script end: three datagrams.
    d.wait_merged(3);
    let s = d.status();
    assert_eq!(s["packets_received"].as_u64(), Some(3), "{s}");
    assert_eq!(s["requests_rejected"].as_u64(), Some(0), "{s}");
    let list = d.json("/api/v1/requests?timers=true&script_name=%2Fphp%2Fcheckout.php");
    let r = &list["requests"][0];
    assert_eq!(r["hostname"], "php-host");
    assert_eq!(r["server_name"], "shop.example.com");
    assert_eq!(r["schema"], "https");
    assert_eq!(r["tags"], json!({"country": "nl", "lang": "en"}));
    assert!(r["request_time"].as_f64().unwrap() > 0.003, "{r}");
    assert!(r["memory_peak"].as_u64().unwrap() > 0);
    let timers = r["timers"].as_array().unwrap();
    // The extension merges the two {db, select} timers into one with hit_count 2.
    let db = timers
        .iter()
        .find(|t| t["tags"] == json!({"group": "db", "op": "select"}))
        .expect("db timer");
    assert_eq!(db["hit_count"], 2);
    assert!(db["value"].as_f64().unwrap() >= 0.004, "{db}");
    assert!(
        timers
            .iter()
            .any(|t| t["tags"] == json!({"group": "cache"})),
        "{timers:?}"
    );
    // Each pinba_flush() is one request; the extension sends once more at script end with the
    // last script name, so /php/second.php arrives twice and /php/checkout.php once.
    assert_eq!(list["requests"].as_array().unwrap().len(), 1);
    let second = d.json("/api/v1/requests?script_name=%2Fphp%2Fsecond.php");
    assert_eq!(second["requests"].as_array().unwrap().len(), 2);
}
