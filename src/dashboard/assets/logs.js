// pinbad's dashboard: the request logs view (`#/logs/KIND?server_name=…&status=5xx&range=1d`),
// over GET /api/v1/request_logs/{kind}. Loaded before app.js, it registers the `logs` view in
// `window.__pinbadViews`, which app.js's router looks in for views it does not have itself. The
// view's state (kind, filters, sort, page, range) lives in the URL, so a link opens the same page.
'use strict';

(function () {
  // `same`: the column of FIELDS a kind's value is, which its table leaves out (it would repeat it).
  const KINDS = {
    slow: { label: 'Slow', value: 'request time', fmt: (x) => seconds(x.request_time), same: 'request_time' },
    memory: { label: 'Memory', value: 'memory peak', fmt: (x) => bytes(x.memory_peak), same: 'memory_peak' },
    cpu: { label: 'CPU', value: 'CPU (user + system)', fmt: (x) => seconds(x.ru_utime + x.ru_stime), same: 'cpu' },
    errors: { label: 'Errors', value: 'status', fmt: (x) => String(x.status), same: 'status' },
  };
  /** The request's figures a log table shows after its host and script: [id, header, cell]. */
  const FIELDS = [
    ['status', 'status', (x) => x.status],
    ['request_time', 'request time', (x) => seconds(x.request_time)],
    ['memory_peak', 'memory peak', (x) => bytes(x.memory_peak)],
    ['cpu', 'CPU', (x) => seconds(x.ru_utime + x.ru_stime)],
  ];
  const FILTERS = [
    ['server_name', 'server (exact)', 18],
    ['hostname', 'host (exact)', 14],
    ['script_name', 'script (exact)', 22],
    ['status', 'status: 500, 5xx, >=400', 12],
  ];
  const RANGES = { '15m': 900, '1h': 3600, '1d': 86400, '7d': 7 * 86400 };

  const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  // app.js's formats (its pure functions, on `window.__pinbad.lib` once it has run).
  const seconds = (v) => window.__pinbad.lib.fmtCell('p50', v);
  const bytes = (v) => window.__pinbad.lib.fmtCell('memory_footprint_total', v);
  /** A unix time in the user's time zone, with UTC on hover. */
  function when(unix) {
    const d = new Date(unix * 1000);
    return { text: d.toLocaleString(), title: d.toISOString().replace('.000', '') };
  }

  // app.js's element builder and API call (with its token prompt on a 401), looked up when a view
  // runs: this file loads first, so that its views are registered before app.js routes.
  const h = (...args) => window.__pinbad.ui.h(...args);
  const api = (path) => window.__pinbad.ui.api(path);

  /** The API's query for a route: its filters, sort, page and range (as app.js's range picker
   *  writes it: `range=1d`, or `from` and `to` in unix seconds). */
  function apiQuery(params) {
    const out = new URLSearchParams();
    for (const [k] of FILTERS) if (params.get(k)) out.set(k, params.get(k));
    for (const k of ['sort', 'cursor', 'limit']) if (params.get(k)) out.set(k, params.get(k));
    if (params.get('from') && params.get('to')) {
      out.set('from', params.get('from'));
      out.set('to', params.get('to'));
    } else {
      out.set('from', '-' + (RANGES[params.get('range')] ? params.get('range') : '1h'));
      out.set('to', 'now');
    }
    return out;
  }
  function hash(kind, params) {
    const q = params.toString();
    return '#/logs/' + kind + (q ? '?' + q : '');
  }

  function logsView(route) {
    const tabs = h('div', { class: 'tabs', id: 'logs-tabs' });
    const inputs = Object.fromEntries(FILTERS.map(([k, placeholder, size]) =>
      [k, h('input', { id: 'logs-' + k, placeholder, size, 'data-param': k })]));
    const sort = h('select', { id: 'logs-sort' },
      h('option', { value: 'time' }, 'newest first'), h('option', { value: 'value' }, 'largest first'));
    let current = route;
    const apply = () => {
      const p = new URLSearchParams(current.params);
      for (const [k, el] of Object.entries(inputs)) {
        if (el.value.trim()) p.set(k, el.value.trim()); else p.delete(k);
      }
      if (sort.value === 'value') p.set('sort', 'value'); else p.delete('sort');
      p.delete('cursor');
      location.hash = hash(kindOf(current), p);
    };
    for (const el of Object.values(inputs)) {
      el.addEventListener('keydown', (e) => { if (e.key === 'Enter') apply(); });
    }
    sort.addEventListener('change', apply);
    const caption = h('div', { class: 'muted', id: 'logs-caption' });
    const counts = h('div', { class: 'muted', id: 'logs-counts' });
    const sampling = h('div', { class: 'muted', id: 'logs-sampling' });
    const pager = h('div', { class: 'controls', id: 'logs-pager' });
    const wrap = h('div', { class: 'table-wrap' });
    const root = h('div', {}, tabs,
      h('div', { class: 'controls' }, Object.values(inputs), sort,
        h('button', { type: 'button', id: 'logs-apply', onclick: apply }, 'Apply')),
      caption, sampling, counts, wrap, pager);
    const tags = (o) => Object.entries(o || {}).map(([k, v]) => h('span', { class: 'tag' }, `${k}=${v}`));
    let seq = 0;

    function kindOf(r) { return KINDS[r.name] ? r.name : 'slow'; }

    async function refresh(r) {
      current = r;
      const kind = kindOf(r), spec = KINDS[kind];
      const p = r.params;
      tabs.replaceChildren(...Object.entries(KINDS).map(([k, s]) => {
        const q = new URLSearchParams(p);
        q.delete('cursor');
        return h('a', { href: hash(k, q), class: k === kind ? 'active' : null, 'data-kind': k }, s.label);
      }));
      for (const [k, el] of Object.entries(inputs)) if (document.activeElement !== el) el.value = p.get(k) || '';
      sort.value = p.get('sort') === 'value' ? 'value' : 'time';
      const mine = ++seq;
      const answer = await api(`/api/v1/request_logs/${kind}?${apiQuery(p)}`);
      if (mine !== seq) return; // a newer refresh (another filter) is under way
      const first = Number(p.get('skip') || 0);
      const shown = answer.entries.length;
      caption.textContent = `${int.format(answer.total)} ${answer.total === 1 ? 'entry matches' : 'entries match'}`
        + (shown ? `; showing ${int.format(first + 1)}–${int.format(first + shown)}` : '')
        + ` (${spec.label.toLowerCase()} log, a top per ${answer.group_by} and step)`;
      caption.dataset.total = answer.total;
      // A log keeps a sample, and says how: the rule, and for errors what it kept of what it saw.
      const sm = answer.sampling;
      sampling.textContent = sm ? `This log keeps ${sm.rule}`
        + (sm.servers_with_own_thresholds.length ? `; ${sm.servers_with_own_thresholds.join(', ')} have thresholds of their own` : '')
        + (sm.seen != null ? `: ${int.format(sm.kept)} kept of ${int.format(sm.seen)} seen in the range.` : '.')
        + ' Thresholds are set in [request_log] of the config (they decide what is stored).' : '';
      sampling.dataset.kept = sm ? sm.kept : '';
      sampling.dataset.seen = sm && sm.seen != null ? sm.seen : '';
      counts.textContent = answer.error_counts && answer.error_counts.length
        ? 'All error requests in the range: ' + answer.error_counts.map((c) => `${c.status}: ${int.format(c.count)}`).join(', ')
        : '';
      const fields = FIELDS.filter(([id]) => id !== spec.same);
      const rows = answer.entries.map((e) => {
        const x = e.request;
        const t = when(x.timestamp);
        const timers = x.timers || [];
        return h('tr', { class: 'log-entry' },
          h('td', { class: 'key', title: t.title }, t.text),
          h('td', { 'data-col': 'value' }, spec.fmt(x)),
          h('td', { class: 'key', 'data-col': 'server_name' }, window.__pinbad.ui.serverLink(x.server_name)),
          h('td', { class: 'key' }, x.hostname),
          h('td', { class: 'key', 'data-col': 'script_name' }, x.script_name),
          fields.map(([id, , cell]) => h('td', { 'data-col': id }, cell(x))),
          h('td', { class: 'key' }, tags(x.tags)),
          h('td', { class: 'timers' }, timers.length
            ? h('details', {}, h('summary', {}, `${timers.length} timers`),
              h('table', {}, h('tbody', {}, timers.map((tm) => h('tr', {},
                h('td', {}, seconds(tm.value)), h('td', {}, `×${tm.hit_count}`),
                h('td', { class: 'key' }, tags(tm.tags)))))))
            : '–'));
      });
      const head = ['time', spec.value, 'server', 'host', 'script', ...fields.map((f) => f[1]), 'tags', 'timers'];
      wrap.replaceChildren(h('table', { id: 'logs-table' },
        h('thead', {}, h('tr', {}, head.map((c) => h('th', {}, c)))),
        h('tbody', {}, rows.length ? rows
          : h('tr', {}, h('td', { class: 'empty', colspan: head.length }, 'No entry in this range.')))));
      const links = [];
      if (p.get('cursor')) {
        const q = new URLSearchParams(p);
        q.delete('cursor'); q.delete('skip');
        links.push(h('a', { href: hash(kind, q), id: 'logs-first' }, 'first page'));
      }
      if (answer.next_cursor) {
        const q = new URLSearchParams(p);
        q.set('cursor', answer.next_cursor);
        q.set('skip', String(first + shown));
        links.push(h('a', { href: hash(kind, q), id: 'logs-next' }, 'next page'));
      }
      pager.replaceChildren(...links);
    }

    return { root, range: true, refresh };
  }

  window.__pinbadViews = Object.assign(window.__pinbadViews || {}, { logs: logsView });
})();
