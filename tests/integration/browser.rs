//! A headless Chromium of the test's own, driven through chromedriver with W3C WebDriver: JSON
//! over HTTP, spoken here with the `ureq` and `serde_json` the tests already use (a dozen
//! commands; `fantoccini` would add 18 crates, `webdriver`, `time` and `icu_segmenter` among
//! them, and an async runtime to every test of the binary).
//!
//! chromedriver runs from a temporary directory on a free loopback port, Chromium with its own
//! temporary profile; both are stopped by the guard's drop (the session is closed, then
//! chromedriver's process group, Chromium included, is killed by its id), on failure too.
//! When Chromium or chromedriver is missing, [`Browser::start`] returns `None` after a visible
//! message, unless `PINBAD_REQUIRE_BROWSER` is set (CI sets it): then it fails.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

use crate::common::{wait_ready, Startup};

/// The W3C name of an element reference in WebDriver answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How long a condition may take: Chromium on a busy two-core machine is slow to start and draw.
const DEADLINE: Duration = Duration::from_secs(60);

/// A running headless Chromium session; closed and killed on drop.
pub struct Browser {
    driver: Child,
    url: String,
    agent: ureq::Agent,
    dir: tempfile::TempDir,
}

/// The first of `names` found in PATH (or given as an absolute path that exists).
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names.iter().find_map(|name| {
        if Path::new(name).is_absolute() {
            return Path::new(name).is_file().then(|| PathBuf::from(name));
        }
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session, or `None` (with a message) when
    /// either is not installed and `PINBAD_REQUIRE_BROWSER` is unset.
    pub fn start() -> Option<Browser> {
        let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
        let driver = find_program(&["chromedriver", "/usr/lib/chromium/chromedriver"]);
        let (Some(chromium), Some(driver)) = (chromium, driver) else {
            assert!(
                std::env::var_os("PINBAD_REQUIRE_BROWSER").is_none(),
                "PINBAD_REQUIRE_BROWSER is set but chromium/chromedriver are not installed"
            );
            eprintln!(
                "SKIPPED: chromium and chromedriver are not installed \
                 (apt-get install chromium chromium-driver)"
            );
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let agent = ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(90))
            .build();
        // The port is free when chosen; should another process take it first, chromedriver
        // exits and another port is tried.
        for _ in 0..3 {
            let port = crate::common::free_port();
            let mut child = Command::new(&driver)
                .arg(format!("--port={port}"))
                .arg(format!(
                    "--log-path={}",
                    dir.path().join("chromedriver.log").display()
                ))
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own process group, so that the guard stops Chromium with it.
                .process_group(0)
                .spawn()
                .expect("start chromedriver");
            let url = format!("http://127.0.0.1:{port}");
            let answers = || {
                let Ok(r) = agent.get(&format!("{url}/status")).call() else {
                    return false;
                };
                let v: Value = serde_json::from_str(&r.into_string().unwrap_or_default())
                    .unwrap_or(Value::Null);
                v["value"]["ready"] == true
            };
            if matches!(wait_ready(&mut child, DEADLINE, answers), Startup::Ready) {
                let mut browser = Browser {
                    driver: child,
                    url,
                    agent,
                    dir,
                };
                browser.new_session(&chromium);
                return Some(browser);
            }
            let _ = child.wait();
        }
        panic!("chromedriver did not start: {}", log(dir.path()));
    }

    fn new_session(&mut self, chromium: &Path) {
        let profile = self.dir.path().join("profile");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--disable-extensions", "--window-size=1280,1000",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
            "timeouts": {"script": 30000, "pageLoad": 60000},
        }}});
        let answer = self
            .call("POST", "/session", Some(caps))
            .unwrap_or_else(|e| panic!("new session: {e}; {}", log(self.dir.path())));
        let id = answer["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no sessionId in {answer}"));
        self.url = format!("{}/session/{id}", self.url);
    }

    /// One WebDriver command; its `value`, or the error WebDriver gave.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let req = self.agent.request(method, &format!("{}{path}", self.url));
        let resp = match body {
            Some(b) => req
                .set("Content-Type", "application/json")
                .send_string(&b.to_string()),
            None => req.call(),
        };
        let text = match resp {
            Ok(r) => r.into_string().map_err(|e| e.to_string())?,
            Err(ureq::Error::Status(code, r)) => {
                return Err(format!("{code}: {}", r.into_string().unwrap_or_default()))
            }
            Err(e) => return Err(e.to_string()),
        };
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
        Ok(v["value"].clone())
    }

    fn must(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, path, body)
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    /// Opens `url` (as pasting it into the address bar does).
    pub fn goto(&self, url: &str) {
        self.must("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` are `args`) in the page and returns its value.
    pub fn eval(&self, script: &str, args: Value) -> Value {
        self.must(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// The first element matching `css`, if any.
    fn find(&self, css: &str) -> Option<String> {
        let v = self
            .call(
                "POST",
                "/element",
                Some(json!({"using": "css selector", "value": css})),
            )
            .ok()?;
        v[ELEMENT].as_str().map(str::to_string)
    }

    /// Clicks the element `css` as a person would, once it exists (again if the page redrew it
    /// between finding and clicking: a refresh replaces table rows every 5 s).
    pub fn click(&self, css: &str) {
        self.wait(&format!("a click on {css}"), |b| {
            let id = b.find(css)?;
            b.call("POST", &format!("/element/{id}/click"), Some(json!({})))
                .ok()
        });
    }

    /// Replaces the text of the input `css` with `text` by typing it.
    pub fn type_into(&self, css: &str, text: &str) {
        self.wait(&format!("typing into {css}"), |b| {
            let id = b.find(css)?;
            b.call("POST", &format!("/element/{id}/clear"), Some(json!({})))
                .ok()?;
            b.call(
                "POST",
                &format!("/element/{id}/value"),
                Some(json!({ "text": text })),
            )
            .ok()
        });
    }

    /// Polls `f` (every 50 ms, up to a minute) until it gives a value.
    pub fn wait<T>(&self, what: &str, f: impl Fn(&Browser) -> Option<T>) -> T {
        let deadline = Instant::now() + DEADLINE;
        loop {
            if let Some(v) = f(self) {
                return v;
            }
            if Instant::now() > deadline {
                let errors = self.eval(
                    "return window.__pinbad && window.__pinbad.errors",
                    json!([]),
                );
                let banner = self.eval(
                    "const e = document.getElementById('error'); return e && e.textContent",
                    json!([]),
                );
                panic!("timed out waiting for {what}; page errors {errors}, banner {banner}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Makes the page's clock read in `zone` (an IANA name, e.g. `Asia/Tokyo`) whatever the
    /// machine's, through the DevTools protocol chromedriver forwards; it holds across loads.
    pub fn set_time_zone(&self, zone: &str) {
        self.must(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": "Emulation.setTimezoneOverride", "params": {"timezoneId": zone}})),
        );
    }

    /// The page's current URL.
    pub fn current_url(&self) -> String {
        self.must("GET", "/url", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The browser console's entries since the last call (chromedriver's `goog:loggingPrefs`
    /// log): script errors, failed loads, console calls.
    pub fn console(&self) -> Vec<Value> {
        self.must("POST", "/se/log", Some(json!({"type": "browser"})))
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Writes a PNG of the viewport to `path`.
    pub fn screenshot(&self, path: &Path) {
        let b64 = self.must("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap_or_default())
            .expect("the screenshot is base64");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Close the session (Chromium exits), then stop chromedriver's group by its id.
        if self.url.contains("/session/") {
            let _ = self
                .agent
                .delete(&self.url)
                .timeout(Duration::from_secs(10))
                .call();
        }
        let pgid = self.driver.id() as i32;
        // SAFETY: kill(2) on the process group our own child leads.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = self.driver.wait();
    }
}

fn log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("chromedriver.log"))
        .map(|s| s.lines().rev().take(30).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}
