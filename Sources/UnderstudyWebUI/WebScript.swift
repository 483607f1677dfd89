/// The web UI's script: hash routes (`#/`, `#/m/<id>`, `#/tokens`, `#/start`) over the `/api`.
/// Every value from the server reaches the page through `textContent` or an attribute, never as
/// markup; links are kept only when they are http(s).
enum WebScript {
    static let source = #"""
'use strict';
(() => {
  const main = document.getElementById('main');
  const liveBadge = document.getElementById('live');
  const PAGE = 50;

  // MARK: helpers

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'value') el.value = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  // replaceChildren, leaving out the null of an absent optional part (which it would print).
  function fill(el, ...children) {
    el.replaceChildren(...children.flat(Infinity).filter(c => c !== null && c !== undefined && c !== false));
  }

  function httpURL(url) { return /^https?:\/\//i.test(String(url || '')) ? String(url) : null; }

  async function api(path, options) {
    const r = await fetch(path, Object.assign({ headers: { 'Accept': 'application/json' } }, options || {}));
    const type = r.headers.get('content-type') || '';
    const body = r.status === 204 ? null : type.includes('json') ? await r.json() : await r.text();
    if (!r.ok) {
      const e = new Error((body && body.message) || ('HTTP ' + r.status));
      e.status = r.status; e.body = body;
      throw e;
    }
    return body;
  }

  function when(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return String(iso || '');
    const today = new Date();
    return d.toDateString() === today.toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
  }

  function copyButton(text, label) {
    return h('button', { type: 'button', class: 'copy', 'aria-label': 'Copy ' + (label || text), onclick: async (ev) => {
      const button = ev.currentTarget;
      try { await navigator.clipboard.writeText(text); } catch (_) {
        const area = h('textarea', { 'aria-hidden': 'true' }); area.value = text;
        document.body.append(area); area.select(); document.execCommand('copy'); area.remove();
      }
      button.textContent = 'Copied';
      setTimeout(() => { button.textContent = 'Copy'; }, 1200);
    } }, 'Copy');
  }

  function showError(where, error) {
    fill(where, h('p', { class: 'error', role: 'alert' }, error.message || String(error)));
  }

  // Unread markers live in this browser only: the store keeps no read state.
  const readKey = 'understudy.read';
  let readIds = new Set();
  try { readIds = new Set(JSON.parse(localStorage.getItem(readKey) || '[]')); } catch (_) {}
  function markRead(id) {
    readIds.add(id);
    const list = Array.from(readIds).slice(-5000);
    try { localStorage.setItem(readKey, JSON.stringify(list)); } catch (_) {}
  }

  // MARK: live events

  const listeners = new Set();
  function connectEvents() {
    const source = new EventSource('/api/events');
    source.onopen = () => { liveBadge.textContent = 'live'; liveBadge.classList.add('on'); };
    source.onerror = () => { liveBadge.textContent = 'reconnecting…'; liveBadge.classList.remove('on'); };
    for (const name of ['message', 'deleted', 'cleared']) {
      source.addEventListener(name, (ev) => {
        let data = {};
        try { data = JSON.parse(ev.data); } catch (_) {}
        for (const f of listeners) f(name, data);
      });
    }
  }

  // MARK: inbox

  const inboxState = { search: '', to: '', offset: 0, selected: 0, items: [], total: 0, fresh: new Set(), recipients: new Set() };

  function parseSearch(text) {
    const params = {};
    const words = [];
    for (const token of String(text).match(/\S+:"[^"]*"|"[^"]*"|\S+/g) || []) {
      const m = /^(to|from|subject):(.+)$/i.exec(token);
      if (m) params[m[1].toLowerCase()] = m[2].replace(/^"|"$/g, '');
      else words.push(token);
    }
    if (words.length) params.q = words.join(' ');
    return params;
  }

  function listQuery() {
    const params = parseSearch(inboxState.search);
    if (inboxState.to) params.to = inboxState.to;
    params.limit = PAGE;
    params.offset = inboxState.offset;
    return '/api/messages?' + new URLSearchParams(params).toString();
  }

  let inboxView = null;

  async function loadInbox() {
    if (!inboxView) return;
    const { list, status, pager } = inboxView;
    try {
      const page = await api(listQuery());
      inboxState.items = page.messages;
      inboxState.total = page.total;
      if (inboxState.selected >= page.messages.length) inboxState.selected = Math.max(0, page.messages.length - 1);
      for (const m of page.messages) for (const to of m.to || []) inboxState.recipients.add(to);
      renderList(list);
      renderPager(pager);
      status.textContent = page.total === 0 ? 'No messages' + (inboxState.search || inboxState.to ? ' match.' : ' yet: send one to the SMTP port.') : '';
      const datalist = document.getElementById('recipients');
      if (datalist) fill(datalist, ...Array.from(inboxState.recipients).sort().map(r => h('option', { value: r })));
    } catch (e) { showError(status, e); }
  }

  function renderList(list) {
    fill(list, ...inboxState.items.map((m, i) => {
      const classes = [readIds.has(m.id) ? 'read' : 'unread'];
      if (inboxState.fresh.has(m.id)) classes.push('fresh');
      return h('li', { role: 'option', 'data-id': m.id, class: classes.join(' '), 'aria-selected': i === inboxState.selected ? 'true' : 'false',
                       onclick: () => { location.hash = '#/m/' + encodeURIComponent(m.id); } },
        h('span', { class: 'dot', title: readIds.has(m.id) ? 'read' : 'unread', 'aria-label': readIds.has(m.id) ? 'read' : 'unread' }),
        h('span', { class: 'who' }, m.from || '(no sender)', h('span', { class: 'to' }, 'to ' + (m.to || []).join(', '))),
        h('span', { class: 'line' },
          h('span', { class: 'subject' }, m.subject || '(no subject)'),
          (m.codes || []).slice(0, 1).map(c => h('span', { class: 'chip code-chip', title: 'one-time code' }, c)),
          h('span', { class: 'snippet' }, m.snippet || '')),
        h('span', { class: 'when' }, h('time', { datetime: m.receivedAt }, when(m.receivedAt))));
    }));
    inboxState.fresh.clear();
  }

  function renderPager(pager) {
    const first = inboxState.total === 0 ? 0 : inboxState.offset + 1;
    const last = inboxState.offset + inboxState.items.length;
    fill(pager, 
      h('button', { type: 'button', disabled: inboxState.offset === 0, onclick: () => page(-1) }, '← Newer'),
      h('span', { class: 'muted' }, `${first}–${last} of ${inboxState.total}`),
      h('button', { type: 'button', disabled: last >= inboxState.total, onclick: () => page(1) }, 'Older →'));
  }

  function page(direction) {
    const next = inboxState.offset + direction * PAGE;
    if (next < 0 || (direction > 0 && next >= inboxState.total)) return;
    inboxState.offset = next;
    inboxState.selected = 0;
    loadInbox();
  }

  function select(delta) {
    if (!inboxView || inboxState.items.length === 0) return;
    inboxState.selected = Math.min(inboxState.items.length - 1, Math.max(0, inboxState.selected + delta));
    const rows = inboxView.list.children;
    for (let i = 0; i < rows.length; i++) rows[i].setAttribute('aria-selected', i === inboxState.selected ? 'true' : 'false');
    rows[inboxState.selected].scrollIntoView({ block: 'nearest' });
  }

  async function deleteMessage(id) {
    await api('/api/messages/' + encodeURIComponent(id), { method: 'DELETE' });
  }

  function showInbox() {
    let timer = null;
    const search = h('input', { type: 'search', id: 'search', value: inboxState.search, 'aria-label': 'Search',
      placeholder: 'Search words, to:, from:, subject:  (press / )',
      oninput: () => { clearTimeout(timer); timer = setTimeout(() => { inboxState.search = search.value; inboxState.offset = 0; loadInbox(); }, 200); } });
    const recipient = h('input', { type: 'text', id: 'recipient', list: 'recipients', value: inboxState.to, 'aria-label': 'Recipient',
      placeholder: 'Any recipient', onchange: () => { inboxState.to = recipient.value.trim(); inboxState.offset = 0; loadInbox(); } });
    const list = h('ol', { class: 'messages', id: 'messages', role: 'listbox', 'aria-label': 'Messages, newest first' });
    const status = h('p', { class: 'muted', id: 'status', role: 'status' });
    const pager = h('div', { class: 'pager' });
    fill(main, 
      h('div', { class: 'toolbar' }, search, recipient, h('datalist', { id: 'recipients' }),
        h('button', { type: 'button', onclick: loadInbox }, 'Refresh'),
        h('button', { type: 'button', class: 'danger', id: 'delete-all', onclick: async () => {
          if (!confirm('Delete every message?')) return;
          try { await api('/api/messages', { method: 'DELETE' }); inboxState.offset = 0; loadInbox(); } catch (e) { showError(status, e); }
        } }, 'Delete all')),
      status, list, pager,
      h('p', { class: 'keys' }, h('kbd', {}, 'j'), '/', h('kbd', {}, 'k'), ' move · ', h('kbd', {}, 'Enter'), ' open · ',
        h('kbd', {}, 'd'), ' delete · ', h('kbd', {}, '/'), ' search · ', h('kbd', {}, '←'), h('kbd', {}, '→'), ' pages · ',
        'Unread markers are kept in this browser (the server keeps no read state).'));
    inboxView = { list, status, pager };
    loadInbox();
  }

  // MARK: message

  let messageView = null;

  function codePattern(code) {
    const chars = Array.from(String(code)).map(c => c.replace(/[^0-9A-Za-z]/g, '\\$&'));
    return chars.join('[\\s\\-\\u00a0]?');
  }

  function highlighted(text, codes) {
    if (!codes.length) return [text];
    const re = new RegExp('(' + codes.map(codePattern).join('|') + ')', 'g');
    const out = [];
    let last = 0;
    for (const m of String(text).matchAll(re)) {
      out.push(text.slice(last, m.index), h('mark', { class: 'code-mark' }, m[0]));
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }

  async function showMessage(id) {
    inboxView = null;
    fill(main, h('p', { class: 'muted' }, 'Loading…'));
    let m;
    try { m = await api('/api/messages/' + encodeURIComponent(id)); } catch (e) {
      return fill(main, h('p', {}, h('a', { href: '#/' }, '← Inbox')), h('p', { class: 'error', role: 'alert' }, e.message));
    }
    markRead(m.id);
    const base = '/api/messages/' + encodeURIComponent(m.id);
    const parts = m.parts || [];
    const htmlPart = parts.find(p => p.type === 'text/html' && !p.attachment);
    const files = parts.filter(p => p.attachment || p.name);
    const codes = m.codes || [];

    const rows = [['From', m.fromName ? `${m.fromName} <${m.from}>` : m.from], ['To', (m.to || []).join(', ')],
      ['Cc', (m.cc || []).join(', ')], ['Date', m.date], ['Received', when(m.receivedAt)],
      ['Envelope', `${m.envelope.from || '<>'} → ${(m.envelope.to || []).join(', ')}`], ['Size', `${m.size} bytes`]]
      .filter(([, v]) => v);

    const codeList = codes.length
      ? h('ul', { class: 'codes', id: 'codes' }, codes.map((c, i) => h('li', {}, h('span', { class: 'otp' }, c), copyButton(c, 'code'),
          i === 0 ? h('span', { class: 'muted' }, 'best') : null)))
      : h('div', { id: 'codes' }, h('p', { class: 'muted' }, 'No one-time code found.'),
          (m.rejectedCodes || []).length ? h('ul', { class: 'codes' }, m.rejectedCodes.map(r =>
            h('li', {}, h('code', {}, r.raw), h('span', { class: 'muted' }, `not taken: ${r.reason} (${r.source})`)))) : null);

    const links = (m.links || []).filter(l => httpURL(l.url));
    const linkList = links.length
      ? h('ul', { class: 'links', id: 'links' }, links.map(l => h('li', {}, h('span', { class: 'purpose' }, l.purpose),
          h('a', { class: 'url', href: httpURL(l.url), target: '_blank', rel: 'noopener noreferrer' }, l.text ? `${l.text} — ${l.url}` : l.url),
          copyButton(l.url, 'link'))))
      : h('p', { class: 'muted', id: 'links' }, 'No links.');

    const pane = h('div', { class: 'pane', id: 'pane' });
    const tabs = [];
    function tab(name, label, render) {
      const button = h('button', { type: 'button', role: 'tab', 'data-tab': name, 'aria-selected': 'false', onclick: () => {
        for (const t of tabs) t.setAttribute('aria-selected', t === button ? 'true' : 'false');
        render();
      } }, label);
      tabs.push(button);
      return button;
    }
    function renderHTML() {
      let images = false;
      const frame = h('iframe', { class: 'mail', id: 'mail-frame', title: 'HTML body (sandboxed: no scripts, remote images off)',
        sandbox: '', referrerpolicy: 'no-referrer' });
      const set = () => { frame.src = `${base}/parts/${encodeURIComponent(htmlPart.part)}?view=1&frame=1${images ? '&images=1' : ''}`; };
      const toggle = h('label', {}, h('input', { type: 'checkbox', id: 'images', onchange: (ev) => { images = ev.target.checked; set(); } }),
        ' Load remote images');
      set();
      fill(pane, h('p', { class: 'muted' }, toggle, ' · shown sandboxed: no scripts, no forms, no access to this page.'), frame);
    }
    function renderText() {
      const text = m.text || '';
      fill(pane, text ? h('pre', { id: 'text-body' }, highlighted(text, codes)) : h('p', { class: 'muted' }, 'No text part.'));
    }
    async function renderRaw() {
      fill(pane, h('p', { class: 'muted' }, 'Loading…'));
      try {
        const raw = await api(`${base}/raw`);
        fill(pane, h('p', {}, h('a', { href: `${base}/raw`, download: `${m.id}.eml` }, 'Download .eml')), h('pre', { id: 'raw' }, raw));
      } catch (e) { showError(pane, e); }
    }
    function renderHeaders() {
      const all = [];
      for (const [name, values] of Object.entries(m.headers || {})) for (const v of values) all.push(h('tr', {}, h('th', {}, name), h('td', {}, v)));
      fill(pane, h('table', { class: 'kv' }, all));
    }
    const tabButtons = [htmlPart ? tab('html', 'HTML', renderHTML) : null, tab('text', 'Text', renderText),
      tab('raw', 'Raw source', renderRaw), tab('headers', 'Headers', renderHeaders)].filter(Boolean);

    fill(main, 
      h('p', {}, h('a', { href: '#/' }, '← Inbox'), ' ',
        h('button', { type: 'button', class: 'danger', id: 'delete', onclick: async () => {
          try { await deleteMessage(m.id); location.hash = '#/'; } catch (e) { showError(pane, e); }
        } }, 'Delete')),
      h('h1', { id: 'subject' }, m.subject || '(no subject)'),
      h('table', { class: 'kv' }, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))),
      h('div', { class: 'grid2' },
        h('section', { 'aria-labelledby': 'codes-h' }, h('h2', { id: 'codes-h' }, 'Codes'), codeList),
        h('section', { 'aria-labelledby': 'links-h' }, h('h2', { id: 'links-h' }, 'Links'), linkList)),
      files.length ? h('section', {}, h('h2', {}, 'Attachments'), h('ul', { id: 'attachments' }, files.map(p =>
        h('li', {}, h('a', { href: `${base}/parts/${encodeURIComponent(p.part)}`, download: p.name || `part-${p.part}` }, p.name || `part ${p.part}`),
          h('span', { class: 'muted' }, ` ${p.type}, ${p.size} bytes`))))) : null,
      h('div', { class: 'tabs', role: 'tablist' }, tabButtons), pane);
    messageView = { id: m.id };
    tabButtons[0].click();
  }

  // MARK: tokens

  async function showTokens() {
    inboxView = null;
    let info = { identities: [] };
    try { info = await api('/api/info'); } catch (_) {}
    const out = h('div', { id: 'mint-result', 'aria-live': 'polite' });
    const field = (label, input) => [h('label', { for: input.id }, label), input];
    const provider = h('select', { id: 'provider', name: 'provider' }, h('option', { value: 'apple' }, 'Apple'), h('option', { value: 'google' }, 'Google'));
    const identity = h('select', { id: 'identity', onchange: () => { if (identity.value) email.value = identity.value; } },
      h('option', { value: '' }, '(type an address)'), (info.identities || []).map(i => h('option', { value: i.email }, i.name ? `${i.name} <${i.email}>` : i.email)));
    const email = h('input', { id: 'email', type: 'email', value: (info.identities || [])[0] ? info.identities[0].email : 'alice@example.com' });
    identity.value = email.value;   // the first identity, when one is configured
    const aud = h('input', { id: 'aud', placeholder: 'default: the configured client id' });
    const platform = h('select', { id: 'platform' }, ['', 'web', 'ios', 'android'].map(p => h('option', { value: p }, p || '(none)')));
    const nonce = h('input', { id: 'nonce', placeholder: 'copied as is' });
    const rawNonce = h('input', { id: 'raw-nonce', placeholder: 'the claim gets its hex SHA-256' });
    const claims = h('textarea', { id: 'claims', rows: 3, placeholder: '{"hd": "example.com"}' });
    const form = h('form', { class: 'mint', id: 'mint', onsubmit: async (ev) => {
      ev.preventDefault();
      const body = { email: email.value };
      if (aud.value) body.aud = aud.value;
      if (platform.value) body.platform = platform.value;
      if (nonce.value) body.nonce = nonce.value;
      if (rawNonce.value) body.rawNonce = rawNonce.value;
      if (claims.value.trim()) {
        try { body.claims = JSON.parse(claims.value); } catch (e) { return showError(out, new Error('Extra claims must be a JSON object: ' + e.message)); }
      }
      try {
        const minted = await api('/api/tokens/' + provider.value, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' }, body: JSON.stringify(body) });
        const token = h('textarea', { id: 'minted-token', rows: 5, readonly: true, 'aria-label': 'ID token' });
        token.value = minted.idToken;
        fill(out, h('h2', {}, 'ID token'), token, copyButton(minted.idToken, 'token'),
          h('h2', {}, 'Header'), h('pre', { id: 'minted-header' }, JSON.stringify(minted.header, null, 2)),
          h('h2', {}, 'Claims'), h('pre', { id: 'minted-claims' }, JSON.stringify(minted.claims, null, 2)));
      } catch (e) { showError(out, e); }
    } },
      field('Provider', provider), field('Identity', identity), field('Email', email), field('Audience (aud)', aud),
      field('Platform (Google)', platform), field('Nonce', nonce), field('Raw nonce', rawNonce), field('Extra claims (JSON)', claims),
      h('p', {}, h('button', { type: 'submit', id: 'mint-submit' }, 'Mint token')));

    const pasted = h('textarea', { id: 'jwt-input', rows: 6, 'aria-label': 'JWT to decode', placeholder: 'eyJ…', oninput: () => decode() });
    const decoded = h('div', { id: 'jwt-decoded', 'aria-live': 'polite' });
    function b64url(part) {
      const s = part.replace(/-/g, '+').replace(/_/g, '/');
      const bytes = Uint8Array.from(atob(s + '='.repeat((4 - s.length % 4) % 4)), c => c.charCodeAt(0));
      return new TextDecoder().decode(bytes);
    }
    function decode() {
      const text = pasted.value.trim();
      if (!text) return fill(decoded);
      const pieces = text.split('.');
      try {
        if (pieces.length !== 3) throw new Error('a JWT has three parts separated by dots, this has ' + pieces.length);
        const header = JSON.parse(b64url(pieces[0]));
        const claims = JSON.parse(b64url(pieces[1]));
        const times = ['iat', 'exp', 'nbf', 'auth_time'].filter(k => typeof claims[k] === 'number')
          .map(k => h('tr', {}, h('th', {}, k), h('td', {}, new Date(claims[k] * 1000).toISOString())));
        fill(decoded, h('h2', {}, 'Header'), h('pre', {}, JSON.stringify(header, null, 2)),
          h('h2', {}, 'Claims'), h('pre', { id: 'jwt-claims' }, JSON.stringify(claims, null, 2)),
          times.length ? h('table', { class: 'kv' }, times) : null,
          h('p', { class: 'muted' }, 'Decoded only: the signature is not checked here.'));
      } catch (e) { showError(decoded, new Error('Not a JWT: ' + e.message)); }
    }
    fill(main, h('h1', {}, 'Tokens'), h('div', { class: 'grid2' },
      h('section', {}, h('h2', {}, 'Mint an ID token'), form, out),
      h('section', {}, h('h2', {}, 'Decode a JWT'), pasted, decoded)));
  }

  // MARK: start

  async function showStart() {
    inboxView = null;
    let info;
    try { info = await api('/api/info'); } catch (e) { return showError(main, e); }
    const origin = location.origin;
    const smtp = info.smtp || '';
    const colon = smtp.lastIndexOf(':');
    const setting = (name, value) => h('tr', {}, h('th', {}, name), h('td', {}, h('code', { class: 'setting' }, value), ' ', copyButton(value, name)));
    const rows = (pairs) => h('table', { class: 'kv' }, pairs.filter(([, v]) => v).map(([k, v]) => setting(k, v)));
    fill(main, 
      h('h1', {}, 'Understudy ', h('span', { class: 'muted' }, info.version)),
      h('div', { class: 'grid2' },
        h('section', { class: 'panel' }, h('h2', {}, 'Listening on'), rows([
          ['HTTP', (info.http || []).join(', ')], ['HTTPS', info.https], ['SMTP', info.smtp], ['SMTPS', info.smtps]])),
        h('section', { class: 'panel' }, h('h2', {}, 'Mail: what to set in an app'), rows([
          ['SMTP host', colon > 0 ? smtp.slice(0, colon) : smtp], ['SMTP port', colon > 0 ? smtp.slice(colon + 1) : ''],
          ['Username / password', 'any (unless mail.username is set)'],
          ['Wait for a code', `${origin}/api/otp?to=alice@example.com&wait=30`]])),
        h('section', { class: 'panel' }, h('h2', {}, 'Sign in with Apple'), rows([
          ['JWKS', `${origin}/apple/auth/keys`], ['Discovery', `${origin}/apple/.well-known/openid-configuration`],
          ['Issuer', info.apple.issuer], ['Team ID', info.apple.teamId], ['Bundle IDs', info.apple.bundleIds.join(', ')],
          ['Services IDs', info.apple.servicesIds.join(', ')]])),
        h('section', { class: 'panel' }, h('h2', {}, 'Google Sign-In'), rows([
          ['JWKS', `${origin}/google/oauth2/v3/certs`], ['PEM certs (v1)', `${origin}/google/oauth2/v1/certs`],
          ['Discovery', `${origin}/google/.well-known/openid-configuration`], ['Issuer', info.google.issuer],
          ['Web client ID', info.google.webClientId], ['iOS client ID', info.google.iosClientId], ['Android client ID', info.google.androidClientId]])),
        h('section', { class: 'panel' }, h('h2', {}, 'Real hostnames (proxy and CA)'), rows([
          ['HTTPS_PROXY', origin], ['REQUESTS_CA_BUNDLE / SSL_CERT_FILE / NODE_EXTRA_CA_CERTS', info.caCertificate || '(no CA in use: start with --https)']])),
        h('section', { class: 'panel' }, h('h2', {}, 'Identities'), (info.identities || []).length
          ? h('table', { class: 'kv', id: 'identities' }, info.identities.map(i => h('tr', {}, h('th', {}, i.name || ''), h('td', {}, i.email, i.sub ? ` (sub ${i.sub})` : ''))))
          : h('p', { class: 'muted' }, 'None configured: any email address works; subjects derive from it.'))));
  }

  // MARK: routing and keys

  function route() {
    const hash = location.hash || '#/';
    const nav = hash.startsWith('#/tokens') ? 'tokens' : hash.startsWith('#/start') ? 'start' : 'inbox';
    for (const a of document.querySelectorAll('nav a')) {
      if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    messageView = null;
    if (hash.startsWith('#/m/')) return showMessage(decodeURIComponent(hash.slice(4)));
    if (nav === 'tokens') return showTokens();
    if (nav === 'start') return showStart();
    showInbox();
  }

  listeners.add((name, data) => {
    if (!inboxView) return;
    if (name === 'message' && data.id) inboxState.fresh.add(data.id);
    if (inboxState.offset === 0 || name !== 'message') loadInbox();
  });

  document.addEventListener('keydown', (ev) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement && document.activeElement.tagName);
    if (ev.key === 'Escape') { if (typing) document.activeElement.blur(); else if (messageView) location.hash = '#/'; return; }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (inboxView) {
      const current = inboxState.items[inboxState.selected];
      switch (ev.key) {
        case 'j': case 'ArrowDown': select(1); break;
        case 'k': case 'ArrowUp': select(-1); break;
        case 'Enter': case 'o': if (current) location.hash = '#/m/' + encodeURIComponent(current.id); break;
        case 'd': case 'Delete': if (current) deleteMessage(current.id).then(loadInbox, e => showError(inboxView.status, e)); break;
        case '/': ev.preventDefault(); document.getElementById('search').focus(); break;
        case 'ArrowRight': page(1); break;
        case 'ArrowLeft': page(-1); break;
        default: return;
      }
      ev.preventDefault();
    } else if (messageView && (ev.key === 'd' || ev.key === 'Delete')) {
      deleteMessage(messageView.id).then(() => { location.hash = '#/'; });
    }
  });

  window.addEventListener('hashchange', route);
  connectEvents();
  route();
})();
"""#
}
