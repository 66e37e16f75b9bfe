// The page of drumql serve: queries, proofs, the rule browser, rule edits
// and fact edits, over the JSON API under /v1. Plain JavaScript, no
// dependencies.
"use strict";

const $ = (id) => document.getElementById(id);

// el makes an element with attributes and children (strings become text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c);
  }
  return e;
}

function show(id, text) {
  const e = $(id);
  e.textContent = text || "";
  e.hidden = !text;
}

// fmt writes a confidence or weight with at most four decimals.
function fmt(x) {
  return x === undefined || x === null ? "" : String(Math.round(x * 10000) / 10000);
}

// The token is asked for on the first 401 and kept for the session only.
const tokenKey = "drumql-token";

function askToken() {
  const d = $("token-dialog");
  $("token").value = "";
  d.showModal();
  return new Promise((resolve) => {
    d.addEventListener("close", () => {
      const t = d.returnValue === "ok" ? $("token").value.trim() : "";
      if (t) sessionStorage.setItem(tokenKey, t);
      resolve(t);
    }, { once: true });
  });
}

// ApiError is an error answer of the API: its status and JSON body.
class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : "HTTP " + status);
    this.status = status;
    this.body = body || {};
  }
}

// api calls an endpoint and returns the decoded JSON answer, asking for the
// token when the server wants one.
async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const token = sessionStorage.getItem(tokenKey);
    if (token) headers["Authorization"] = "Bearer " + token;
    const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await resp.json(); } catch (e) { data = null; }
    if (resp.status === 401 && attempt < 2) {
      sessionStorage.removeItem(tokenKey);
      if (await askToken()) continue;
    }
    if (!resp.ok) throw new ApiError(resp.status, data);
    return data;
  }
}

// where is the position of a diagnostic: "line L, column C", after the
// file's name when it is not a part of the request (such as add[0], or the
// text of the facts box).
function where(body) {
  const parts = [];
  if (body.file && !/^((add|remove)\[\d+\]|text)$/.test(body.file)) parts.push(body.file);
  if (body.line) parts.push("line " + body.line);
  if (body.col) parts.push("column " + body.col);
  return parts.length ? parts.join(", ") + ": " : "";
}

// ---- stats

async function loadStats() {
  try {
    const s = await api("GET", "/v1/stats");
    $("stats").textContent = `${s.base_facts} base facts · ${s.derived_facts} derived · ${s.rules} rules`;
    const list = $("relations");
    list.replaceChildren(...(s.per_relation || []).map((r) => el("option", { value: r.name })));
    return s;
  } catch (e) {
    $("stats").textContent = "stats: " + e.message;
    return null;
  }
}

// ---- queries and proofs

// quoteName writes a constant as the Datalog printer does: plain when it
// can be, double-quoted otherwise.
function quoteName(s) {
  if (/^[a-z][A-Za-z0-9_]*$/.test(s) && s !== "not") return s;
  return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r") + '"';
}

