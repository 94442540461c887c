// pinbad's dashboard: plain JavaScript over the public API, no framework, no build step.
//
// Views: the overview (the live window, the servers, charts, pinbad's health), a server (its
// hosts and scripts), a script (its status mix, timers and slowest requests), the reports (a
// grouped, searchable picker; paged tables), a row's history, the raw requests. Every view's
// state lives in the URL hash (`#/report/NAME?sort=-req_count&page=2`, `#/slow?status=500`), so
// a link reloads into the same view. Times read in the user's time zone, UTC on hover. The open
// view refreshes every 5 s and nothing runs while the tab is hidden. A read or change the server
// refuses with 401 (with a token set, reads need it unless http.token_reads = false) asks for
// the token, kept in sessionStorage (this tab only). Charts are uPlot. `window.__pinbad`
// exposes the charts, the errors seen and the pure functions (for the browser tests), and
// `views`/`ui` for views another script adds.
'use strict';

(function () {
  const P = (window.__pinbad = { charts: {}, errors: [], refreshes: 0, lib: {}, ui: {}, views: {} });
  // Collected for the tests (and anyone debugging): uncaught errors, rejections, console.error.
  window.addEventListener('error', (e) => P.errors.push(String(e.message || e)));
  window.addEventListener('unhandledrejection', (e) =>
    P.errors.push('unhandled rejection: ' + ((e.reason && e.reason.message) || e.reason)));
  const consoleError = console.error.bind(console);
  console.error = (...args) => {
    P.errors.push(args.map(String).join(' '));
    consoleError(...args);
  };

  const POLL_MS = 5000;
  const RANGES = { '15m': 900, '1h': 3600, '1d': 86400, '7d': 7 * 86400 };
  const DEFAULT_RANGE = '1h';
  /** The fleet view's ranges as the history view's range picker names them; a range it has no
   *  button for (`30d`) is given to a fleet row's chart as from/to (`FLEET_SECONDS`). */
  const FLEET_RANGES = { '1h': '1h', '24h': '1d', '7d': '7d' };
  const FLEET_SECONDS = { '30d': 30 * 86400 };
  const TOKEN_KEY = 'pinbad.token';
  const COLORS = ['#2f6fdf', '#e8772e', '#1e8e3e', '#c0392b', '#8e44ad', '#16a2b8', '#b7950b',
    '#7f8c8d', '#d35400', '#2c3e50', '#27ae60'];

  // ---- DOM ------------------------------------------------------------------------------------

  /** `h('td', {class: 'key'}, 'text', node)`: an element with attributes and children. */
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? '' : v);
    }
    for (const kid of kids.flat()) {
      if (kid != null) el.append(kid instanceof Node ? kid : String(kid));
    }
    return el;
  }
  const $ = (id) => document.getElementById(id);

  // ---- Formatting (pure) ------------------------------------------------------------------------

  const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const num = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });

  function fmtNumber(v) {
    if (v == null || Number.isNaN(v)) return '–';
    return Number.isInteger(v) ? int.format(v) : num.format(v);
  }
  function fmtSeconds(v) {
    if (v == null) return '–';
    const a = Math.abs(v);
    if (a === 0) return '0';
    if (a < 1e-3) return num.format(v * 1e6) + ' µs';
    if (a < 1) return num.format(v * 1e3) + ' ms';
    return num.format(v) + ' s';
  }
  /** Bytes in binary units (PHP's memory_limit and memory_get_peak_usage() count in them:
   *  2 MiB reads "2 MiB", not "2.097 MB"). */
  function fmtBytes(v) {
    if (v == null) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i ? num.format(v) : int.format(v)) + ' ' + units[i];
  }
  /** Tick steps for byte axes: 1, 2, 4 … 512 times each binary unit. */
  const BINARY_INCRS = [0, 1, 2, 3, 4].flatMap((k) =>
    [1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((m) => m * 1024 ** k));
  function fmtDuration(s) {
    if (s == null) return '–';
    s = Math.round(s);
    const d = Math.floor(s / 86400), hh = Math.floor(s % 86400 / 3600);
    const m = Math.floor(s % 3600 / 60), sec = s % 60;
    if (d) return `${d}d ${hh}h`;
    if (hh) return `${hh}h ${m}m`;
    if (m) return `${m}m ${sec}s`;
    return `${sec}s`;
  }
  /** A status figure's value in its unit (see GET /api/v1/status/figures). */
  function fmtFigure(v, unit) {
    if (unit === 'seconds') return v >= 60 ? fmtDuration(v) : fmtSeconds(v);
    if (unit === 'bytes') return fmtBytes(v);
    if (unit === 'timestamp') return v ? localTime(v) : '–';
    return fmtNumber(v);
  }
  /**
   * A figure's values in the status object, as [label or null, number] pairs: its path is a key,
   * `a.b` inside an object, `a.*` each key of an object, `a[].b` each element by its name.
   */
  function statusValues(status, path) {
    const num = (v) => (typeof v === 'boolean' ? Number(v) : (typeof v === 'number' ? v : 0));
    const at = path.indexOf('[].');
    if (at >= 0) {
      const field = path.slice(at + 3);
      return (status[path.slice(0, at)] || []).map((item) => [item.name, num(item[field])]);
    }
    if (path.endsWith('.*')) {
      return Object.entries(status[path.slice(0, -2)] || {}).map(([k, v]) => [k, num(v)]);
    }
    return [[null, num(path.split('.').reduce((v, k) => (v == null ? v : v[k]), status))]];
  }
  /** How a report column's values read: times, percents, bytes or plain numbers. */
  function columnKind(col) {
    if (col.endsWith('_percent')) return 'percent';
    if (/^p\d+(\.\d+)?$/.test(col) || /_median$/.test(col)) return 'time';
    if (/^(req_time|ru_utime|ru_stime)_total$/.test(col)) return 'time';
    if (/^(timer_value|ru_utime_value|ru_stime_value)$/.test(col)) return 'time';
    if (/^(traffic|memory_footprint|memory_peak)_(total|per_sec|max)$/.test(col)) return 'bytes';
    return 'number';
  }
  function fmtCell(col, v) {
    if (typeof v === 'string') return v;
    switch (columnKind(col)) {
      case 'percent': return v == null ? '–' : num.format(v) + ' %';
      case 'time': return fmtSeconds(v);
      case 'bytes': return fmtBytes(v);
      default: return fmtNumber(v);
    }
  }

  /** A moment as the user reads it: their time zone and locale. */
  function localTime(unix) { return new Date(unix * 1000).toLocaleString(); }
  /** The same moment in UTC, `2026-11-26 00:18:58 UTC`: what a hover shows. */
  function utcTime(unix) {
    return new Date(unix * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  }
  /** A `<time>`: the user's local time, UTC on hover. */
  function timeEl(unix) {
    return h('time', { datetime: new Date(unix * 1000).toISOString(), title: utcTime(unix) },
      localTime(unix));
  }
  /** `s` as a literal in a regex of the regex crate (the API's `match`). */
  function escapeRe(s) { return String(s).replace(/[\\.+*?()|[\]{}^$#&\-~]/g, '\\$&'); }
  /** A report's `match` for rows whose `col` is one of `values` exactly. */
  function matchAny(col, values) {
    return `${col}:^(?:${values.map(escapeRe).join('|')})$`;
  }
  /** Statuses ≥ 500, as a `match` regex on the status column. */
  const ERROR_STATUS = 'status:^(?:[5-9][0-9][0-9]|[0-9]{4,})$';

  // ---- Routes (pure) ----------------------------------------------------------------------------

  /** `#/report/NAME?sort=x` → {view: 'report', name: 'NAME', params: URLSearchParams}. */
  function parseRoute(hash) {
    const s = (hash || '').replace(/^#\/?/, '');
    const q = s.indexOf('?');
    const path = q < 0 ? s : s.slice(0, q);
    const params = new URLSearchParams(q < 0 ? '' : s.slice(q + 1));
    const [view, ...rest] = path.split('/');
    const name = rest.length ? decodeURIComponent(rest.join('/')) : '';
    return { view: view || 'overview', name, params };
  }
  function routeHash(view, name, params) {
    const q = params && params.toString();
    return '#/' + view + (name ? '/' + encodeURIComponent(name) : '') + (q ? '?' + q : '');
  }
  /** The time range of the view as the history API's `from`/`to`, and a label. */
  function rangeOf(params) {
    const from = params.get('from'), to = params.get('to');
    if (from && to) return { from, to, key: 'custom' };
    const r = RANGES[params.get('range')] ? params.get('range') : DEFAULT_RANGE;
    return { from: '-' + r, to: 'now', key: r };
  }

  // ---- History answers → chart data (pure) ------------------------------------------------------

  /** The steps of a history answer from its first point to its last, sorted, each at its end
   *  (the API's `t` is a step's start, a chart draws a step where it is complete). The API
   *  leaves out steps without data; they are here too, so that their values are null and a
   *  chart breaks its line there rather than drawing traffic that was not there. */
  function steps(history) {
    const ts = new Set();
    for (const s of history.series) for (const p of s.points) ts.add(p[0]);
    const step = history.step || 0;
    const sorted = [...ts].sort((a, b) => a - b);
    if (step > 0 && sorted.length > 1) {
      const [first, last] = [sorted[0], sorted[sorted.length - 1]];
      // Bounded: the API answers at most a few thousand steps.
      if ((last - first) / step <= 100000) {
        for (let x = first + step; x < last; x += step) ts.add(x);
        return [...ts].sort((a, b) => a - b).map((x) => x + step);
      }
    }
    return sorted.map((x) => x + step);
  }
  /** One column of every series, aligned on the union of their steps (absent steps: null). */
  function seriesColumn(history, col) {
    const i = history.columns.indexOf(col);
    if (i < 0) throw new Error(`column ${col} not in the history answer`);
    const t = steps(history);
    const at = new Map(t.map((x, k) => [x - (history.step || 0), k]));
    const ys = history.series.map((s) => {
      const y = new Array(t.length).fill(null);
      for (const p of s.points) y[at.get(p[0])] = p[i + 1];
      return y;
    });
    const labels = history.series.map((s) => (s.other ? '(other)' : s.key.join(' · ') || 'total'));
    return { t, ys, labels };
  }
  /** Per step: requests with status ≥ 500 / all requests, from `report_by_status` history
   *  (`group=rows`, column `req_count`); the "other" row counts in the total only. */
  function errorRatio(history) {
    const { t, ys } = seriesColumn(history, 'req_count');
    const col = history.key_columns.indexOf('status');
    const ratio = t.map((_, k) => {
      let all = 0, bad = 0;
      history.series.forEach((s, j) => {
        const n = ys[j][k] || 0;
        all += n;
        if (!s.other && Number(s.key[col]) >= 500) bad += n;
      });
      return all ? bad / all : null;
    });
    return [t, ratio];
  }
  /** Whether the "(other)" series of a `group=rows` answer holds any requests: rows past the
   *  limit, summed, which no column of theirs can be told apart in. */
  function otherHolds(history) {
    const { ys } = seriesColumn(history, 'req_count');
    return history.series.some((s, j) => s.other && ys[j].some((n) => n > 0));
  }
  /** Per step, the sum of several columns of a one-series (`group=total`) answer. */
  function sumColumns(history, cols) {
    const parts = cols.map((c) => seriesColumn(history, c));
    const t = parts[0].t;
    return [t, t.map((_, k) => parts.reduce((acc, p) => {
      const v = p.ys.length ? p.ys[0][k] : null;
      return v == null ? acc : (acc || 0) + v;
    }, null))];
  }
  /** Whether a report (an entry of GET /api/v1/reports) keeps history: true, false, or null
   *  when the server does not say (then the history endpoint answers). */
  function keepsHistory(entry) {
    if (!entry || !('history_retention' in entry)) return null;
    const r = entry.history_retention;
    return !(r == null || r === 0 || r === '' || /^0+\s*[a-z]*$/.test(String(r)));
  }
  /** The key columns of a report answer: what a row has and the totals do not. */
  function keyColumns(table) {
    if (table.rows.length) {
      return Object.keys(table.rows[0]).filter((c) => !(c in table.totals));
    }
    return table.keys.map((k) => k.replace(/^(timer_tag|tag):/, ''));
  }
  // ---- What changed (pure) ----------------------------------------------------------------------

  /** The "what changed" view's presets: the compare API's `vs` (range B the last `span`, range A
   *  the same span that long before). */
  const CHANGE_PRESETS = [['1h', 'vs an hour ago'], ['1d', 'vs yesterday'], ['7d', 'vs last week']];
  /** How long each range is, as offered (the API's `span`; 1 h when not given). */
  const CHANGE_SPANS = ['5m', '15m', '1h', '6h', '1d'];
  /** Marks the "what changed" view offers as a boundary at most (the newest). */
  const MARK_CHOICES = 50;
  /** The parameters of the view's URL passed on to GET /api/v1/compare as they are. */
  const COMPARE_PARAMS = ['report', 'vs', 'at', 'span', 'a_from', 'a_to', 'b_from', 'b_to', 'by', 'limit'];
  const RANGE_PARAMS = ['vs', 'at', 'a_from', 'a_to', 'b_from', 'b_to'];
  /** The report compared when the URL names none: every request by script. */
  const DEFAULT_COMPARE_REPORT = 'report_by_script_name';

  /** The compare API's parameters for the view's URL parameters: those it takes, the report
   *  defaulting to `DEFAULT_COMPARE_REPORT` and the ranges to "vs an hour ago". */
  function compareQuery(params) {
    const p = new URLSearchParams();
    for (const k of COMPARE_PARAMS) if (params.get(k)) p.set(k, params.get(k));
    if (!p.get('report')) p.set('report', DEFAULT_COMPARE_REPORT);
    if (!RANGE_PARAMS.some((k) => p.get(k))) p.set('vs', '1h');
    return p;
  }

  /** The history view's route for a compared row: range B, filtered on the row's key, with range
   *  A drawn over it (`vs_from`, `vs_to`); at the coarser of the two sides' stored steps when
   *  that gives at most 1000 points, so that A's steps, moved by B's start minus A's, fall on
   *  B's. */
  function changeChartHash(answer, row) {
    const p = new URLSearchParams();
    answer.key_columns.forEach((c, i) => p.append('filter', `${c}:${row.key[i]}`));
    p.set('from', answer.b.from);
    p.set('to', answer.b.to);
    p.set('vs_from', answer.a.from);
    p.set('vs_to', answer.a.to);
    const step = Math.max(answer.a.step, answer.b.step);
    if ((answer.b.to - answer.b.from) / step <= 1000) p.set('step', step + 's');
    return routeHash('history', answer.report, p);
  }

  /** Column `col` of history answer `after` (range B) and of `before` (range A) moved `shift`
   *  seconds later onto B's time, as chart data: the union of their steps, B's series then A's
   *  (labelled "before: …"), null where a series has no point. */
  function overlay(after, before, col, shift) {
    const b = seriesColumn(after, col), a = seriesColumn(before, col);
    const t = [...new Set([...b.t, ...a.t.map((x) => x + shift)])].sort((x, y) => x - y);
    const place = (ys, ts, d) => ys.map((y) => {
      const m = new Map(ts.map((x, k) => [x + d, y[k]]));
      return t.map((x) => (m.has(x) ? m.get(x) : null));
    });
    return { t, ys: [...place(b.ys, b.t, 0), ...place(a.ys, a.t, shift)],
      labels: [...b.labels, ...a.labels.map((l) => `before: ${l}`)] };
  }

  Object.assign(P.lib, { parseRoute, routeHash, rangeOf, seriesColumn, errorRatio, otherHolds, sumColumns,
    keyColumns, keepsHistory, marksIn, markTitle, columnKind, fmtCell, escapeRe, matchAny, utcTime, localTime, pageOf,
    reportGroup, timersByTag, fmtBytes, gapsOf, lonePoints,
    compareQuery, changeChartHash, overlay });

  // ---- API ------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, error, detail) {
      super(`${status} ${error || ''}: ${detail || ''}`);
      Object.assign(this, { status, error, detail });
    }
  }

  let tokenAsk = null;
  /** Opens the token dialog (one at a time); resolves to the token, or '' when cancelled. */
  function askToken() {
    if (tokenAsk) return tokenAsk;
    const dialog = $('token-dialog'), input = $('token-input');
    input.value = '';
    tokenAsk = new Promise((resolve) => {
      dialog.addEventListener('close', () => {
        tokenAsk = null;
        resolve(dialog.returnValue === 'ok' ? input.value.trim() : '');
      }, { once: true });
    });
    dialog.returnValue = '';
    dialog.showModal();
    input.focus();
    return tokenAsk;
  }

  /** The page's API calls at once, at most: the daemon runs `http.max_concurrent_queries` (4
   *  by default) report, raw and history queries at once and answers 503 beyond, and a view
   *  (a server's page) asks for a dozen things each refresh. The others wait their turn here. */
  const MAX_INFLIGHT = 3;
  let inflight = 0;
  const waiting = [];
  function slot() {
    if (inflight < MAX_INFLIGHT) { inflight++; return Promise.resolve(); }
    return new Promise((resolve) => waiting.push(resolve));
  }
  function release() {
    const next = waiting.shift();
    if (next) next(); else inflight--; // the slot passes to the next call as it is
  }

  /** JSON from the API, with the token when one was given; a 401 asks for it and retries, a
   *  503 with `Retry-After` (every query slot taken, by other clients too) is retried after it. */
  async function api(path, init = {}) {
    for (let attempt = 0; ; attempt++) {
      const headers = { Accept: 'application/json', ...(init.headers || {}) };
      const token = sessionStorage.getItem(TOKEN_KEY);
      if (token) headers.Authorization = 'Bearer ' + token;
      await slot();
      let resp, text;
      try {
        resp = await fetch(path, { ...init, headers });
        text = await resp.text();
      } finally {
        release();
      }
      if (resp.status === 401 && attempt < 3) {
        const given = await askToken();
        if (!given) throw new ApiError(401, 'unauthorized', 'this needs the API token');
        sessionStorage.setItem(TOKEN_KEY, given);
        continue;
      }
      const after = Number(resp.headers.get('Retry-After'));
      if (resp.status === 503 && after > 0 && attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, Math.min(after, 5) * 1000));
        continue;
      }
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch (_) { body = text; }
      if (!resp.ok) {
        throw new ApiError(resp.status, body && body.error, (body && body.detail) || text);
      }
      return body;
    }
  }
  const q = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v != null && v !== ''));

  /** `n`, or less: the largest `limit` the server takes (`limits.max_query_limit`, in
   *  GET /api/v1/reports, read once), as a larger one is a 400 (limits.max_query_limit can be
   *  set below the limits the page asks for). Queries that need no particular limit send none:
   *  the server's default is within it. */
  let maxQueryLimit = null;
  function limitOf(n) {
    if (!maxQueryLimit) {
      maxQueryLimit = api('/api/v1/reports').then((l) => l.max_query_limit || Infinity);
      maxQueryLimit.catch(() => { maxQueryLimit = null; }); // asked again at the next use
    }
    return maxQueryLimit.then((max) => Math.min(n, max));
  }

  /** The live window's requests with status ≥ 500, and all of them, from `report_by_status`: its
   *  rows highest status first, a page (the server's default limit) at a time, until a row is
   *  below 500. Usually one page, and exact whatever `limits.max_query_limit` (a fixed
   *  `limit=1000` was a 400 below it, and cut the rows short above 1000 statuses). */
  async function liveErrors() {
    let bad = 0;
    for (let offset = 0; ;) {
      const by = await api(`/api/v1/reports/report_by_status?${q({ sort: '-status', offset })}`);
      let below = false;
      for (const r of by.rows) {
        if (Number(r.status) >= 500) bad += r.req_count;
        else below = true;
      }
      offset += by.rows.length;
      if (below || !by.rows.length || offset >= by.rows_total) return { bad, all: by.totals.req_count };
    }
  }

  // ---- Charts ---------------------------------------------------------------------------------

  /** A titled box for a chart, with a note line for "no history" and the like. */
  function chartBox(id, title) {
    const plot = h('div', { class: 'plot' });
    const note = h('div', { class: 'note', hidden: true });
    const marks = h('div', { class: 'marks-list muted', hidden: true });
    const box = h('div', { class: 'chart', id }, h('h3', {}, title), note, plot, marks);
    return { box, plot, note, marks };
  }
  /** The marks (`GET /api/v1/marks`: deploys, config changes), as the last poll found them: every
   *  chart draws those in its range. Asked at most once per poll, before the view refreshes. */
  let marksAt = 0;
  P.marks = [];
  async function loadMarks() {
    if (Date.now() - marksAt < POLL_MS) return;
    marksAt = Date.now();
    try {
      P.marks = (await api('/api/v1/marks')).marks || [];
    } catch (e) {
      // Marks only annotate: a failure to read them (an older pinbad's 404, a busy server)
      // leaves the charts as they are, with the marks last read, and the view refreshes.
    }
  }
  /** What a mark says on hover: its time (local and UTC), text, and the server or script it
   *  concerns. Pure. */
  function markTitle(m) {
    const on = [m.server_name, m.script_name].filter(Boolean).join(' ');
    return `${localTime(m.time)} (${utcTime(m.time)}): ${m.text}${on ? ' — ' + on : ''}`;
  }
  /** The marks within [from, to] (unix seconds), by time. Pure. */
  function marksIn(marks, from, to) {
    return marks.filter((m) => m.time >= from && m.time <= to).sort((a, b) => a.time - b.time);
  }
  /** Each mark in the chart's range as a vertical line over the plot (its text on hover), and
   *  listed under the chart. */
  function drawMarks(u, box, from, to) {
    let layer = u.over.querySelector('.marks');
    if (!layer) { layer = h('div', { class: 'marks' }); u.over.append(layer); }
    const width = u.over.clientWidth;
    const shown = marksIn(P.marks, from, to);
    layer.replaceChildren(...shown.map((m) => {
      const x = u.valToPos(m.time, 'x');
      if (!(x >= 0 && x <= width)) return null;
      return h('div', { class: 'mark', 'data-id': m.id, 'data-time': m.time, title: markTitle(m),
        style: `left:${(x - 3).toFixed(1)}px` });
    }).filter(Boolean));
    if (box && box.marks) {
      box.marks.hidden = !shown.length;
      box.marks.replaceChildren(...(shown.length ? [h('span', {}, 'marks: ')] : []),
        ...shown.map((m, i) => h('span', { class: 'mark-item', 'data-id': m.id, title: markTitle(m) },
          (i ? ' · ' : '') + `${localTime(m.time)} ${m.text}`)));
    }
  }
  /**
   * The spans of a chart without data, as [from, to] unix seconds: the steps where every series
   * is null (the history API leaves them out; `steps()` put them back as nulls), merged when
   * consecutive; the part of the range before the first step (a new install, a server that
   * appeared); and the end of the range past the last step when it is two steps or more (the
   * step being summed is always absent, so one is not a gap). `t`: step ends; `ys`: the series.
   * Pure.
   */
  function gapsOf(t, ys, step, from, to) {
    const gaps = [];
    if (!t.length || !(step > 0)) return gaps;
    const add = (a, b) => {
      const last = gaps[gaps.length - 1];
      if (last && last[1] >= a) last[1] = Math.max(last[1], b); else if (b > a) gaps.push([a, b]);
    };
    if (t[0] - step - from >= step) add(from, t[0] - step);
    t.forEach((x, k) => { if (ys.every((y) => y[k] == null)) add(x - step, x); });
    if (to - t[t.length - 1] >= 2 * step) add(t[t.length - 1], to);
    return gaps;
  }
  /** Indices of the points of `y` with no neighbour that has a value: a line cannot show them,
   *  so they get a marker. Pure. */
  function lonePoints(y) {
    const out = [];
    y.forEach((v, k) => { if (v != null && y[k - 1] == null && y[k + 1] == null) out.push(k); });
    return out;
  }
  /** Markers on every point when a step is at least this many pixels wide, or a series has at
   *  most `FEW_POINTS` points: a few points over a long range (a new install's first minutes
   *  in the hour) then read as points joined by lines, not as specks. */
  const STEP_PX = 6, FEW_POINTS = 12;
  /** Bands over a chart's spans without data (`gapsOf`), each saying "no data" (the times on
   *  hover): elements over the plot, so that a test (and a reader) can tell a gap from a zero. */
  function drawGaps(u, gaps) {
    let layer = u.over.querySelector('.gaps');
    if (!layer) { layer = h('div', { class: 'gaps' }); u.over.append(layer); }
    const width = u.over.clientWidth;
    layer.replaceChildren(...gaps.map(([a, b]) => {
      const x0 = Math.max(0, u.valToPos(a, 'x')), x1 = Math.min(width, u.valToPos(b, 'x'));
      if (!(x1 > x0)) return null;
      return h('div', { class: 'no-data', 'data-from': a, 'data-to': b,
        title: `no data from ${localTime(a)} to ${localTime(b)} (${utcTime(a)} to ${utcTime(b)})`,
        style: `left:${x0.toFixed(1)}px;width:${(x1 - x0).toFixed(1)}px` },
      x1 - x0 >= 52 ? h('span', {}, 'no data') : null);
    }).filter(Boolean));
  }
  /** Draws (or updates in place) the uPlot chart `id` in `box`: data = [t, ...ys], over the
   *  time span the history answered for (`span`: its `from`, `to` and `step`), however few its
   *  points. Lines join consecutive steps only; a step without data is a band saying so. */
  function drawChart(id, box, span, labels, data, fmt, opts = {}) {
    if (!box.box.isConnected) return null; // a late answer for a view already left
    const empty = data[0].length === 0;
    box.note.hidden = !empty;
    box.note.textContent = empty ? 'No points in this range yet.' : '';
    box.plot.hidden = empty;
    const step = span.step || 0;
    const gaps = gapsOf(data[0], data.slice(1), step, span.from, span.to);
    let u = P.charts[id];
    const shape = labels.join('\u0001');
    if (u && u.pinbadShape === shape && u.root.isConnected) {
      Object.assign(u.pinbadSpan, { at: [span.from, span.to], step, gaps, last: data[0][data[0].length - 1] });
      u.setData(data);
      return u;
    }
    if (u) u.destroy();
    // Over a step without data the legend says so; '–' when no step is pointed at.
    const value = (_, v, si, idx) => (idx == null ? '–' : v == null ? 'no data' : fmt(v));
    const spanRef = { at: [span.from, span.to], step, gaps, last: data[0][data[0].length - 1] };
    const many = (uu, si) => {
      const [from, to] = spanRef.at;
      const stepPx = spanRef.step > 0 && to > from ? uu.over.clientWidth * spanRef.step / (to - from) : 0;
      return stepPx >= STEP_PX || uu.data[si].filter((v) => v != null).length <= FEW_POINTS;
    };
    u = new uPlot({
      width: Math.max(300, box.box.clientWidth - 16),
      height: 200,
      // The legend's time: the user's zone, and UTC beside it.
      series: [{ value: (_, t) => (t == null ? '–' : `${localTime(t)} (${utcTime(t)})`) },
        ...labels.map((label, i) => ({
          label, value, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false,
          points: { show: many, size: 6, filter: (uu, si, shown) => (shown ? null : lonePoints(uu.data[si])) },
        }))],
      // Bytes tick at binary steps (512 KiB, 1 MiB, 2 MiB), where uPlot's decimal ones read
      // 976.6 KiB and 1.907 MiB.
      axes: [{}, { size: 82, values: (_, vals) => vals.map((v) => fmt(v)),
        ...(fmt === fmtBytes ? { incrs: BINARY_INCRS } : {}) }],
      // The range, and the end of its last step where that is later (a step that holds `to`
      // is drawn at its end, past it: else the newest point would be cut off).
      scales: { x: { time: true, range: () => [spanRef.at[0], Math.max(spanRef.at[1], spanRef.last ?? -Infinity)] },
        // A ratio from 0 (up to 1 % when every step is 0, not uPlot's 0 to 100 = 10,000 %).
        ...(opts.ratio ? { y: { range: (_, min, max) => [0, Math.max(0.01, (max || 0) * 1.1)] } } : {}) },
      hooks: { draw: [(uu) => drawGaps(uu, spanRef.gaps),
        (uu) => drawMarks(uu, box, spanRef.at[0], Math.max(spanRef.at[1], spanRef.last ?? -Infinity))] },
    }, data, box.plot);
    u.pinbadShape = shape;
    u.pinbadSpan = spanRef;
    P.charts[id] = u;
    return u;
  }
  function dropCharts() {
    for (const [id, u] of Object.entries(P.charts)) { u.destroy(); delete P.charts[id]; }
  }
  window.addEventListener('resize', () => {
    for (const u of Object.values(P.charts)) {
      const box = u.root.closest('.chart');
      if (box) u.setSize({ width: Math.max(300, box.clientWidth - 16), height: 200 });
    }
  });
  const pct = (v) => num.format(v * 100) + ' %';

  /** A sparkline: an inline SVG of `ys` (at least one a number) at times `ts` over `span`
   *  ([from, to], unix seconds), scaled to its own maximum; a gap where a step has no point.
   *  Its points and step are on the element (`data-*`) for the tests; its title says the last
   *  and the largest value. */
  function sparkline(ts, ys, step, span, fmt) {
    const NS = 'http://www.w3.org/2000/svg';
    const W = 120, H = 24;
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('class', 'spark');
    svg.setAttribute('width', W);
    svg.setAttribute('height', H);
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.dataset.points = JSON.stringify(ys);
    svg.dataset.step = String(step);
    const max = Math.max(0, ...ys.filter((v) => v != null));
    const [from, to] = span;
    const x = (t) => (to > from ? ((t - from) / (to - from)) * (W - 2) + 1 : W / 2);
    const y = (v) => H - 2 - (max > 0 ? (v / max) * (H - 4) : 0);
    let d = '', pen = false;
    ys.forEach((v, i) => {
      if (v == null) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(ts[i]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
      // A lone point (no neighbour to draw a line to) is a dot, so that it shows.
      if (ys[i - 1] == null && ys[i + 1] == null) {
        const dot = document.createElementNS(NS, 'circle');
        dot.setAttribute('cx', x(ts[i]).toFixed(1));
        dot.setAttribute('cy', y(v).toFixed(1));
        dot.setAttribute('r', '1.8');
        svg.append(dot);
      }
    });
    const path = document.createElementNS(NS, 'path');
    path.setAttribute('d', d);
    svg.append(path);
    const last = [...ys].reverse().find((v) => v != null);
    const title = document.createElementNS(NS, 'title');
    title.textContent = `last ${fmt(last)}, highest ${fmt(max)} (a point per ${fmtDuration(step)})`;
    svg.append(title);
    return svg;
  }

  /** "rows 51–100 of 9,307" and buttons to the first, previous, next and last page; `go(page)`
   *  changes the URL (pages count from 1). */
  function pager(id, total, page, size, go) {
    const pages = Math.max(1, Math.ceil(total / size));
    const first = total ? (page - 1) * size + 1 : 0, last = Math.min(total, page * size);
    const button = (label, to, rel) => h('button', { type: 'button', 'data-page': to, rel,
      disabled: to < 1 || to > pages || to === page, onclick: () => go(to) }, label);
    return h('div', { class: 'pager', id },
      button('« first', 1, 'first'), button('‹ previous', page - 1, 'prev'),
      h('span', { class: 'range-of' }, `rows ${fmtNumber(first)}–${fmtNumber(last)} of ${fmtNumber(total)}`
        + (pages > 1 ? ` · page ${fmtNumber(page)} of ${fmtNumber(pages)}` : '')),
      button('next ›', page + 1, 'next'), button('last »', pages, 'last'));
  }
  /** A page number from the URL: a whole number ≥ 1, else 1. */
  function pageOf(v) {
    const n = Number(v);
    return Number.isInteger(n) && n >= 1 ? n : 1;
  }

  /** Fetches a history at most once per step (and per poll): a 1 h range at 1 m steps costs the
   *  daemon one query a minute, not one every 5 s. */
  function historyPoller() {
    let at = 0, every = 0;
    return {
      due: () => Date.now() - at >= every,
      done(answer) { at = Date.now(); every = Math.max(POLL_MS, ((answer && answer.step) || 0) * 1000); },
    };
  }
  /** A history fetch whose 404 ("keeps no history", or no such endpoint) becomes a note; not
   *  asked at all for a report the list says keeps none. */
  async function fetchHistory(name, params, boxes, entry, fleet) {
    // The fleet's history (from the report ticks in ClickHouse) is in the same shape, whether
    // or not this pinbad keeps the report's history.
    if (fleet) {
      try {
        return await api(`/api/v1/fleet/reports/${encodeURIComponent(name)}/history?${params}`);
      } catch (e) {
        if (e.status !== 404 && e.status !== 400 && e.status !== 502) throw e;
        for (const b of boxes) {
          b.note.hidden = false;
          b.note.textContent = `No fleet history for ${name}: ${e.detail}`;
        }
        return null;
      }
    }
    if (keepsHistory(entry) === false) {
      for (const b of boxes) {
        b.note.hidden = false;
        b.note.textContent = `${name} keeps no history (its history_retention is not set).`;
      }
      return null;
    }
    try {
      return await api(`/api/v1/reports/${encodeURIComponent(name)}/history?${params}`);
    } catch (e) {
      if (e.status !== 404 && e.status !== 400) throw e;
      for (const b of boxes) {
        b.note.hidden = false;
        b.note.textContent = `No history for ${name}: ${e.detail}`;
      }
      return null;
    }
  }

  // ---- Views ----------------------------------------------------------------------------------
  // A view: {root, range (shows the range picker), refresh(route)}; the router keeps one.

  function card(label, id) {
    return h('div', { class: 'card' }, h('div', { class: 'label' }, label),
      h('div', { class: 'value', id }, '–'));
  }
  function setText(id, text) { const el = $(id); if (el) el.textContent = text; }

  function overviewView(route) {
    const reportsOnce = reportList();
    const servers = levelTable('servers', 'Servers', LEVELS.servers, [], '',
      (r, params) => routeHash('server', r.server_name, rangeParams(params)), reportsOnce);
    const boxes = {
      rate: chartBox('chart-rate', 'Requests per second'),
      latency: chartBox('chart-latency', 'Request time: p50, p95, p99'),
      errors: chartBox('chart-errors', 'Error ratio (status ≥ 500)'),
      cpu: chartBox('chart-cpu', 'CPU: ru_utime + ru_stime per second'),
    };
    const health = h('div', { id: 'health' });
    const root = h('div', {},
      h('h2', {}, 'Live window ', h('span', { class: 'muted', id: 'live-window' })),
      h('div', { class: 'cards' },
        card('requests / s, window average', 'live-rps'),
        card('requests / s, last tick', 'live-rps-tick'), card('p50', 'live-p50'), card('p95', 'live-p95'),
        card('p99', 'live-p99'), card('error ratio', 'live-errors'), card('CPU (cores)', 'live-cpu'),
        card('requests in window', 'live-count')),
      servers.box,
      h('h2', {}, 'Over time ', h('a', { class: 'muted', id: 'overview-changes', href: routeHash('changes', '', null),
        title: 'the rows that changed most against an hour ago, yesterday, last week or a moment' }, 'what changed?')),
      h('div', { class: 'charts' }, Object.values(boxes).map((b) => b.box)),
      h('h2', {}, 'pinbad health'), health);
    const poll = historyPoller();

    async function live() {
      const info = await api('/api/v1/info');
      const t = info.totals;
      setText('live-window', `(last ${fmtDuration(info.time_interval)})`);
      setText('live-rps', fmtNumber(t.req_per_sec));
      setText('live-rps-tick', fmtNumber(t.req_per_sec_last_tick));
      setText('live-p50', fmtSeconds(t.req_time_median));
      setText('live-p95', fmtSeconds(t.p95));
      setText('live-p99', fmtSeconds(t.p99));
      setText('live-cpu', fmtNumber((t.ru_utime_per_sec || 0) + (t.ru_stime_per_sec || 0)));
      setText('live-count', fmtNumber(t.req_count));
      try {
        const { bad, all } = await liveErrors();
        setText('live-errors', all ? pct(bad / all) : '–');
      } catch (e) {
        if (e.status !== 404) throw e;
        setText('live-errors', 'no report_by_status');
      }
    }
    let reports = null; // name → entry of GET /api/v1/reports, read once
    async function history(range) {
      if (!poll.due()) return;
      if (!reports) {
        reports = new Map((await api('/api/v1/reports')).reports.map((r) => [r.name, r]));
      }
      const base = { from: range.from, to: range.to };
      const info = await fetchHistory('info', q({ ...base, group: 'total',
        columns: 'req_per_sec,p50,p95,p99,ru_utime_per_sec,ru_stime_per_sec' }),
      [boxes.rate, boxes.latency, boxes.cpu], reports.get('info'));
      if (info) {
        // group=total: one series, or none while the range holds no step.
        const col = (c) => {
          const s = seriesColumn(info, c);
          return s.ys[0] || new Array(s.t.length).fill(null);
        };
        const t = steps(info);
        drawChart('overview-rate', boxes.rate, info, ['req/s'], [t, col('req_per_sec')], fmtNumber);
        drawChart('overview-latency', boxes.latency, info, ['p50', 'p95', 'p99'],
          [t, col('p50'), col('p95'), col('p99')], fmtSeconds);
        drawChart('overview-cpu', boxes.cpu, info, ['cores'],
          sumColumns(info, ['ru_utime_per_sec', 'ru_stime_per_sec']), fmtNumber);
      }
      const status = await fetchHistory('report_by_status',
        q({ ...base, group: 'rows', limit: await limitOf(100), columns: 'req_count' }), [boxes.errors],
        reports.get('report_by_status'));
      if (status) {
        drawChart('overview-errors', boxes.errors, status, ['errors'], errorRatio(status), pct, { ratio: true });
        // Statuses past the limit come as one "(other)" series, whose 5xx cannot be told apart
        // (a history answer pages no further): said, not passed off as exact.
        if (otherHolds(status)) {
          boxes.errors.note.hidden = false;
          boxes.errors.note.textContent = `Only the ${status.series.length - 1} busiest statuses `
            + 'are told apart (limits.max_query_limit): requests of the others count as successes here.';
        }
      }
      poll.done(info || status);
    }
    /** What the memory rows of the health table are, said under it: the budget is accounting,
     *  not usage (its reserved part is counted in full from the start). */
    const MEMORY_NOTE = 'Memory: "resident memory (RSS)" is what the process holds now. The budget rows are '
      + 'pinbad\'s accounting against limits.max_memory: its reserved part (raw pool, temp ring, buffers) is '
      + 'counted in full from the start, filled or not, so the budget\'s count is not usage. Only '
      + '"budget: counted" against "budget limit" turns the budget rows red: from 15/16 of the limit '
      + '(the budget is tight) new report rows, strings and reports are refused.';
    let figures = null; // GET /api/v1/status/figures, read once: the health table's rows
    async function self() {
      if (!figures) figures = (await api('/api/v1/status/figures')).figures;
      const s = await api('/api/v1/status');
      const rows = [];
      const row = (label, value, bad, title) =>
        rows.push(h('tr', {}, h('td', {}, label), h('td', { class: bad ? 'bad' : null, title }, value)));
      for (const f of figures) {
        // A figure with an alarm is marked by the flag it names (the budget's rows: what the
        // budget counts against its limit), said on hover, never by its own size.
        const alarmed = f.alarm && statusValues(s, f.alarm.flag)[0][1] > 0;
        for (const [name, v] of statusValues(s, f.path)) {
          // A labelled figure (per reason, report, sink) shows only where it counts something.
          if (name !== null && !(v > 0)) continue;
          const label = name === null ? f.label : `${f.label}: ${name}`;
          row(label, fmtFigure(v * f.scale, f.unit), (f.loss && v > 0) || alarmed,
            f.unit === 'timestamp' && v ? utcTime(v) : (f.alarm ? `${f.help} (${f.alarm.why})` : f.help));
        }
      }
      health.replaceChildren(h('table', { class: 'health' }, h('tbody', {}, rows)),
        h('p', { class: 'muted', id: 'health-memory-note' }, MEMORY_NOTE));
    }
    return {
      root, range: true,
      refresh: (r) => Promise.all([live(), servers.refresh(r), history(rangeOf(r.params)), self()]),
    };
  }

  // ---- Servers, their hosts and scripts ---------------------------------------------------------
  // The overview lists servers, a server's page its hosts and scripts, a script's page its
  // status mix, timers and slowest requests: the live window of the built-in reports (docs/reports.md,
  // "Built-in reports"), and their history for the sparklines and charts.

  /** The reports each level reads: its rows, and the same keys with the status (for the
   *  error ratio). */
  const LEVELS = {
    servers: { report: 'report_by_server_name', status: 'report_by_server_and_status', key: 'server_name' },
    hosts: { report: 'report_by_hostname_and_server', status: 'report_by_hostname_server_and_status', key: 'hostname' },
    scripts: { report: 'report_by_server_and_script', status: 'report_by_server_script_and_status', key: 'script_name' },
  };
  /** Rows a page of a level's table shows unless the URL says (`limit`). */
  const LEVEL_ROWS = 25;

  /** Requests answered with status ≥ 500 per value of `key` among `values`, from `report`
   *  (keyed on `key`, the status and the columns of `filters`): every page of its 5xx rows of
   *  those values. null when the report is not there (dropped, or builtin_reports = false). */
  async function errorsBy(report, key, values, filters) {
    const bad = new Map();
    if (!values.length) return bad;
    const limit = await limitOf(1000);
    try {
      for (let offset = 0; ;) {
        const ask = q({ limit, offset, sort: key });
        for (const [c, v] of filters) ask.append('filter', `${c}:${v}`);
        ask.append('match', ERROR_STATUS);
        ask.append('match', matchAny(key, values));
        const t = await api(`/api/v1/reports/${encodeURIComponent(report)}?${ask}`);
        for (const r of t.rows) bad.set(r[key], (bad.get(r[key]) || 0) + r.req_count);
        offset += t.rows.length;
        if (!t.rows.length || offset >= t.rows_total) return bad;
      }
    } catch (e) {
      if (e.status === 404) return null;
      throw e;
    }
  }
  /** CPU seconds (user + system) per second: the cores a row keeps busy. */
  const cpuOf = (r) => (r.ru_utime_per_sec || 0) + (r.ru_stime_per_sec || 0);
  /** The memory figure of a row: the mean memory peak of its requests where reports have
   *  `memory_peak_*` columns, else the mean memory footprint; what it is; the largest peak if
   *  the report has it. */
  function memoryOf(r) {
    const peak = 'memory_peak_total' in r;
    const total = peak ? r.memory_peak_total : r.memory_footprint_total;
    return {
      v: r.req_count && total != null ? total / r.req_count : null,
      what: peak ? 'memory peak' : 'memory footprint',
      max: r.memory_peak_max,
    };
  }
  /** The range parameters of the route, to carry into a link. */
  function rangeParams(params) {
    const p = new URLSearchParams();
    for (const k of ['range', 'from', 'to']) if (params.get(k)) p.set(k, params.get(k));
    return p;
  }
  function scriptHash(server, script, params) {
    const p = rangeParams(params);
    p.set('server', server);
    p.set('script', script);
    return routeHash('script', '', p);
  }
  /** The reports' list (GET /api/v1/reports), read once per view. */
  function reportList() {
    let list = null;
    return async () => {
      if (!list) list = new Map((await api('/api/v1/reports')).reports.map((r) => [r.name, r]));
      return list;
    };
  }

  /**
   * One level as a table: the rows of `level.report` that pass `filters` ([[column, value]]),
   * each with its live figures (req/s, p50/p95/p99, error ratio, CPU, memory) and a sparkline of
   * its requests per second over the range; sorted and paged by the URL's `<prefix>sort`,
   * `<prefix>page` and `<prefix>limit`, with the total shown. `link(row)`: where a name leads.
   */
  function levelTable(id, title, level, filters, prefix, link, reports) {
    const caption = h('span', { class: 'muted', id: id + '-caption' });
    const wrap = h('div', { class: 'table-wrap' });
    const pages = h('div');
    const box = h('section', { class: 'level', id }, h('h2', {}, title, ' ', caption), wrap, pages);
    const sparks = new Map(); // row name → history answer, or {note} when it has none
    const cells = new Map(); // row name → its sparkline's cell in the table shown
    let sparkSpan = '', sparkRun = null;
    const poll = historyPoller();
    const head = [
      [level.key, level.key === 'hostname' ? 'host' : level.key === 'script_name' ? 'script' : 'server'],
      ['req_per_sec', 'req/s (window avg)'], ['req_per_sec_last_tick', 'req/s (last tick)'],
      ['req_count', 'requests'], ['p50', 'p50'], ['p95', 'p95'],
      ['p99', 'p99'], ['errors', 'errors (≥ 500)'], ['cpu', 'CPU (cores)'], ['memory', 'memory'],
      ['spark', 'req/s over the range'],
    ];
    /** The report column each sortable column sorts by. */
    const SORTS = { req_per_sec: 'req_per_sec', req_count: 'req_count', p50: 'p50', p95: 'p95',
      p99: 'p99', cpu: 'ru_utime_total', [level.key]: level.key };

    function drawSpark(name) {
      const cell = cells.get(name), a = sparks.get(name);
      if (!cell || !a) return;
      if (a.note) { cell.replaceChildren(h('span', { class: 'muted', title: a.note }, '–')); return; }
      const s = a.series.find((x) => !x.other);
      const t = steps(a);
      const ys = s ? seriesColumn({ ...a, series: [s] }, 'req_per_sec').ys[0] : [];
      cell.replaceChildren(ys.some((v) => v != null)
        ? sparkline(t, ys, a.step, [a.from, a.to], fmtNumber)
        : h('span', { class: 'muted', title: `no step of ${level.report}'s history in this range holds this row yet` },
          'no points yet'));
    }

    /** Each shown row's history, one query at a time (they are heavy queries: the others of
     *  the page wait, never the daemon's query slots), at most once a step per row. */
    async function fetchSparks(route, names) {
      const range = rangeOf(route.params);
      const span = range.from + '/' + range.to;
      const due = poll.due() || span !== sparkSpan;
      if (span !== sparkSpan) { sparks.clear(); sparkSpan = span; }
      const entry = (await reports()).get(level.report);
      let step = 0;
      for (const name of names) {
        if (!box.isConnected || span !== sparkSpan) return;
        if (sparks.has(name) && !due) { drawSpark(name); continue; }
        if (keepsHistory(entry) === false) {
          sparks.set(name, { note: `${level.report} keeps no history` });
        } else {
          const ps = q({ from: range.from, to: range.to, group: 'rows', limit: 1, columns: 'req_per_sec' });
          for (const [c, v] of filters) ps.append('filter', `${c}:${v}`);
          ps.append('filter', `${level.key}:${name}`);
          try {
            const a = await api(`/api/v1/reports/${level.report}/history?${ps}`);
            step = a.step;
            sparks.set(name, a.series.some((x) => !x.other) ? a
              : { ...a, series: [] });
          } catch (e) {
            if (e.status !== 404 && e.status !== 400) throw e;
            sparks.set(name, { note: e.detail || String(e) });
          }
        }
        drawSpark(name);
      }
      if (due) poll.done({ step });
    }

    async function refresh(route) {
      const p = route.params;
      const get = (k) => p.get(prefix + k);
      const asked = Math.floor(Number(get('limit')));
      const size = await limitOf(asked >= 1 ? asked : LEVEL_ROWS);
      const page = pageOf(get('page'));
      const sort = get('sort') || '-req_per_sec';
      const ask = q({ percentiles: '50,95,99', sort, limit: size, offset: (page - 1) * size });
      for (const [c, v] of filters) ask.append('filter', `${c}:${v}`);
      const gen = generation;
      let t;
      try {
        t = await api(`/api/v1/reports/${level.report}?${ask}`);
      } catch (e) {
        if (e.status !== 404) throw e;
        wrap.replaceChildren(h('div', { class: 'empty' },
          `No ${level.report} report: it is a built-in (builtin_reports = true).`));
        return;
      }
      const names = t.rows.map((r) => r[level.key]);
      const bad = await errorsBy(level.status, level.key, names, filters);
      if (gen !== generation || !box.isConnected) return;
      const go = (edit) => {
        const np = new URLSearchParams(currentRoute.params);
        edit(np);
        location.hash = routeHash(currentRoute.view, currentRoute.name, np);
      };
      const sortCol = sort.replace(/^-/, '');
      const ths = head.map(([col, label]) => {
        const by = SORTS[col];
        if (!by) return h('th', { class: col === level.key ? 'key' : null, 'data-col': col }, label);
        const on = by === sortCol;
        const next = on ? (sort.startsWith('-') ? by : '-' + by) : (col === level.key ? by : '-' + by);
        return h('th', {
          class: [col === level.key ? 'key' : '', on ? 'sorted' : ''].join(' ').trim() || null,
          'data-col': col, title: `sort by ${label}`,
          onclick: () => go((np) => { np.set(prefix + 'sort', next); np.delete(prefix + 'page'); }),
        }, label + (on ? (sort.startsWith('-') ? ' ▼' : ' ▲') : ''));
      });
      cells.clear();
      const memWhat = t.rows.length ? memoryOf(t.rows[0]).what : 'memory';
      const body = t.rows.map((r) => {
        const name = r[level.key];
        const errs = bad == null ? null : (bad.get(name) || 0);
        const ratio = errs == null || !r.req_count ? null : Math.min(1, errs / r.req_count);
        const mem = memoryOf(r);
        const spark = h('td', { class: 'spark', 'data-col': 'spark' });
        cells.set(name, spark);
        return h('tr', { 'data-key': name },
          h('td', { class: 'key', 'data-col': level.key, title: name },
            h('a', { href: link(r, route.params) }, name === '' ? '(empty)' : name)),
          h('td', { 'data-col': 'req_per_sec' }, fmtNumber(r.req_per_sec)),
          h('td', { 'data-col': 'req_per_sec_last_tick' }, fmtNumber(r.req_per_sec_last_tick)),
          h('td', { 'data-col': 'req_count' }, fmtNumber(r.req_count)),
          ['p50', 'p95', 'p99'].map((c) => h('td', { 'data-col': c }, fmtSeconds(r[c]))),
          h('td', { 'data-col': 'errors', class: ratio > 0 ? 'bad' : null,
            title: errs == null ? `unknown: no ${level.status} report`
              : `${fmtNumber(errs)} of ${fmtNumber(r.req_count)} requests answered with status ≥ 500` },
          ratio == null ? '–' : pct(ratio)),
          h('td', { 'data-col': 'cpu', title: 'CPU seconds (user + system) per second' }, fmtNumber(cpuOf(r))),
          h('td', { 'data-col': 'memory', title: `mean ${mem.what} of a request`
            + (mem.max != null ? `; the largest ${fmtBytes(mem.max)}` : '') }, fmtBytes(mem.v)),
          spark);
      });
      ths[head.findIndex(([c]) => c === 'memory')].textContent = memWhat;
      wrap.replaceChildren(h('table', { id: id + '-table', class: 'level-table' },
        h('thead', {}, h('tr', {}, ths)),
        h('tbody', {}, body.length ? body
          : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'None in the live window.')))));
      caption.textContent = `${fmtNumber(t.rows_total)} in the last ${fmtDuration(t.time_interval)}`;
      pages.replaceChildren(t.rows_total > size || page > 1
        ? pager(id + '-pager', t.rows_total, page, size, (to) => go((np) => np.set(prefix + 'page', to)))
        : '');
      for (const name of names) drawSpark(name);
      // The sparklines come after the table, one query at a time; a refresh does not wait.
      if (!sparkRun) {
        sparkRun = fetchSparks(route, names)
          .catch((e) => { if (box.isConnected) showError(e); })
          .finally(() => { sparkRun = null; });
      }
    }
    return { box, refresh };
  }

  /** Cards with a row's live figures (`prefix-rps`, `-p50`, … `-count`). */
  function figureCards(prefix) {
    return h('div', { class: 'cards', id: prefix + '-cards' },
      card('requests / s, window average', prefix + '-rps'),
      card('requests / s, last tick', prefix + '-rps-tick'),
      card('p50', prefix + '-p50'), card('p95', prefix + '-p95'),
      card('p99', prefix + '-p99'), card('error ratio', prefix + '-errors'),
      card('CPU (cores)', prefix + '-cpu'), card('memory', prefix + '-memory'),
      card('requests in window', prefix + '-count'));
  }
  /** Fills `figureCards(prefix)` from the one row `filters` select in `level.report`. */
  async function fillCards(prefix, level, filters) {
    const ask = q({ percentiles: '50,95,99', limit: 1 });
    for (const [c, v] of filters) ask.append('filter', `${c}:${v}`);
    const t = await api(`/api/v1/reports/${level.report}?${ask}`);
    const r = t.rows[0];
    const key = filters[filters.length - 1];
    const bad = r ? await errorsBy(level.status, key[0], [key[1]], filters.slice(0, -1)) : null;
    const errs = bad == null ? null : (bad.get(key[1]) || 0);
    const mem = r ? memoryOf(r) : { v: null, what: 'memory' };
    setText(prefix + '-rps', r ? fmtNumber(r.req_per_sec) : '0');
    setText(prefix + '-rps-tick', r ? fmtNumber(r.req_per_sec_last_tick) : '0');
    for (const c of ['p50', 'p95', 'p99']) setText(`${prefix}-${c}`, r ? fmtSeconds(r[c]) : '–');
    setText(prefix + '-errors', errs == null || !r.req_count ? '–' : pct(errs / r.req_count));
    setText(prefix + '-cpu', r ? fmtNumber(cpuOf(r)) : '–');
    setText(prefix + '-memory', fmtBytes(mem.v));
    const label = $(prefix + '-memory') && $(prefix + '-memory').previousSibling;
    if (label) label.textContent = `${mem.what} (mean)`;
    setText(prefix + '-count', r ? fmtNumber(r.req_count) : '0');
    return t;
  }
  /** Charts of one row's history in `boxes`: requests per second (`rate`); p50, p95, p99
   *  (`lat`); and where given, CPU (`cpu`: user + system seconds a second) and memory (`mem`:
   *  the mean and the largest memory peak of a request), from the same query. */
  async function rowCharts(id, level, filters, range, boxes, reports) {
    const more = boxes.cpu && boxes.mem;
    const ps = q({ from: range.from, to: range.to, group: 'rows', limit: 1,
      columns: 'req_per_sec,p50,p95,p99' + (more
        ? ',req_count,ru_utime_per_sec,ru_stime_per_sec,memory_peak_total,memory_peak_max' : '') });
    for (const [c, v] of filters) ps.append('filter', `${c}:${v}`);
    const a = await fetchHistory(level.report, ps, Object.values(boxes), (await reports()).get(level.report));
    if (!a) return null;
    const one = { ...a, series: a.series.filter((s) => !s.other) };
    const t = steps(one);
    const col = (c) => seriesColumn(one, c).ys[0] || new Array(t.length).fill(null);
    drawChart(id + '-rate', boxes.rate, a, ['req/s'], [t, col('req_per_sec')], fmtNumber);
    drawChart(id + '-latency', boxes.lat, a, ['p50', 'p95', 'p99'], [t, col('p50'), col('p95'), col('p99')], fmtSeconds);
    if (more) {
      const [user, sys, n, peak] = ['ru_utime_per_sec', 'ru_stime_per_sec', 'req_count', 'memory_peak_total'].map(col);
      drawChart(id + '-cpu', boxes.cpu, a, ['cores'],
        [t, t.map((_, k) => (user[k] == null && sys[k] == null ? null : (user[k] || 0) + (sys[k] || 0)))], fmtNumber);
      drawChart(id + '-memory', boxes.mem, a, ['mean', 'largest'],
        [t, t.map((_, k) => (n[k] > 0 && peak[k] != null ? peak[k] / n[k] : null)), col('memory_peak_max')], fmtBytes);
    }
    return a;
  }
  /** The error ratio (status ≥ 500) of the rows `filters` select over the range, from the
   *  history of `level.status` (keyed as `level.report`, and on the status), in `box`. */
  async function errorChart(id, level, filters, range, box, reports) {
    const ps = q({ from: range.from, to: range.to, group: 'rows', limit: await limitOf(100), columns: 'req_count' });
    for (const [c, v] of filters) ps.append('filter', `${c}:${v}`);
    const a = await fetchHistory(level.status, ps, [box], (await reports()).get(level.status));
    if (!a) return null;
    drawChart(id, box, a, ['errors'], errorRatio(a), pct, { ratio: true });
    if (otherHolds(a)) {
      box.note.hidden = false;
      box.note.textContent = `Only the ${a.series.length - 1} busiest statuses are told apart `
        + '(limits.max_query_limit): requests of the others count as successes here.';
    }
    return a;
  }

  /** The head of a server's or a script's page: its figures (cards) and its charts over the
   *  range (the history fetched at most once a step); `more`: also its error ratio, CPU and
   *  memory over the range (a server's page). */
  function rowSummary(prefix, level, filters, reports, more) {
    const boxes = {
      rate: chartBox(`chart-${prefix}-rate`, 'Requests per second'),
      lat: chartBox(`chart-${prefix}-latency`, 'Request time: p50, p95, p99'),
    };
    const errors = more ? chartBox(`chart-${prefix}-errors`, 'Error ratio (status ≥ 500)') : null;
    if (more) {
      boxes.cpu = chartBox(`chart-${prefix}-cpu`, 'CPU: ru_utime + ru_stime per second');
      boxes.mem = chartBox(`chart-${prefix}-memory`, 'Memory peak of a request: mean and largest');
    }
    const poll = historyPoller();
    const shown = [boxes.rate, boxes.lat, errors, boxes.cpu, boxes.mem].filter(Boolean);
    return {
      nodes: [figureCards(prefix), h('div', { class: 'charts' }, shown.map((b) => b.box))],
      refresh: (r) => Promise.all([
        fillCards(prefix, level, filters),
        poll.due() ? Promise.all([
          rowCharts(prefix, level, filters, rangeOf(r.params), boxes, reports),
          errors ? errorChart(`${prefix}-errors`, level, filters, rangeOf(r.params), errors, reports) : null,
        ]).then(([a, e]) => poll.done(a || e)) : null]),
    };
  }

  /** A status mix in `box` (a table `#id`: status, requests, share, req/s, p50, p95) of the
   *  live window: the rows of `report`, keyed on the status and the columns of `filters`. */
  async function statusMix(box, id, report, filters) {
    const ask = q({ sort: 'status', percentiles: '50,95', limit: await limitOf(1000) });
    for (const [c, v] of filters) ask.append('filter', `${c}:${v}`);
    const t = await api(`/api/v1/reports/${report}?${ask}`);
    const all = t.rows.reduce((n, r) => n + r.req_count, 0);
    const head = ['status', 'requests', 'share', 'req/s (window avg)', 'req/s (last tick)', 'p50', 'p95'];
    box.replaceChildren(h('table', { id, class: 'status-table' },
      h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { class: i ? null : 'key' }, c)))),
      h('tbody', {}, t.rows.length ? t.rows.map((r) => h('tr', { 'data-status': r.status },
        h('td', { class: 'key' + (Number(r.status) >= 500 ? ' bad' : ''), 'data-col': 'status' }, r.status ?? '–'),
        h('td', { 'data-col': 'req_count' }, fmtNumber(r.req_count)),
        h('td', { 'data-col': 'share' }, all ? pct(r.req_count / all) : '–'),
        h('td', {}, fmtNumber(r.req_per_sec)),
        h('td', { 'data-col': 'req_per_sec_last_tick' }, fmtNumber(r.req_per_sec_last_tick)),
        h('td', {}, fmtSeconds(r.p50)), h('td', {}, fmtSeconds(r.p95))))
        : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No requests in the live window.')))));
  }

  /** The request logs (docs/history.md, "Request logs") a page links to: the kind, its label. */
  const LOG_KINDS = [['slow', 'slow'], ['memory', 'memory'], ['cpu', 'CPU'], ['errors', 'errors']];
  /** Links to the request logs of the rows `filters` select ([[column, value]], the logs'
   *  own filters) over the page's range, each with the number of its entries there (read at
   *  most every 30 s: a log's total counts a month at most, but needs no 5 s refresh). */
  function logLinks(id, filters, params) {
    const box = h('div', { class: 'log-links', id });
    let at = 0;
    async function refresh(r) {
      if (Date.now() - at < 30000) return;
      at = Date.now();
      const range = rangeOf(r.params);
      const links = [];
      for (const [kind, label] of LOG_KINDS) {
        const p = rangeParams(params);
        for (const [c, v] of filters) p.set(c, v);
        const ask = q({ from: range.from, to: range.to, limit: 1 });
        for (const [c, v] of filters) ask.set(c, v);
        let total, sampling;
        try {
          ({ total, sampling } = await api(`/api/v1/request_logs/${kind}?${ask}`));
        } catch (e) {
          if (e.status !== 503 && e.status !== 404) throw e;
          box.replaceChildren(h('span', { class: 'muted' }, `No request logs: ${e.detail || e.error}`));
          return;
        }
        // A log keeps a sample: its count says what was kept (of what was seen, where counted),
        // and the link's title the rule (`sampling` of the answer).
        const seen = sampling && sampling.seen;
        const count = seen != null ? `${fmtNumber(total)} kept of ${fmtNumber(seen)}` : fmtNumber(total);
        links.push(h('a', { href: '#/logs/' + kind + '?' + p, 'data-kind': kind, 'data-total': total,
          'data-seen': seen ?? '',
          title: `the ${label} log of the range, ${fmtNumber(total)} entries`
            + (sampling ? `: it keeps ${sampling.rule}` : '') }, `${label} (${count})`));
      }
      if (box.isConnected) box.replaceChildren(h('span', { class: 'muted' }, 'Request logs over the range: '), ...links);
    }
    return { box, refresh };
  }

  /** Scripts with the most errors a server's page lists. */
  const ERROR_SCRIPTS = 25;
  /**
   * A server's errors (status ≥ 500) in the live window grouped by script, most first: each
   * script's errors, their share of its requests, the count of each status, and links to its
   * page and its error log. From `report_by_server_script_and_status` (every page of the
   * server's 5xx rows) and `report_by_server_and_script` (the listed scripts' requests).
   */
  function errorScripts(server, params) {
    const caption = h('span', { class: 'muted', id: 'server-errors-caption' });
    const wrap = h('div', { class: 'table-wrap' });
    const box = h('section', { id: 'server-errors' },
      h('h2', {}, 'Errors by script ', h('span', { class: 'muted' }, 'status ≥ 500, live window: '), caption), wrap);
    async function refresh() {
      const by = new Map(); // script → {n, statuses: Map(status → count)}
      const limit = await limitOf(1000);
      try {
        for (let offset = 0; ;) {
          const ask = q({ limit, offset, sort: '-req_count' });
          ask.append('filter', `server_name:${server}`);
          ask.append('match', ERROR_STATUS);
          const t = await api(`/api/v1/reports/${LEVELS.scripts.status}?${ask}`);
          for (const r of t.rows) {
            const e = by.get(r.script_name) || { n: 0, statuses: new Map() };
            e.n += r.req_count;
            e.statuses.set(r.status, (e.statuses.get(r.status) || 0) + r.req_count);
            by.set(r.script_name, e);
          }
          offset += t.rows.length;
          if (!t.rows.length || offset >= t.rows_total) break;
        }
      } catch (e) {
        if (e.status !== 404) throw e;
        wrap.replaceChildren(h('div', { class: 'empty' },
          `No ${LEVELS.scripts.status} report: it is a built-in (builtin_reports = true).`));
        return;
      }
      const top = [...by].sort((x, y) => y[1].n - x[1].n || (x[0] < y[0] ? -1 : 1)).slice(0, ERROR_SCRIPTS);
      const all = new Map();
      if (top.length) {
        const ask = q({ limit: await limitOf(ERROR_SCRIPTS) });
        ask.append('filter', `server_name:${server}`);
        ask.append('match', matchAny('script_name', top.map(([s]) => s)));
        for (const r of (await api(`/api/v1/reports/${LEVELS.scripts.report}?${ask}`)).rows) {
          all.set(r.script_name, r.req_count);
        }
      }
      if (!box.isConnected) return;
      const errors = [...by.values()].reduce((n, e) => n + e.n, 0);
      caption.textContent = `${fmtNumber(errors)} in ${fmtNumber(by.size)} script${by.size === 1 ? '' : 's'}`
        + (by.size > top.length ? `, the ${top.length} with the most shown` : '');
      const head = ['script', 'errors', 'of its requests', 'statuses', ''];
      wrap.replaceChildren(h('table', { id: 'server-errors-table' },
        h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { class: i === 0 || i > 2 ? 'key' : null }, c)))),
        h('tbody', {}, top.length ? top.map(([script, e]) => {
          const logs = rangeParams(params);
          logs.set('server_name', server);
          logs.set('script_name', script);
          const n = all.get(script);
          return h('tr', { 'data-key': script },
            h('td', { class: 'key', 'data-col': 'script_name', title: script },
              h('a', { href: scriptHash(server, script, params) }, script === '' ? '(empty)' : script)),
            h('td', { 'data-col': 'errors', class: 'bad' }, fmtNumber(e.n)),
            h('td', { 'data-col': 'share', title: n ? `${fmtNumber(e.n)} of ${fmtNumber(n)} requests` : null },
              n ? pct(Math.min(1, e.n / n)) : '–'),
            h('td', { class: 'key', 'data-col': 'statuses' }, [...e.statuses]
              .sort((x, y) => y[1] - x[1] || Number(x[0]) - Number(y[0]))
              .map(([st, c]) => `${st} × ${fmtNumber(c)}`).join(', ')),
            h('td', { class: 'key link', 'data-col': 'log' },
              h('a', { href: '#/logs/errors?' + logs, title: 'its requests in the error log' }, 'error log')));
        }) : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No errors in the live window.')))));
    }
    return { box, refresh };
  }

  /** A server: its figures and charts (requests, times, error ratio, CPU, memory over the
   *  range), links to its request logs, its status mix and errors by script, its hosts and its
   *  scripts. */
  function serverView(route) {
    const server = route.name;
    const filters = [['server_name', server]];
    const reports = reportList();
    const summary = rowSummary('server', LEVELS.servers, filters, reports, true);
    const logs = logLinks('server-logs', filters, route.params);
    const mixBox = h('div', { class: 'table-wrap', id: 'server-status-mix' });
    const errors = errorScripts(server, route.params);
    const hosts = levelTable('hosts', 'Hosts', LEVELS.hosts, filters, 'h',
      (r, params) => {
        const p = new URLSearchParams({ server_name: server, hostname: r.hostname, min_time: '0' });
        return routeHash('slow', '', p);
      }, reports);
    const scripts = levelTable('scripts', 'Scripts', LEVELS.scripts, filters, 's',
      (r, params) => scriptHash(server, r.script_name, params), reports);
    const root = h('div', {},
      h('h2', {}, 'Server ', h('span', { id: 'server-name' }, server), ' ',
        h('a', { class: 'muted', href: routeHash('overview', '', rangeParams(route.params)) }, 'all servers')),
      logs.box, summary.nodes,
      h('div', { class: 'split' },
        h('section', {}, h('h2', {}, 'Status mix ', h('span', { class: 'muted' }, 'live window')), mixBox),
        errors.box),
      hosts.box, scripts.box);
    return {
      root, range: true,
      refresh: (r) => Promise.all([summary.refresh(r), logs.refresh(r),
        statusMix(mixBox, 'server-status-table', LEVELS.servers.status, filters), errors.refresh(),
        hosts.refresh(r), scripts.refresh(r)]),
    };
  }

  /** A server's name as a link to its page (`#/server/NAME`), where servers are listed. */
  function serverLink(name) {
    return name ? h('a', { href: routeHash('server', name, null), title: `${name}: its page` }, name) : '–';
  }

  /** The rows of a request list (the slow requests' table, a script's slowest): time, script,
   *  request time, status, host, server, CPU, memory peak, tags, and its timers unfolded on a
   *  click (`open`: the ids unfolded, kept across refreshes). */
  function requestRows(requests, open) {
    const tags = (o) => Object.entries(o || {}).map(([k, v]) => h('span', { class: 'tag' }, `${k}=${v}`));
    return requests.map((x) => {
      const timers = h('details', { 'data-id': x.id, open: open.has(x.id),
        ontoggle: (e) => (e.target.open ? open.add(x.id) : open.delete(x.id)) },
      h('summary', {}, `${x.timers.length} timers`),
      h('table', {}, h('tbody', {}, x.timers.map((t) => h('tr', {},
        h('td', {}, fmtSeconds(t.value)), h('td', {}, `×${t.hit_count}`),
        h('td', { class: 'key' }, tags(t.tags)))))));
      return h('tr', { class: 'slow-request' },
        h('td', { class: 'key', 'data-col': 'time' }, timeEl(x.timestamp)),
        h('td', { class: 'key', 'data-col': 'script_name' }, x.script_name),
        h('td', { 'data-col': 'request_time' }, fmtSeconds(x.request_time)),
        h('td', { 'data-col': 'status' }, x.status == null ? '–' : x.status),
        h('td', { class: 'key' }, x.hostname),
        h('td', { class: 'key', 'data-col': 'server_name' }, serverLink(x.server_name)),
        h('td', {}, fmtSeconds(x.ru_utime + x.ru_stime)), h('td', {}, fmtBytes(x.memory_peak)),
        h('td', { class: 'key' }, tags(x.tags)),
        h('td', { class: 'timers' }, x.timers.length ? timers : '–'));
    });
  }
  const REQUEST_HEAD = ['time', 'script', 'request time', 'status', 'host', 'server', 'CPU',
    'memory peak', 'tags', 'timers'];
  function requestTable(id, rows, empty) {
    return h('table', { id },
      h('thead', {}, h('tr', {}, REQUEST_HEAD.map((c, i) => h('th', { class: i < 2 || i > 7 ? 'key' : null }, c)))),
      h('tbody', {}, rows.length ? rows
        : h('tr', {}, h('td', { class: 'empty', colspan: REQUEST_HEAD.length }, empty))));
  }

  /** Timers by tag of the requests given (raw, with their timers): per tag set, the hits, the
   *  time and the requests that had it, most time first. Pure. */
  function timersByTag(requests) {
    const by = new Map();
    for (const x of requests) {
      const seen = new Set();
      for (const t of x.timers || []) {
        const key = Object.entries(t.tags || {}).sort().map(([k, v]) => `${k}=${v}`).join(', ');
        const e = by.get(key) || { tags: key, hits: 0, value: 0, requests: 0 };
        e.hits += t.hit_count;
        e.value += t.value;
        if (!seen.has(key)) { e.requests++; seen.add(key); }
        by.set(key, e);
      }
    }
    return [...by.values()].sort((a, b) => b.value - a.value || (a.tags < b.tags ? -1 : 1));
  }

  /** A script of a server: its figures and charts, its status mix, its timers by tag and its
   *  slowest requests in the raw pool. */
  function scriptView(route) {
    const server = route.params.get('server') || '';
    const script = route.params.get('script') || '';
    const filters = [['server_name', server], ['script_name', script]];
    const reports = reportList();
    const summary = rowSummary('script', LEVELS.scripts, filters, reports);
    const statusBox = h('div', { class: 'table-wrap', id: 'status-mix' });
    const timersBox = h('div', { id: 'script-timers' });
    const slowBox = h('div', { class: 'table-wrap' });
    const slowCaption = h('span', { class: 'muted', id: 'script-slow-caption' });
    const allRequests = new URLSearchParams({ server_name: server, script_name: script, min_time: '0' });
    const root = h('div', {},
      h('h2', {}, 'Script ', h('span', { id: 'script-name' }, script), ' on ',
        h('a', { href: routeHash('server', server, rangeParams(route.params)) }, server)),
      summary.nodes,
      h('h2', {}, 'Status mix ', h('span', { class: 'muted' }, 'live window')), statusBox,
      h('h2', {}, 'Timers by tag'), timersBox,
      h('h2', {}, 'Slowest requests ', slowCaption, ' ',
        h('a', { class: 'muted', href: routeHash('slow', '', allRequests) }, 'all of its requests')),
      slowBox);
    const open = new Set();

    /** From the timer reports keyed on script_name (the script's rows, of this server where
     *  the report keys on it too); without one, from the script's newest requests in the raw
     *  pool. */
    async function timers() {
      const timerReports = [...(await reports()).values()]
        .filter((r) => r.kind === 'timer' && r.keys.includes('script_name'));
      const parts = [];
      for (const rep of timerReports) {
        const ask = q({ limit: await limitOf(50), percentiles: '50,95' });
        ask.append('filter', `script_name:${script}`);
        if (rep.keys.includes('server_name')) ask.append('filter', `server_name:${server}`);
        const t = await api(`/api/v1/reports/${encodeURIComponent(rep.name)}?${ask}`);
        const tagCols = keyColumns(t).filter((c) => !['script_name', 'server_name', 'hostname'].includes(c));
        const head = [...tagCols, 'hits', 'time', 'time %', 'p50', 'p95'];
        // A tag's share of this script's timer time (the report's `timer_value_percent` is of
        // every script's); over the rows shown when the script has more than a page of them.
        const scriptTime = t.rows.reduce((acc, r) => acc + (r.timer_value || 0), 0);
        parts.push(h('div', { class: 'muted' }, `${rep.name} (${rep.keys.join(', ')})`
          + (rep.keys.includes('server_name') ? '' : ': this script on every server')),
        h('div', { class: 'table-wrap' }, h('table', { class: 'timer-table', 'data-report': rep.name },
          h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { class: i < tagCols.length ? 'key' : null }, c)))),
          h('tbody', {}, t.rows.length ? t.rows.map((r) => h('tr', {},
            tagCols.map((c) => h('td', { class: 'key', 'data-col': c }, r[c])),
            h('td', { 'data-col': 'hit_count' }, fmtNumber(r.hit_count)),
            h('td', { 'data-col': 'timer_value' }, fmtSeconds(r.timer_value)),
            h('td', { 'data-col': 'timer_share', title: "share of this script's timer time" },
              scriptTime > 0 ? pct((r.timer_value || 0) / scriptTime) : '–'),
            h('td', {}, fmtSeconds(r.p50)), h('td', {}, fmtSeconds(r.p95))))
            : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No timers in the live window.'))))));
      }
      if (!timerReports.length) {
        const ask = q({ server_name: server, script_name: script, timers: 'true', limit: await limitOf(200) });
        const { requests } = await api(`/api/v1/requests?${ask}`);
        const rows = timersByTag(requests);
        parts.push(h('div', { class: 'muted', id: 'timers-source' },
          `from its ${fmtNumber(requests.length)} newest requests in the raw pool (no timer report keys on `
          + 'script_name: one with keys = ["script_name", "timer_tag:group"] keeps the whole window)'),
        h('div', { class: 'table-wrap' }, h('table', { class: 'timer-table', 'data-report': '' },
          h('thead', {}, h('tr', {}, ['tags', 'hits', 'time', 'requests with it'].map((c, i) => h('th', { class: i ? null : 'key' }, c)))),
          h('tbody', {}, rows.length ? rows.map((e) => h('tr', {},
            h('td', { class: 'key', 'data-col': 'tags' }, e.tags || '(no tags)'),
            h('td', { 'data-col': 'hit_count' }, fmtNumber(e.hits)),
            h('td', { 'data-col': 'timer_value' }, fmtSeconds(e.value)),
            h('td', {}, fmtNumber(e.requests))))
            : h('tr', {}, h('td', { class: 'empty', colspan: 4 }, 'No timers.'))))));
      }
      timersBox.replaceChildren(...parts);
    }

    async function slowest() {
      const ask = q({ server_name: server, script_name: script, timers: 'true', sort: '-request_time',
        limit: await limitOf(10) });
      const { requests } = await api(`/api/v1/requests?${ask}`);
      slowCaption.textContent = `the ${requests.length} slowest in the raw pool`;
      slowBox.replaceChildren(requestTable('script-slow-table', requestRows(requests, open),
        'No request of this script in the raw pool.'));
    }

    return {
      root, range: true,
      refresh: (r) => Promise.all([summary.refresh(r), statusMix(statusBox, 'status-table', LEVELS.scripts.status, filters),
        timers(), slowest()]),
    };
  }

  /** The columns shown unless "all columns" is ticked. */
  const MAIN_COLUMNS = {
    request: ['req_count', 'req_per_sec', 'req_time_total', 'req_time_percent', 'ru_utime_total',
      'req_time_median'],
    timer: ['req_count', 'hit_count', 'hit_per_sec', 'timer_value', 'timer_value_percent',
      'ru_utime_value', 'timer_median'],
  };

  /** Rows a page of a report's table shows unless the URL says (`limit`). */
  const REPORT_ROWS = 50;
  /** The report picker's groups, in order. */
  const REPORT_GROUPS = ['Totals', 'By server, host and script', 'By status', 'By schema',
    'Your reports', 'Timer reports'];
  /** The picker's group of a report (an entry of GET /api/v1/reports). Pure. */
  function reportGroup(r) {
    if (r.kind === 'info' || !r.keys.length) return 'Totals';
    if (r.kind === 'timer') return 'Timer reports';
    if (!r.builtin) return 'Your reports';
    if (r.keys.includes('status')) return 'By status';
    if (r.keys.includes('schema')) return 'By schema';
    return 'By server, host and script';
  }

  /** A report as a table; `timers` limits the choice to timer reports (the Timers view). */
  function reportView(route, timers) {
    const viewName = timers ? 'timers' : 'report';
    const root = h('div');
    const search = h('input', { type: 'search', id: 'report-search', size: 28,
      placeholder: 'find a report: name or key', 'aria-label': 'find a report',
      value: route.params.get('find') || '' });
    const found = h('span', { class: 'muted', id: 'report-found' });
    const tabs = h('div', { class: 'picker', id: 'report-tabs' });
    const picker = h('div', { class: 'picker-box' }, h('div', { class: 'controls' }, search, found), tabs);
    const caption = h('div', { class: 'muted', id: 'report-caption' });
    const wrap = h('div', { class: 'table-wrap' });
    let list = [];
    let name = route.name;

    const params = () => currentRoute.params;
    const go = (p) => { location.hash = routeHash(viewName, name, p); };
    const with_ = (edit) => { const p = new URLSearchParams(params()); edit(p); return p; };

    const matchCol = h('select', { id: 'match-column', 'aria-label': 'match column' });
    const matchRe = h('input', { id: 'match-regex', placeholder: 'regex, e.g. ^/api/', size: 24 });
    const percentiles = h('input', { id: 'percentiles', placeholder: 'percentiles, e.g. 50,99.9', size: 18 });
    const allCols = h('input', { type: 'checkbox', id: 'all-columns' });
    const apply = () => go(with_((p) => {
      p.delete('page');
      const re = matchRe.value.trim();
      if (re) p.set('match', `${matchCol.value}:${re}`); else p.delete('match');
      const ps = percentiles.value.replace(/\s+/g, '');
      if (ps) p.set('percentiles', ps); else p.delete('percentiles');
      if (allCols.checked) p.set('cols', 'all'); else p.delete('cols');
    }));
    // The whole fleet over a range, from the report ticks a ClickHouse sink writes (its own
    // parameter, `fleet`: sort and match are this pinbad's).
    const fleet = h('select', { id: 'fleet', 'aria-label': 'fleet range',
      title: 'the whole fleet over a range, from the report ticks in ClickHouse' },
    ['', '1h', '24h', '7d', '30d'].map((v) => h('option', { value: v }, v ? `fleet, last ${v}` : 'this pinbad, live')));
    fleet.addEventListener('change', () => go(with_((p) => {
      if (fleet.value) p.set('fleet', fleet.value); else p.delete('fleet');
    })));
    const onEnter = (e) => { if (e.key === 'Enter') apply(); };
    matchRe.addEventListener('keydown', onEnter);
    percentiles.addEventListener('keydown', onEnter);
    allCols.addEventListener('change', apply);
    const controls = h('div', { class: 'controls' },
      h('label', {}, 'match'), matchCol, matchRe,
      h('label', {}, 'percentiles'), percentiles,
      h('button', { type: 'button', id: 'apply', onclick: apply }, 'Apply'),
      h('label', {}, allCols, ' all columns'), fleet);

    const admin = h('div', { class: 'controls', id: 'report-admin' });
    const pages = h('div');
    root.append(picker, controls, caption, wrap, pages, admin);

    function fillControls() {
      const p = params();
      const m = p.get('match') || '';
      const i = m.indexOf(':');
      if (document.activeElement !== matchRe) matchRe.value = i < 0 ? '' : m.slice(i + 1);
      if (document.activeElement !== percentiles) percentiles.value = p.get('percentiles') || '';
      allCols.checked = p.get('cols') === 'all';
      fleet.value = p.get('fleet') || '';
      return i < 0 ? null : m.slice(0, i);
    }

    async function loadList() {
      list = (await api('/api/v1/reports')).reports
        .filter((r) => (timers ? r.kind === 'timer' : true));
      if (!name || !list.some((r) => r.name === name)) {
        const pick = list.find((r) => r.name === 'report_by_script_name') || list[0];
        name = pick ? pick.name : '';
      }
      const p = new URLSearchParams(params());
      for (const k of ['sort', 'match', 'offset', 'page']) p.delete(k);
      const groups = new Map(REPORT_GROUPS.map((g) => [g, []]));
      for (const r of list) groups.get(reportGroup(r)).push(r);
      tabs.replaceChildren(...[...groups].filter(([, rs]) => rs.length).map(([g, rs]) =>
        h('div', { class: 'group', 'data-group': g }, h('span', { class: 'group-name' }, g),
          rs.map((r) => h('a', {
            href: routeHash(viewName, r.name, p), class: r.name === name ? 'active' : null,
            'data-report': r.name, 'data-keys': r.keys.join(' '), title: r.keys.join(', ') || 'totals',
          }, r.name)))));
      find();
      renderAdmin();
    }

    /** Shows the reports whose name or keys hold every word typed, the groups that keep one,
     *  and how many; the words go to the URL (`find`) without a reload. */
    function find() {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      let shown = 0;
      for (const g of tabs.querySelectorAll('.group')) {
        let any = false;
        for (const a of g.querySelectorAll('a')) {
          const text = (a.dataset.report + ' ' + a.dataset.keys).toLowerCase();
          const hit = words.every((w) => text.includes(w));
          a.hidden = !hit;
          any = any || hit;
          shown += hit;
        }
        g.hidden = !any;
      }
      found.textContent = `${shown} of ${list.length} reports`;
    }
    search.addEventListener('input', () => {
      find();
      const p = new URLSearchParams(params());
      if (search.value.trim()) p.set('find', search.value.trim()); else p.delete('find');
      for (const a of tabs.querySelectorAll('a')) {
        const ap = parseRoute(a.getAttribute('href')).params;
        if (search.value.trim()) ap.set('find', search.value.trim()); else ap.delete('find');
        a.setAttribute('href', routeHash(viewName, a.dataset.report, ap));
      }
      // The URL says what is typed, without a new view or a history entry per key.
      history.replaceState(null, '', routeHash(viewName, name, p));
      currentRoute = parseRoute(location.hash);
    });

    function renderAdmin() {
      const newName = h('input', { id: 'new-report-name', placeholder: 'name', size: 16 });
      const newKeys = h('input', { id: 'new-report-keys', size: 30,
        placeholder: timers ? 'script_name, timer_tag:group' : 'script_name, tag:country' });
      // How long the new report's history is kept (the server's default for a report made at
      // run time is a day; 0s: none), sent as `history_retention`.
      const newHistory = h('input', { id: 'new-report-history', size: 6, value: '1d',
        'aria-label': 'history kept for', title: 'history kept for (e.g. 1d, 7d; 0s: none): its rows can be charted' });
      if (timers && !list.length) { newName.value = 'timers_by_group'; newKeys.value = 'script_name, timer_tag:group'; }
      const create = async (e) => {
        e.preventDefault();
        const keys = newKeys.value.split(',').map((k) => k.trim()).filter(Boolean);
        const def = { name: newName.value.trim(), keys };
        if (newHistory.value.trim()) def.history_retention = newHistory.value.trim();
        const made = await act(() => api('/api/v1/reports', {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(def),
        }));
        if (made) { name = made.name; go(new URLSearchParams()); await loadList(); }
      };
      let armed = false;
      const drop = h('button', { type: 'button', id: 'drop-report', onclick: async () => {
        if (!armed) { armed = true; drop.textContent = `Really drop ${name}?`; return; }
        const gone = await act(() => api(`/api/v1/reports/${encodeURIComponent(name)}`, { method: 'DELETE' }));
        if (gone !== undefined) { name = ''; go(new URLSearchParams()); await loadList(); }
      } }, 'Drop this report');
      admin.replaceChildren(
        h('form', { class: 'inline', id: 'create-report', onsubmit: create },
          h('label', {}, 'new report'), newName, newKeys,
          h('label', { for: 'new-report-history' }, 'history'), newHistory, h('button', { type: 'submit' }, 'Create')),
        name ? drop : null);
    }

    async function table() {
      if (!name) {
        wrap.replaceChildren(h('div', { class: 'empty' }, timers
          ? 'No timer report yet: create one below (keys with timer_tag:NAME).'
          : 'No report.'));
        caption.textContent = '';
        return;
      }
      const p = params();
      const asked = Math.floor(Number(p.get('limit')));
      const size = await limitOf(asked >= 1 ? asked : REPORT_ROWS);
      const page = pageOf(p.get('page'));
      const ask = q({ limit: size, offset: (page - 1) * size, sort: p.get('sort'),
        match: p.get('match'), percentiles: p.get('percentiles') });
      const gen = generation;
      const t = await api(p.get('fleet')
        ? `/api/v1/fleet/reports/${encodeURIComponent(name)}?${q({ from: '-' + p.get('fleet'), limit: p.get('limit') })}`
        : `/api/v1/reports/${encodeURIComponent(name)}?${ask}`);
      if (gen !== generation) return; // the view's parameters changed meanwhile
      const keys = keyColumns(t);
      const matchOn = fillControls();
      const options = [...keys, ...Object.keys(t.totals)];
      if (matchCol.options.length !== options.length) {
        matchCol.replaceChildren(...options.map((c) => h('option', { value: c }, c)));
      }
      matchCol.value = matchOn && options.includes(matchOn) ? matchOn : keys[0] || options[0];

      const all = p.get('cols') === 'all';
      const main = MAIN_COLUMNS[t.kind === 'timer' ? 'timer' : 'request'];
      // A median column is p50 by another name: shown once, as p50, where the report has one.
      const twin = (c) => /_median$/.test(c) && 'p50' in t.totals;
      const metrics = Object.keys(t.totals)
        .filter((c) => all || (main.includes(c) && !twin(c)) || /^p\d/.test(c));
      // Without `sort`, the server's default order (shown as such).
      const sort = p.get('sort') || (t.kind === 'timer' ? '-timer_value' : '-req_time_total');
      const sortCol = sort.replace(/^-/, '');
      const head = [...keys, ...metrics].map((c) => {
        const mark = c === sortCol ? (sort.startsWith('-') ? ' ▼' : ' ▲') : '';
        // First click: descending for figures, ascending for names; the next click flips.
        const next = c === sortCol ? (sort.startsWith('-') ? c : '-' + c)
          : (keys.includes(c) ? c : '-' + c);
        return h('th', {
          class: [keys.includes(c) ? 'key' : '', c === sortCol ? 'sorted' : ''].join(' ').trim() || null,
          'data-col': c, title: `sort by ${c}`,
          onclick: () => go(with_((pp) => { pp.set('sort', next); pp.delete('page'); })),
        }, c + mark);
      });
      head.unshift(h('th', { class: 'key', title: "each row's history" }, ''));
      // A row's "chart" leads only where a chart can be drawn: not for a report that keeps no
      // history here. A fleet row's chart is the fleet's history (from the same ticks in
      // ClickHouse, `fleet=1` on the history view), over the fleet range shown.
      const keeps = keepsHistory(list.find((x) => x.name === name));
      const fleetRange = p.get('fleet');
      const noChart = !fleetRange && keeps === false
        ? `${name} keeps no history (history_retention not set): create it with a history to chart its rows` : null;
      const body = t.rows.map((r) => {
        const filter = new URLSearchParams();
        // An absent schema is null here and "" in the history store.
        for (const k of keys) filter.append('filter', `${k}:${r[k] ?? ''}`);
        const range = params().get('range');
        if (fleetRange) {
          filter.set('fleet', '1');
          const named = FLEET_RANGES[fleetRange];
          if (named) filter.set('range', named);
          else if (FLEET_SECONDS[fleetRange]) {
            const now = Math.ceil(Date.now() / 1000);
            filter.set('from', now - FLEET_SECONDS[fleetRange]);
            filter.set('to', now);
          }
        } else if (range) filter.set('range', range);
        return h('tr', {},
          h('td', { class: 'key link' }, noChart
            ? h('span', { class: 'muted no-history', title: noChart }, '–')
            : h('a', { class: 'history-link', href: routeHash('history', name, filter), title: 'history of this row' }, 'chart')),
          keys.map((k) => h('td', { class: 'key', 'data-col': k, title: r[k] }, r[k])),
          metrics.map((c) => h('td', { 'data-col': c }, fmtCell(c, r[c]))));
      });
      wrap.replaceChildren(h('table', { id: 'report-table' },
        h('thead', {}, h('tr', {}, head)),
        h('tbody', {}, body.length ? body
          : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No rows.')))));
      caption.textContent = `${t.report} · ${t.kind} · ${fmtNumber(t.rows_total)} rows · window ` +
        `${fmtDuration(t.time_interval)}`;
      pages.replaceChildren(pager('report-pager', t.rows_total, page, size,
        (to) => go(with_((pp) => pp.set('page', to)))));
    }

    let listed = false;
    return {
      root, range: false,
      async refresh() {
        if (!listed) { await loadList(); listed = true; }
        await table();
      },
    };
  }

  /** A row's (or a report's) history: rate and percentiles over the chosen range. */
  function historyView(route) {
    const name = route.name;
    const filters = route.params.getAll('filter');
    // The whole fleet's history (GET /api/v1/fleet/reports/{name}/history): a fleet row's chart.
    const fleet = route.params.get('fleet') === '1';
    const rateBox = chartBox('chart-history-rate', 'Per second');
    const pBox = chartBox('chart-history-latency', 'Percentiles');
    const back = new URLSearchParams();
    if (fleet) back.set('fleet', '1h');
    const root = h('div', {},
      h('h2', {}, fleet ? `Fleet history of ${name}` : `History of ${name}`, ' ',
        h('span', { class: 'muted', id: 'history-filter' }, filters.length ? filters.join(', ') : 'all rows'), ' ',
        h('a', { href: routeHash('report', name, back) }, 'table')),
      h('div', { class: 'charts' }, rateBox.box, pBox.box));
    const poll = historyPoller();
    let entry = null;
    // Range A of a comparison ("what changed"), drawn over the range shown.
    const vsRange = route.params.get('vs_from') && route.params.get('vs_to')
      ? { from: route.params.get('vs_from'), to: route.params.get('vs_to') } : null;
    /** Range A's query: the range shown's, over A, at the step B was answered at. */
    const beforeParams = (ps, hist) => {
      const p = new URLSearchParams(ps);
      p.set('from', vsRange.from);
      p.set('to', vsRange.to);
      p.set('step', hist.step + 's');
      return p;
    };
    if (vsRange) {
      root.firstChild.append(' ', h('span', { class: 'muted', id: 'history-vs' },
        `against ${utcTime(Number(vsRange.from))} – ${utcTime(Number(vsRange.to))} (before)`));
    }

    return {
      root, range: true,
      async refresh(r) {
        if (!poll.due()) return;
        if (!entry) {
          entry = (await api('/api/v1/reports')).reports.find((x) => x.name === name) || { kind: 'request' };
        }
        const timer = entry.kind === 'timer';
        const rateCols = timer ? ['hit_per_sec', 'timer_value_per_sec'] : ['req_per_sec'];
        const range = rangeOf(r.params);
        const ps = new URLSearchParams(q({ from: range.from, to: range.to, group: 'rows',
          columns: [...rateCols, 'p50', 'p95', 'p99'].join(',') }));
        if (route.params.get('step')) ps.set('step', route.params.get('step'));
        for (const f of filters) ps.append('filter', f);
        const hist = await fetchHistory(name, ps, [rateBox, pBox], entry, fleet);
        poll.done(hist);
        if (!hist) return;
        rateBox.box.querySelector('h3').textContent = timer
          ? 'Hits per second (and timer seconds per second)' : 'Requests per second';
        const rate = seriesColumn(hist, rateCols[0]);
        const rateSeries = [...rate.ys];
        const rateLabels = [...rate.labels];
        if (timer && hist.series.length === 1) {
          rateSeries.push(seriesColumn(hist, rateCols[1]).ys[0]);
          rateLabels.push('timer s/s');
        }
        const before = vsRange && await fetchHistory(name, beforeParams(ps, hist), [], entry, fleet);
        if (before) {
          // Range A drawn over range B: its steps moved by B's start minus A's.
          const shift = (Number(range.from) - Number(vsRange.from)) || 0;
          const r2 = overlay(hist, before, rateCols[0], shift);
          drawChart('history-rate', rateBox, hist, r2.labels, [r2.t, ...r2.ys], fmtNumber);
          const p2 = overlay(hist, before, 'p95', shift);
          pBox.box.querySelector('h3').textContent = 'p95: now and before';
          drawChart('history-latency', pBox, hist, p2.labels, [p2.t, ...p2.ys], fmtSeconds);
          return;
        }
        drawChart('history-rate', rateBox, hist, rateLabels, [rate.t, ...rateSeries], fmtNumber);
        if (hist.series.length === 1) {
          const ys = ['p50', 'p95', 'p99'].map((c) => seriesColumn(hist, c).ys[0]);
          pBox.box.querySelector('h3').textContent = 'Percentiles: p50, p95, p99';
          drawChart('history-latency', pBox, hist, ['p50', 'p95', 'p99'], [rate.t, ...ys], fmtSeconds);
        } else {
          const p95 = seriesColumn(hist, 'p95');
          pBox.box.querySelector('h3').textContent = 'p95 per row';
          drawChart('history-latency', pBox, hist, p95.labels, [p95.t, ...p95.ys], fmtSeconds);
        }
      },
    };
  }

  /** "What changed": the rows of a report ranked by how much they changed between two ranges
   *  (GET /api/v1/compare): presets "vs an hour ago / yesterday / last week", or before and after
   *  a moment; each row's figures on both sides, its significant changes marked (the test's
   *  p-value in the title), and a link to its chart with both ranges drawn. */
  function changesView(route) {
    const params = compareQuery(route.params);
    const go = (edit) => {
      const p = new URLSearchParams(params);
      edit(p);
      location.hash = routeHash('changes', '', p);
    };
    const setRanges = (k, v) => go((p) => { for (const r of RANGE_PARAMS) p.delete(r); p.set(k, v); });
    const reportSel = h('select', { id: 'changes-report', 'aria-label': 'report',
      onchange: () => go((p) => p.set('report', reportSel.value)) },
    h('option', { value: params.get('report') }, params.get('report')));
    const presets = CHANGE_PRESETS.map(([vs, label]) => h('button', { type: 'button', 'data-vs': vs,
      class: params.get('vs') === vs ? 'active' : null, onclick: () => setRanges('vs', vs) }, label));
    const spanSel = h('select', { id: 'changes-span', 'aria-label': 'each range',
      onchange: () => go((p) => p.set('span', spanSel.value)) },
    [...new Set([...CHANGE_SPANS, params.get('span') || '1h'])].map((s) =>
      h('option', { value: s, selected: (params.get('span') || '1h') === s }, `each ${s}`)));
    spanSel.disabled = !(params.get('vs') || params.get('at')) || !!params.get('b_from');
    const atInput = h('input', { type: 'datetime-local', id: 'changes-at', 'aria-label': 'moment' });
    const atButton = h('button', { type: 'button', id: 'changes-at-apply', class: params.get('at') ? 'active' : null,
      onclick: () => {
        const t = Math.floor(new Date(atInput.value).getTime() / 1000);
        if (!Number.isFinite(t)) { showError(new Error('before / after: pick a moment')); return; }
        setRanges('at', t);
      } }, 'before / after');
    // A mark (a deploy, a config change: GET /api/v1/marks) as the boundary: before and after it.
    const markSel = h('select', { id: 'changes-mark', 'aria-label': 'before / after a mark',
      title: 'compare before and after a mark (a deploy, a config change)',
      onchange: () => { if (markSel.value) setRanges('at', markSel.value); } },
    h('option', { value: '' }, 'before / after a mark…'));
    const summary = h('p', { class: 'muted', id: 'changes-summary' });
    const tbody = h('tbody');
    const heads = ['#', 'row', 'requests', 'rate /s', 'p50', 'p95', 'p99', 'error ratio', 'CPU / request',
      'memory / request', 'changed', ''];
    const table = h('table', { id: 'changes-table' }, h('thead', {}, h('tr', {}, heads.map((x) => h('th', {}, x)))), tbody);
    const root = h('div', {},
      h('h2', {}, 'What changed'),
      h('div', { class: 'controls' }, reportSel, ...presets, spanSel, atInput, atButton, markSel),
      summary, h('div', { class: 'table-wrap' }, table));
    const poll = historyPoller();
    let listed = false;

    /** A figure on both sides, marked when its change is significant. */
    function cell(row, metric, fmt) {
      const c = row.changes.find((x) => x.metric === metric);
      const [a, b] = [row.a[metric], row.b[metric]];
      const ratio = c && c.ratio != null ? ` (×${num.format(c.ratio)})` : '';
      const title = !c || c.p_value == null ? 'not tested' : `p = ${c.p_value.toPrecision(3)}`;
      return h('td', { class: c && c.significant ? 'changed' : null, title, 'data-metric': metric },
        `${fmt(a)} → ${fmt(b)}${ratio}`);
    }

    return {
      root, range: false,
      async refresh() {
        if (!listed) {
          const list = (await api('/api/v1/reports')).reports.filter((r) => keepsHistory(r) !== false);
          reportSel.replaceChildren(...list.map((r) => h('option',
            { value: r.name, selected: r.name === params.get('report') }, r.name)));
          // The last 30 days' marks, newest first (at most MARK_CHOICES), each `at=` its second.
          const marks = ((await api('/api/v1/marks?from=-30d')).marks || [])
            .sort((x, y) => y.time - x.time).slice(0, MARK_CHOICES);
          markSel.append(...marks.map((m) => {
            const at = String(Math.floor(m.time));
            const where = [m.server_name, m.script_name].filter(Boolean).join(' ');
            return h('option', { value: at, selected: params.get('at') === at },
              `${utcTime(m.time)} · ${m.text}${where ? ` (${where})` : ''}`);
          }));
          markSel.disabled = !marks.length;
          if (!marks.length) markSel.firstChild.textContent = 'no marks in 30 days';
          listed = true;
        }
        if (!poll.due()) return;
        const a = await api('/api/v1/compare?' + params);
        poll.done({ step: a.b.step });
        const range = (s) => `${utcTime(s.from)} – ${utcTime(s.to)}`;
        summary.textContent = `${a.significant_rows} of ${a.rows_compared} rows changed significantly `
          + `(p < ${a.alpha}) from ${range(a.a)} (steps of ${fmtDuration(a.a.step)}) `
          + `to ${range(a.b)} (steps of ${fmtDuration(a.b.step)})`
          + (a.errors_from ? '; error ratio: status ≥ 500' : '; no error ratio (the report has no status key)');
        tbody.replaceChildren(...a.rows.map((row, i) => h('tr', {
          'data-key': row.key.join(' · '), 'data-significant': String(row.significant),
          class: row.significant ? 'significant' : null },
        h('td', {}, i + 1),
        h('td', { class: 'key' }, row.other ? '(other)' : row.key.join(' · ')),
        h('td', {}, `${fmtNumber(row.a.requests)} → ${fmtNumber(row.b.requests)}`),
        cell(row, 'rate', fmtNumber), cell(row, 'p50', fmtSeconds), cell(row, 'p95', fmtSeconds),
        cell(row, 'p99', fmtSeconds), cell(row, 'error_ratio', fmtNumber),
        cell(row, 'cpu_per_request', fmtSeconds), cell(row, 'memory_per_request', fmtBytes),
        h('td', { class: 'which' }, row.changes.filter((c) => c.significant).map((c) => c.metric).join(', ') || '–'),
        h('td', {}, h('a', { class: 'history-link', href: changeChartHash(a, row),
          title: 'its chart, both ranges drawn' }, 'chart')))));
      },
    };
  }

  /** The slow requests' threshold where the URL gives none (and filters on no status), seconds:
   *  100 ms, which an app of 100-ms requests fills with its slow half (at 1 s, an app answering
   *  in under 300 ms had an empty page); shown in its field and the caption, changed there. */
  const SLOW_DEFAULT = '0.1';

  /** Raw requests (the raw pool, newest first) that pass the filters of the URL: slower than
   *  `min_time` (`SLOW_DEFAULT` unless the URL filters on `status`), `status` (500, 5xx, >=500),
   *  `server_name`, `hostname`, `script_name`; a page at a time (`cursor`: older than the page
   *  before). Each with its tags and, unfolded, its timers. */
  function slowView(route) {
    const FIELDS = [
      ['min_time', 'slower than', 'seconds, or 100ms', 8],
      ['status', 'status', '500, 5xx, >=400', 8],
      ['server_name', 'server', 'exact', 18],
      ['hostname', 'host', 'exact', 12],
      ['script_name', 'script', 'exact', 22],
    ];
    const minTimeOf = (p) => (p.has('min_time') ? p.get('min_time') : (p.get('status') ? '' : SLOW_DEFAULT));
    const inputs = Object.fromEntries(FIELDS.map(([k, , hint, size]) =>
      [k, h('input', { id: 'slow-' + k.replace('_name', '').replace('_', '-'), placeholder: hint, size })]));
    const fill = (p) => {
      for (const [k] of FIELDS) {
        if (document.activeElement !== inputs[k]) inputs[k].value = k === 'min_time' ? minTimeOf(p) : p.get(k) || '';
      }
    };
    fill(route.params);
    const apply = () => {
      const p = new URLSearchParams();
      for (const [k] of FIELDS) p.set(k, inputs[k].value.trim());
      // An empty threshold is none, said in the URL (else it would read as the default).
      if (!p.get('min_time') && !p.get('status')) p.set('min_time', '0');
      for (const [k] of FIELDS) if (p.get(k) === '' ) p.delete(k);
      const limit = currentRoute.params.get('limit');
      if (limit) p.set('limit', limit);
      location.hash = routeHash('slow', '', p);
    };
    for (const el of Object.values(inputs)) el.addEventListener('keydown', (e) => { if (e.key === 'Enter') apply(); });
    const wrap = h('div', { class: 'table-wrap' });
    const caption = h('div', { class: 'muted', id: 'slow-caption' });
    const threshold = h('div', { class: 'muted', id: 'slow-threshold' });
    const pages = h('div', { class: 'pager', id: 'slow-pager' });
    const root = h('div', {},
      h('div', { class: 'controls' },
        FIELDS.flatMap(([k, label]) => [h('label', { for: inputs[k].id }, label), inputs[k]]),
        h('button', { type: 'button', id: 'slow-apply', onclick: apply }, 'Apply')),
      threshold, caption, wrap, pages);
    const open = new Set(); // the requests whose timers are unfolded, kept across refreshes

    return {
      root, range: false,
      async refresh(r) {
        const p = r.params;
        fill(p);
        const min = minTimeOf(p);
        const ask = q({ min_time: min, timers: 'true', limit: p.get('limit'), cursor: p.get('cursor'),
          status: p.get('status'), server_name: p.get('server_name'), hostname: p.get('hostname'),
          script_name: p.get('script_name') });
        const gen = generation;
        const answer = await api(`/api/v1/requests?${ask}`);
        if (gen !== generation) return; // the filters changed meanwhile
        const { requests } = answer;
        const shownMin = /^[\d.]+$/.test(min) ? fmtSeconds(Number(min)) : min;
        threshold.textContent = min && Number(min) !== 0
          ? `Threshold: slower than ${shownMin}${!p.has('min_time') ? ', the default' : ''}; `
            + 'change "slower than" above (0: every request).'
          : 'No threshold: every request that passes the other filters.';
        threshold.dataset.minTime = min || '0';
        const said = [min && Number(min) !== 0 ? `slower than ${shownMin}` : null,
          p.get('status') ? `status ${p.get('status')}` : null,
          ...['server_name', 'hostname', 'script_name'].map((k) => (p.get(k) ? `${k} ${p.get(k)}` : null))]
          .filter(Boolean);
        caption.textContent = `${requests.length} request${requests.length === 1 ? '' : 's'}`
          + (said.length ? ` (${said.join(', ')})` : '')
          + ` in the raw pool, newest first${p.get('cursor') ? ', older than the page before' : ''}`
          + (answer.next_cursor != null ? '; more on the next page' : '');
        wrap.replaceChildren(requestTable('slow-table', requestRows(requests, open),
          'No request passes these filters.'));
        const to = (cursor) => {
          const np = new URLSearchParams(p);
          if (cursor == null) np.delete('cursor'); else np.set('cursor', cursor);
          location.hash = routeHash('slow', '', np);
        };
        pages.replaceChildren(
          h('button', { type: 'button', rel: 'first', disabled: !p.get('cursor'), onclick: () => to(null) }, '« newest'),
          h('button', { type: 'button', rel: 'next', disabled: answer.next_cursor == null,
            onclick: () => to(answer.next_cursor) }, 'older ›'));
      },
    };
  }

  // ---- Router and polling ---------------------------------------------------------------------

  let currentRoute = parseRoute(location.hash);
  let view = null, viewKey = '', timer = null, generation = 0;

  function showError(e) {
    const el = $('error');
    el.hidden = !e;
    el.textContent = e ? (e.detail ? `${e.status} ${e.error}: ${e.detail}` : String(e.message || e)) : '';
  }
  /** Runs an action (create, drop): its error goes to the banner; undefined on failure. */
  async function act(f) {
    try { const out = await f(); showError(null); return out === undefined ? null : out; }
    catch (e) { showError(e); return undefined; }
  }

  /** Whether a refresh is scheduled (never while the tab is hidden). */
  P.polling = () => timer !== null;

  function schedule() {
    clearTimeout(timer);
    timer = document.hidden ? null : setTimeout(refresh, POLL_MS);
  }
  async function refresh() {
    clearTimeout(timer);
    timer = null;
    const mine = generation;
    try {
      await loadMarks();
      await view.refresh(currentRoute);
      if (mine === generation) {
        showError(null);
        setText('updated', 'updated ' + new Date().toLocaleTimeString());
        $('updated').title = 'updated ' + utcTime(Date.now() / 1000);
      }
    } catch (e) {
      if (mine === generation) showError(e);
    }
    P.refreshes++;
    if (mine === generation) schedule();
  }

  function route() {
    currentRoute = parseRoute(location.hash);
    const r = currentRoute;
    // The same view stays (its controls and charts) while only its paging, sorting or filters
    // change; another range, report, server or script makes a new one.
    const span = rangeParams(r.params).toString();
    const key = r.view + '/' + r.name + (r.view === 'history' || r.view === 'changes' ? '?' + r.params.toString()
      : r.view === 'script' ? '?' + span + '&' + r.params.get('server') + '&' + r.params.get('script')
        : r.view === 'overview' || r.view === 'server' ? '?' + span : '');
    const tab = { history: 'report', server: 'overview', script: 'overview' }[r.view] || r.view;
    for (const a of document.querySelectorAll('#nav a')) {
      a.classList.toggle('active', a.dataset.view === tab);
    }
    generation++;
    if (!view || key !== viewKey) {
      dropCharts();
      const logViews = window.__pinbadViews || {};
      const extra = Object.hasOwn(P.views, r.view) ? P.views[r.view]
        : Object.hasOwn(logViews, r.view) ? logViews[r.view] : null;
      view = extra ? extra(r)
        : r.view === 'report' ? reportView(r, false)
          : r.view === 'timers' ? reportView(r, true)
            : r.view === 'history' ? historyView(r)
              : r.view === 'slow' ? slowView(r)
              : r.view === 'changes' ? changesView(r)
                : r.view === 'server' ? serverView(r)
                  : r.view === 'script' ? scriptView(r)
                    : overviewView(r);
      viewKey = key;
      $('view').replaceChildren(view.root);
    }
    const range = rangeOf(r.params);
    $('range').hidden = !view.range;
    for (const b of document.querySelectorAll('#range [data-range]')) {
      b.classList.toggle('active', b.dataset.range === range.key);
    }
    $('range-apply').classList.toggle('active', range.key === 'custom');
    if (range.key === 'custom' && /^\d+$/.test(range.from) && /^\d+$/.test(range.to)) {
      // The inputs show the custom span (local time, as the browser's picker does).
      const local = (unix) => {
        const d = new Date(Number(unix) * 1000);
        return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
      };
      $('range-from').value = local(range.from);
      $('range-to').value = local(range.to);
    } else {
      $('range-from').value = '';
      $('range-to').value = '';
    }
    P.view = r.view;
    refresh();
  }

  function setRange(edit) {
    const p = new URLSearchParams(currentRoute.params);
    p.delete('range'); p.delete('from'); p.delete('to');
    edit(p);
    location.hash = routeHash(currentRoute.view, currentRoute.name, p);
  }
  for (const b of document.querySelectorAll('#range [data-range]')) {
    b.addEventListener('click', () => setRange((p) => p.set('range', b.dataset.range)));
  }
  $('range-apply').addEventListener('click', () => {
    const secs = (id) => Math.floor(new Date($(id).value).getTime() / 1000);
    const from = secs('range-from'), to = secs('range-to');
    if (!(from < to)) { showError(new Error('custom range: pick a start before the end')); return; }
    setRange((p) => { p.set('from', from); p.set('to', to); });
  });
  $('token-dialog').querySelector('button[value=cancel]').addEventListener('click', (e) => {
    e.preventDefault();
    $('token-dialog').close('cancel');
  });

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) { clearTimeout(timer); timer = null; } else refresh();
  });
  window.addEventListener('hashchange', route);
  // Views another script adds (`window.__pinbad.views[NAME] = (route) => view`, a view as
  // above), registered before the first route; `#/NAME` opens one.
  Object.assign(P.ui, { h, api, q, limitOf, routeHash, parseRoute, pager, pageOf, timeEl, requestRows,
    requestTable, serverLink, fmtNumber, fmtSeconds, fmtBytes, showError, generation: () => generation,
    current: () => currentRoute });
  route();
})();
