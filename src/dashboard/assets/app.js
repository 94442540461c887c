// pinbad's dashboard: plain JavaScript over the public API, no framework, no build step.
//
// The view lives in the URL hash (`#/report/NAME?sort=-req_count&match=script_name:^/api`), so a
// link reloads into the same view. The open view refreshes every 5 s and nothing runs while the
// tab is hidden. A read or change the server refuses with 401 (with a token set, reads need it
// unless http.token_reads = false) asks for the token, kept in sessionStorage (this tab only). Charts are uPlot; `window.__pinbad` exposes them, the
// errors seen and the pure functions, for the browser tests.
'use strict';

(function () {
  const P = (window.__pinbad = { charts: {}, errors: [], refreshes: 0, lib: {} });
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
  function fmtBytes(v) {
    if (v == null) return '–';
    const units = ['B', 'KB', 'MB', 'GB', 'TB'];
    let i = 0;
    while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return (i ? num.format(v) : int.format(v)) + ' ' + units[i];
  }
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
    if (unit === 'timestamp') return v ? new Date(v * 1000).toISOString() : '–';
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
    if (/^(traffic|memory_footprint)_(total|per_sec)$/.test(col)) return 'bytes';
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

  /** The union of the steps of every series of a history answer, sorted, each at its end: the
   *  API's `t` is a step's start, a chart draws a step where it is complete. */
  function steps(history) {
    const ts = new Set();
    for (const s of history.series) for (const p of s.points) ts.add(p[0]);
    return [...ts].sort((a, b) => a - b).map((x) => x + (history.step || 0));
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
  Object.assign(P.lib, { parseRoute, routeHash, rangeOf, seriesColumn, errorRatio, otherHolds, sumColumns,
    keyColumns, keepsHistory, columnKind, fmtCell });

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

  /** JSON from the API, with the token when one was given; a 401 asks for it and retries. */
  async function api(path, init = {}) {
    for (let attempt = 0; ; attempt++) {
      const headers = { Accept: 'application/json', ...(init.headers || {}) };
      const token = sessionStorage.getItem(TOKEN_KEY);
      if (token) headers.Authorization = 'Bearer ' + token;
      const resp = await fetch(path, { ...init, headers });
      if (resp.status === 401 && attempt < 3) {
        const given = await askToken();
        if (!given) throw new ApiError(401, 'unauthorized', 'this needs the API token');
        sessionStorage.setItem(TOKEN_KEY, given);
        continue;
      }
      const text = await resp.text();
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
    const box = h('div', { class: 'chart', id }, h('h3', {}, title), note, plot);
    return { box, plot, note };
  }
  /** Draws (or updates in place) the uPlot chart `id` in `box`: data = [t, ...ys], over the
   *  time span the history answered for (`from`, `to`), however few its points. */
  function drawChart(id, box, span, labels, data, fmt) {
    if (!box.box.isConnected) return null; // a late answer for a view already left
    const empty = data[0].length === 0;
    box.note.hidden = !empty;
    box.note.textContent = empty ? 'No points in this range yet.' : '';
    box.plot.hidden = empty;
    let u = P.charts[id];
    const shape = labels.join('\u0001');
    if (u && u.pinbadShape === shape && u.root.isConnected) {
      u.pinbadSpan.at = [span.from, span.to];
      u.setData(data);
      return u;
    }
    if (u) u.destroy();
    const value = (_, v) => (v == null ? '–' : fmt(v));
    const spanRef = { at: [span.from, span.to] };
    u = new uPlot({
      width: Math.max(300, box.box.clientWidth - 16),
      height: 200,
      series: [{}, ...labels.map((label, i) => ({
        label, value, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: false,
      }))],
      axes: [{}, { size: 70, values: (_, vals) => vals.map((v) => fmt(v)) }],
      scales: { x: { time: true, range: () => spanRef.at } },
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
  async function fetchHistory(name, params, boxes, entry) {
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

  function overviewView() {
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
        card('requests / s', 'live-rps'), card('p50', 'live-p50'), card('p95', 'live-p95'),
        card('p99', 'live-p99'), card('error ratio', 'live-errors'), card('CPU (cores)', 'live-cpu'),
        card('requests in window', 'live-count')),
      h('h2', {}, 'Over time'),
      h('div', { class: 'charts' }, Object.values(boxes).map((b) => b.box)),
      h('h2', {}, 'pinbad health'), health);
    const poll = historyPoller();

    async function live() {
      const info = await api('/api/v1/info');
      const t = info.totals;
      setText('live-window', `(last ${fmtDuration(info.time_interval)})`);
      setText('live-rps', fmtNumber(t.req_per_sec));
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
        drawChart('overview-errors', boxes.errors, status, ['errors'], errorRatio(status), pct);
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
    let figures = null; // GET /api/v1/status/figures, read once: the health table's rows
    async function self() {
      if (!figures) figures = (await api('/api/v1/status/figures')).figures;
      const s = await api('/api/v1/status');
      const rows = [];
      const row = (label, value, bad) =>
        rows.push(h('tr', {}, h('td', {}, label), h('td', { class: bad ? 'bad' : null }, value)));
      for (const f of figures) {
        for (const [name, v] of statusValues(s, f.path)) {
          // A labelled figure (per reason, report, sink) shows only where it counts something.
          if (name !== null && !(v > 0)) continue;
          const label = name === null ? f.label : `${f.label}: ${name}`;
          row(label, fmtFigure(v * f.scale, f.unit), f.loss && v > 0);
        }
      }
      health.replaceChildren(h('table', { class: 'health' }, h('tbody', {}, rows)));
    }
    return {
      root, range: true,
      refresh: (route) => Promise.all([live(), history(rangeOf(route.params)), self()]),
    };
  }

  /** The columns shown unless "all columns" is ticked. */
  const MAIN_COLUMNS = {
    request: ['req_count', 'req_per_sec', 'req_time_total', 'req_time_percent', 'ru_utime_total',
      'req_time_median'],
    timer: ['req_count', 'hit_count', 'hit_per_sec', 'timer_value', 'timer_value_percent',
      'ru_utime_value', 'timer_median'],
  };

  /** A report as a table; `timers` limits the choice to timer reports (the Timers view). */
  function reportView(route, timers) {
    const viewName = timers ? 'timers' : 'report';
    const root = h('div');
    const tabs = h('div', { class: 'tabs', id: 'report-tabs' });
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
    root.append(tabs, controls, caption, wrap, admin);

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
      for (const k of ['sort', 'match', 'offset']) p.delete(k);
      tabs.replaceChildren(...list.map((r) => h('a', {
        href: routeHash(viewName, r.name, p), class: r.name === name ? 'active' : null,
        'data-report': r.name,
      }, r.name)));
      renderAdmin();
    }

    function renderAdmin() {
      const newName = h('input', { id: 'new-report-name', placeholder: 'name', size: 16 });
      const newKeys = h('input', { id: 'new-report-keys', size: 30,
        placeholder: timers ? 'script_name, timer_tag:group' : 'script_name, tag:country' });
      if (timers && !list.length) { newName.value = 'timers_by_group'; newKeys.value = 'script_name, timer_tag:group'; }
      const create = async (e) => {
        e.preventDefault();
        const keys = newKeys.value.split(',').map((k) => k.trim()).filter(Boolean);
        const made = await act(() => api('/api/v1/reports', {
          method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: newName.value.trim(), keys }),
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
          h('label', {}, 'new report'), newName, newKeys, h('button', { type: 'submit' }, 'Create')),
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
      const ask = q({ limit: p.get('limit'), sort: p.get('sort'), match: p.get('match'),
        percentiles: p.get('percentiles') });
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
      const metrics = Object.keys(t.totals)
        .filter((c) => all || main.includes(c) || /^p\d/.test(c));
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
          onclick: () => go(with_((pp) => pp.set('sort', next))),
        }, c + mark);
      });
      head.unshift(h('th', { class: 'key', title: "each row's history" }, ''));
      const body = t.rows.map((r) => {
        const filter = new URLSearchParams();
        // An absent schema is null here and "" in the history store.
        for (const k of keys) filter.append('filter', `${k}:${r[k] ?? ''}`);
        const range = params().get('range');
        if (range) filter.set('range', range);
        return h('tr', {},
          h('td', { class: 'key link' },
            h('a', { class: 'history-link', href: routeHash('history', name, filter), title: 'history of this row' }, 'chart')),
          keys.map((k) => h('td', { class: 'key', 'data-col': k, title: r[k] }, r[k])),
          metrics.map((c) => h('td', { 'data-col': c }, fmtCell(c, r[c]))));
      });
      wrap.replaceChildren(h('table', { id: 'report-table' },
        h('thead', {}, h('tr', {}, head)),
        h('tbody', {}, body.length ? body
          : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No rows.')))));
      caption.textContent = `${t.report} · ${t.kind} · ${fmtNumber(t.rows_total)} rows` +
        `${t.rows.length < t.rows_total ? ` (first ${t.rows.length})` : ''} · window ` +
        `${fmtDuration(t.time_interval)}`;
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
    const rateBox = chartBox('chart-history-rate', 'Per second');
    const pBox = chartBox('chart-history-latency', 'Percentiles');
    const back = new URLSearchParams();
    const root = h('div', {},
      h('h2', {}, `History of ${name}`, ' ',
        h('span', { class: 'muted', id: 'history-filter' }, filters.length ? filters.join(', ') : 'all rows'), ' ',
        h('a', { href: routeHash('report', name, back) }, 'table')),
      h('div', { class: 'charts' }, rateBox.box, pBox.box));
    const poll = historyPoller();
    let entry = null;

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
        for (const f of filters) ps.append('filter', f);
        const hist = await fetchHistory(name, ps, [rateBox, pBox], entry);
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

  /** Raw requests above a threshold, newest first, with their tags and timers. */
  function slowView(route) {
    const p = route.params;
    const minTime = h('input', { id: 'min-time', type: 'number', step: 'any', min: 0, size: 6,
      value: p.get('min_time') || '1' });
    const script = h('input', { id: 'slow-script', placeholder: 'script_name (exact)', size: 24,
      value: p.get('script_name') || '' });
    const apply = () => {
      location.hash = routeHash('slow', '', q({ min_time: minTime.value, script_name: script.value.trim() }));
    };
    for (const el of [minTime, script]) el.addEventListener('keydown', (e) => { if (e.key === 'Enter') apply(); });
    const wrap = h('div', { class: 'table-wrap' });
    const caption = h('div', { class: 'muted', id: 'slow-caption' });
    const root = h('div', {},
      h('div', { class: 'controls' }, h('label', {}, 'slower than (s)'), minTime,
        h('label', {}, 'script'), script, h('button', { type: 'button', id: 'slow-apply', onclick: apply }, 'Apply')),
      caption, wrap);
    const tags = (o) => Object.entries(o || {}).map(([k, v]) => h('span', { class: 'tag' }, `${k}=${v}`));
    const open = new Set(); // the requests whose timers are unfolded, kept across refreshes

    return {
      root, range: false,
      async refresh(r) {
        const min = Number(r.params.get('min_time') || '1');
        const ask = q({ min_time: min, timers: 'true', limit: r.params.get('limit'),
          script_name: r.params.get('script_name') });
        const gen = generation;
        const { requests } = await api(`/api/v1/requests?${ask}`);
        if (gen !== generation) return; // the threshold changed meanwhile
        caption.textContent = `${requests.length} request${requests.length === 1 ? '' : 's'} slower than ${fmtSeconds(min)} in the raw pool, newest first`;
        const rows = requests.map((x) => {
          const timers = h('details', { 'data-id': x.id, open: open.has(x.id),
            ontoggle: (e) => (e.target.open ? open.add(x.id) : open.delete(x.id)) },
          h('summary', {}, `${x.timers.length} timers`),
          h('table', {}, h('tbody', {}, x.timers.map((t) => h('tr', {},
            h('td', {}, fmtSeconds(t.value)), h('td', {}, `×${t.hit_count}`),
            h('td', { class: 'key' }, tags(t.tags)))))));
          return h('tr', { class: 'slow-request' },
            h('td', { class: 'key' }, new Date(x.timestamp * 1000).toLocaleTimeString()),
            h('td', { class: 'key', 'data-col': 'script_name' }, x.script_name),
            h('td', { 'data-col': 'request_time' }, fmtSeconds(x.request_time)),
            h('td', {}, x.status == null ? '–' : x.status),
            h('td', { class: 'key' }, x.hostname), h('td', { class: 'key' }, x.server_name),
            h('td', {}, fmtSeconds(x.ru_utime + x.ru_stime)), h('td', {}, fmtBytes(x.memory_peak)),
            h('td', { class: 'key' }, tags(x.tags)),
            h('td', { class: 'timers' }, x.timers.length ? timers : '–'));
        });
        const head = ['time', 'script', 'request time', 'status', 'host', 'server', 'CPU', 'memory peak', 'tags', 'timers'];
        wrap.replaceChildren(h('table', { id: 'slow-table' },
          h('thead', {}, h('tr', {}, head.map((c, i) => h('th', { class: i < 2 || i > 7 ? 'key' : null }, c)))),
          h('tbody', {}, rows.length ? rows
            : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No request above the threshold.')))));
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
      await view.refresh(currentRoute);
      if (mine === generation) {
        showError(null);
        setText('updated', 'updated ' + new Date().toLocaleTimeString());
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
    const key = r.view + '/' + r.name + (r.view === 'history' || r.view === 'overview'
      ? '?' + r.params.toString() : '');
    for (const a of document.querySelectorAll('#nav a')) {
      a.classList.toggle('active', a.dataset.view === (r.view === 'history' ? 'report' : r.view));
    }
    generation++;
    if (!view || key !== viewKey) {
      dropCharts();
      view = r.view === 'report' ? reportView(r, false)
        : r.view === 'timers' ? reportView(r, true)
          : r.view === 'history' ? historyView(r)
            : r.view === 'slow' ? slowView(r)
              : (window.__pinbadViews || {})[r.view] ? window.__pinbadViews[r.view](r)
              : overviewView();
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
  route();
})();