// splitAtom splits "pred(a, B, ...)?" into the predicate text and the
// argument texts, respecting quotes; null if it cannot.
function splitAtom(text) {
  const t = text.trim().replace(/[?.]\s*$/, "");
  const open = t.search(/\((?=(?:[^"]|"(?:[^"\\]|\\.)*")*$)/);
  if (open < 0 || !t.endsWith(")")) return null;
  const args = [];
  let cur = "", quoted = false;
  const inner = t.slice(open + 1, -1);
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (quoted && c === "\\") { cur += c + inner[++i]; continue; }
    if (c === '"') quoted = !quoted;
    if (c === "," && !quoted) { args.push(cur.trim()); cur = ""; continue; }
    cur += c;
  }
  args.push(cur.trim());
  return { pred: t.slice(0, open).trim(), args };
}

// factOf is the fact an answer row stands for: the query with its
// variables replaced by the row's values.
function factOf(query, row) {
  const a = splitAtom(query);
  if (!a) return null;
  const args = a.args.map((x) => (/^[A-Z_]/.test(x) && x !== "_" && x in row ? quoteName(row[x]) : x));
  return `${a.pred}(${args.join(", ")})`;
}

let lastQuery = "";
// querySeq numbers the queries asked, so that a slow answer to an older
// query does not replace the answer to a newer one.
let querySeq = 0;

async function runQuery(query) {
  lastQuery = query;
  const seq = ++querySeq;
  show("query-error", "");
  const table = $("answers");
  const top = parseInt($("top").value, 10);
  const req = { query };
  if (top > 0) req.top = top;
  $("query-status").textContent = "asking…";
  const started = performance.now();
  let data;
  try {
    data = await api("POST", "/v1/query", req);
  } catch (e) {
    if (seq !== querySeq) return;
    $("query-status").textContent = "";
    table.hidden = true;
    show("query-error", where(e.body || {}) + e.message);
    return;
  }
  if (seq !== querySeq) return;
  const ms = Math.round(performance.now() - started);
  let rows, vars;
  if (Array.isArray(data)) {
    rows = data;
    vars = rows.length ? Object.keys(rows[0]).filter((k) => k !== "confidence" && k !== "proof") : [];
  } else {
    rows = data.holds ? [{ holds: "yes", confidence: data.confidence }] : [];
    vars = ["holds"];
  }
  $("query-status").textContent = `${rows.length} answer${rows.length === 1 ? "" : "s"} in ${ms} ms` + (rows.length ? " · click one for its proof" : "");
  const head = el("tr", null, ...vars.map((v) => el("th", null, v)), el("th", { class: "num" }, "confidence"));
  const body = rows.map((r) => {
    const fact = Array.isArray(data) ? factOf(query, r) : query.trim().replace(/[?.]\s*$/, "");
    const tr = el("tr", { class: "answer", tabindex: "0", title: fact ? "proof of " + fact : "" },
      ...vars.map((v) => el("td", null, String(r[v]))), el("td", { class: "num" }, fmt(r.confidence)));
    if (fact) {
      const open = () => { for (const x of table.querySelectorAll("tr.selected")) x.classList.remove("selected"); tr.classList.add("selected"); explain(fact); };
      tr.addEventListener("click", open);
      tr.addEventListener("keydown", (ev) => { if (ev.key === "Enter") open(); });
    }
    return tr;
  });
  table.replaceChildren(el("thead", null, head), el("tbody", null, ...body));
  table.hidden = rows.length === 0;
}

// proofNode renders one node of a proof tree, its children inside a
// <details> that expands and collapses.
function proofNode(p) {
  const line = el("span", { class: "node" },
    el("code", { class: "fact" }, (p.negated ? "not " : "") + p.fact),
    el("span", { class: "conf", title: "confidence" }, fmt(p.confidence)));
  if (p.base) line.append(el("span", { class: "tag" }, "base fact"));
  if (p.rule) {
    line.append(el("span", { class: "rule" }, el("span", { class: "muted" }, "by "), el("code", null, p.rule)));
    line.append(el("span", { class: "weight", title: "rule weight" }, "w " + fmt(p.weight)));
  }
  if (p.file) line.append(el("span", { class: "pos muted" }, p.file + (p.line ? ":" + p.line : "")));
  const kids = p.children || [];
  if (!kids.length) return el("div", { class: "leaf" }, line);
  return el("details", { open: "" }, el("summary", null, line), el("div", { class: "children" }, ...kids.map(proofNode)));
}

async function explain(fact) {
  $("proof-panel").hidden = false;
  $("proof-fact").textContent = fact;
  show("proof-error", "");
  $("proof").replaceChildren();
  try {
    const p = await api("POST", "/v1/explain", { fact });
    $("proof").replaceChildren(proofNode(p));
  } catch (e) {
    show("proof-error", e.message);
  }
}

function setAllOpen(open) {
  for (const d of $("proof").querySelectorAll("details")) d.open = open;
}

// ---- rules

let rules = [];
// maxRuleRows bounds the rows of the rule table: a mined file has
// thousands of rules, the head and the filter narrow them.
const maxRuleRows = 500;
let sortKey = null, sortDir = 1;

async function loadRules() {
  show("rules-error", "");
  const head = $("head").value.trim();
  try {
    rules = await api("GET", "/v1/rules" + (head ? "?head=" + encodeURIComponent(head) : ""));
  } catch (e) {
    rules = [];
    show("rules-error", e.message);
  }
  renderRules();
}

// baseName is the last element of a file path (the full path is the
// cell's title).
function baseName(path) {
  return path.replace(/^.*[\/\\]/, "");
}

function sortValue(r, key) {
  if (key === "file") return [r.file || "", r.line || 0];
  const v = r[key];
  return v === undefined ? -Infinity : v;
}

function compare(a, b) {
  if (Array.isArray(a)) return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1];
  return a < b ? -1 : a > b ? 1 : 0;
}

function renderRules() {
  const filter = $("rule-filter").value.trim().toLowerCase();
  let shown = rules.filter((r) => !filter || r.rule.toLowerCase().includes(filter) || (r.file || "").toLowerCase().includes(filter));
  if (sortKey) {
    shown = shown.map((r, i) => [r, i]).sort((x, y) => sortDir * compare(sortValue(x[0], sortKey), sortValue(y[0], sortKey)) || x[1] - y[1]).map((x) => x[0]);
  }
  for (const b of document.querySelectorAll("#rules th button")) {
    b.dataset.dir = b.dataset.sort === sortKey ? (sortDir > 0 ? "asc" : "desc") : "";
  }
  const total = shown.length;
  shown = shown.slice(0, maxRuleRows);
  $("rules").tBodies[0].replaceChildren(...shown.map((r) => el("tr", { class: "rule-row" },
    el("td", null, el("code", null, r.rule)),
    el("td", { class: "num" }, fmt(r.weight)),
    el("td", { class: "num" }, r.support === undefined ? "" : String(r.support)),
    el("td", { class: "num" }, fmt(r.confidence)),
    el("td", { class: "muted pos", title: r.file ? r.file + ":" + r.line : "" }, r.file ? baseName(r.file) + ":" + r.line : ""),
    el("td", { class: "actions" },
      el("button", { type: "button", class: "small edit", onclick: () => startEdit(r) }, "Edit"),
      el("button", { type: "button", class: "small remove", onclick: () => saveRules({ remove: [r.rule] }, "removed " + r.rule) }, "Remove")))));
  $("rules-status").textContent = `${total} of ${rules.length} rule${rules.length === 1 ? "" : "s"}` +
    (total > shown.length ? ` (the first ${shown.length} shown: pick a head relation or filter)` : "");
}

// editing is the rule being changed in the editor, or null for a new one.
let editing = null;

function startEdit(r) {
  editing = r;
  $("editor-title").textContent = "Edit a rule";
  $("editing").textContent = "replaces the rule at " + (r.file ? r.file + ":" + r.line : "its place");
  $("cancel-edit").hidden = false;
  $("rule-text").value = r.rule;
  $("rule-text").focus();
}

function stopEdit() {
  editing = null;
  $("editor-title").textContent = "Add a rule";
  $("editing").textContent = "";
  $("cancel-edit").hidden = true;
}

// saveRules sends an edit, shows its error at its line and column or the
// facts it changed, then refreshes the rules, the answers and the stats.
async function saveRules(req, what) {
  show("edit-error", "");
  show("edit-warnings", "");
  let res;
  try {
    res = await api("POST", "/v1/rules", req);
  } catch (e) {
    show("edit-error", where(e.body || {}) + e.message);
    if (e.body && e.body.line && req.add && e.body.file === "add[0]") placeCaret("rule-text", e.body.line, e.body.col || 1);
    return false;
  }
  if (res.warnings && res.warnings.length) show("edit-warnings", res.warnings.join("; "));
  renderChanges($("changes"), "changed-facts", res, what);
  await Promise.all([loadRules(), lastQuery ? runQuery(lastQuery) : null, loadStats()]);
  return true;
}

// placeCaret puts a text box's caret at a line and column (from 1) of its
// text, where the server found an error.
function placeCaret(id, line, col) {
  const box = $(id);
  const lines = box.value.split("\n");
  let off = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) off += lines[i].length + 1;
  off = Math.min(off + col - 1, box.value.length);
  box.focus();
  box.setSelectionRange(off, off);
}

// renderChanges lists in box the derived facts an edit gained, lost and
// re-weighted (a table with id tableId), after a summary.
function renderChanges(box, tableId, res, what) {
  const facts = res.facts || [];
  const kind = (f) => (f.old === 0 ? "gained" : f.new === 0 ? "lost" : "re-weighted");
  const summary = el("p", null, el("strong", null, what), ` · ${res.added} gained, ${res.removed} lost, ${res.reweighted} re-weighted in ${fmt(res.ms)} ms` + (res.recomputed ? " (recomputed)" : ""));
  const rows = facts.map((f) => el("tr", { class: "change " + kind(f).replace("-", "") },
    el("td", null, kind(f)), el("td", null, el("code", null, f.fact)),
    el("td", { class: "num" }, f.old ? fmt(f.old) : "—"), el("td", { class: "num" }, f.new ? fmt(f.new) : "—")));
  const more = res.added + res.removed + res.reweighted - facts.length;
  box.replaceChildren(summary);
  if (rows.length) {
    box.append(el("div", { class: "scroll" }, el("table", { class: "data", id: tableId },
      el("thead", null, el("tr", null, el("th", null, "change"), el("th", null, "fact"), el("th", { class: "num" }, "old"), el("th", { class: "num" }, "new"))),
      el("tbody", null, ...rows))));
  }
  if (more > 0) box.append(el("p", { class: "muted" }, `and ${more} more`));
  box.hidden = false;
}

// ---- facts

// applyFacts sends the facts box's lines (one base fact a line, "-" first
// to remove it), shows a bad line's error at its line and column or the
// derived facts the edit changed, then refreshes the answers and the
// stats.
async function applyFacts() {
  const text = $("facts-text").value;
  if (!text.trim()) return;
  show("facts-error", "");
  let res;
  try {
    res = await api("POST", "/v1/facts", { text });
  } catch (e) {
    show("facts-error", where(e.body || {}) + e.message);
    if (e.body && e.body.line && e.body.file === "text") placeCaret("facts-text", e.body.line, e.body.col || 1);
    return;
  }
  const n = (k) => res[k] || 0;
  const plural = (k) => (n(k) === 1 ? "" : "s");
  renderChanges($("facts-changes"), "facts-changed", res,
    `${n("base_added")} base fact${plural("base_added")} added, ${n("base_removed")} removed`);
  $("facts-text").value = "";
  await Promise.all([lastQuery ? runQuery(lastQuery) : null, loadStats()]);
}

// ---- wiring

document.addEventListener("DOMContentLoaded", () => {
  $("query-form").addEventListener("submit", (ev) => { ev.preventDefault(); runQuery($("query").value); });
  $("proof-expand").addEventListener("click", () => setAllOpen(true));
  $("proof-collapse").addEventListener("click", () => setAllOpen(false));
  $("rules-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadRules(); });
  $("rule-filter").addEventListener("input", renderRules);
  for (const b of document.querySelectorAll("#rules th button")) {
    b.addEventListener("click", () => {
      sortDir = sortKey === b.dataset.sort ? -sortDir : (b.dataset.sort === "rule" || b.dataset.sort === "file" ? 1 : -1);
      sortKey = b.dataset.sort;
      renderRules();
    });
  }
  $("edit-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = $("rule-text").value.trim();
    if (!text) return;
    const req = editing ? { remove: [editing.rule], add: [text] } : { add: [text] };
    const what = editing ? "replaced " + editing.rule : "added " + text;
    if (await saveRules(req, what)) {
      $("rule-text").value = "";
      stopEdit();
    }
  });
  $("facts-form").addEventListener("submit", (ev) => { ev.preventDefault(); applyFacts(); });
  $("cancel-edit").addEventListener("click", () => { $("rule-text").value = ""; stopEdit(); show("edit-error", ""); });
  // the rules of a small program are listed at once; a mined file's are
  // listed by head relation, or all on Show
  loadStats().then((st) => {
    if (!st || st.rules <= maxRuleRows) loadRules();
    else $("rules-status").textContent = `${st.rules} rules: pick a head relation, or Show for all`;
  });
});
