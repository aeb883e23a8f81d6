// The table page: lays out the view the server sends (every word and number comes from it)
// and keeps it live through server-sent events. Text is only ever set as text, never as HTML.
"use strict";

const LANGS = [["zh_Hans", "简"], ["zh_Hant", "繁"], ["en", "EN"]];
let lang = pickLang();
let source = null;
let view = null;
let formKey = "";
let mode = "total";

function pickLang() {
  const q = new URLSearchParams(location.search).get("lang");
  const saved = (() => { try { return localStorage.getItem("zipai-lang"); } catch (e) { return null; } })();
  const nav = (navigator.language || "").toLowerCase();
  const guess = /^zh-(tw|hk|mo|hant)/.test(nav) ? "zh_Hant" : "zh_Hans";  // English when chosen
  return [q, saved, guess].find((x) => LANGS.some(([k]) => k === x)) || "zh_Hans";
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

function signed(n) { return (n > 0 ? "+" : "") + n; }
function tone(n) { return n > 0 ? "pos" : (n < 0 ? "neg" : ""); }
function $(id) { return document.getElementById(id); }

function connect() {
  if (source) source.close();
  source = new EventSource("events?lang=" + encodeURIComponent(lang));
  source.addEventListener("view", (ev) => { render(JSON.parse(ev.data)); banner(""); });
  source.onerror = () => { if (view) banner(view.words.offline); };
}

function banner(text) {
  $("banner").textContent = text;
  $("banner").hidden = !text;
}

function setLang(l) {
  lang = l;
  try { localStorage.setItem("zipai-lang", l); } catch (e) { /* private mode */ }
  formKey = "";
  connect();
}

function render(v) {
  view = v;
  const w = v.words;
  const s = v.session;
  document.documentElement.lang = v.lang.replace("_", "-");
  document.title = w.page_title + " · " + s.name;
  $("title").textContent = w.page_title + " · " + s.name;
  $("sub").replaceChildren(el("span", { id: "live", title: w.live }),
    [s.rules, w.stake, s.locked ? w.locked : ""].filter(Boolean).join(" · "));
  $("langs").replaceChildren(...LANGS.map(([k, name]) =>
    el("button", { text: name, "aria-pressed": String(k === lang), onclick: () => setLang(k) })));
  if (v.problem) banner(v.problem);
  renderTotals(v);
  renderRounds(v);
  renderProposals(v);
  renderPropose(v);
  renderHands(v);
  renderSettlement(v);
}

function renderTotals(v) {
  const t = v.totals;
  const rows = t.rows.map((r) => el("tr", {},
    el("td", {}, r.name, r.role ? el("span", { class: "role", text: r.role }) : null),
    r.round === null ? null : el("td", { class: tone(r.round), text: signed(r.round) }),
    el("td", { class: "net " + tone(r.net), text: signed(r.net) })));
  $("totals").replaceChildren(el("h2", { text: v.words.totals }),
    el("table", {}, el("tr", {}, ...t.head.map((h) => el("th", { text: h }))), ...rows));
}

function renderRounds(v) {
  const box = $("rounds");
  box.hidden = !v.rounds.length;
  const open = box.querySelector("details") ? box.querySelector("details").open : true;
  box.replaceChildren(el("details", { open },
    el("summary", { text: v.words.net_working }),
    el("div", { class: "lines", text: v.rounds.join("\n") })));
}

function cards(groups) {
  return el("div", { class: "groups" }, groups.map((g) =>
    el("span", { class: "group" + (g.concealed ? " concealed" : "") + (g.winning ? " winning" : "") },
      g.cards.map((c) => el("span", { class: "card" + (c.red ? " red" : ""), text: c.t })),
      " " + g.name + " " + g.points)));
}

function payouts(list) {
  return el("div", { class: "payouts" }, list.map((p) =>
    el("span", { class: tone(p.amount), text: p.name + " " + signed(p.amount) })));
}

function renderHands(v) {
  const w = v.words;
  const items = v.hands.map((h) => el("article", { class: "hand", "data-event": h.event },
    el("h3", {}, el("span", { text: h.title }),
      h.kind === "hand" || h.kind === "double" ? el("span", { class: "score", text: String(h.score) }) : null),
    h.groups.length ? cards(h.groups) : null,
    h.specials.length ? el("div", { class: "tag", text: h.specials.join(" · ") }) : null,
    h.working.length ? el("ul", { class: "working" }, h.working.map((line) => el("li", { text: line }))) : null,
    payouts(h.payouts),
    h.round_closed ? el("div", { class: "tag", text: "⟳ " + h.round_closed }) : null,
    h.photo ? el("img", { class: "photo", src: h.photo, alt: w.photo, loading: "lazy" }) : null));
  $("hands").replaceChildren(el("h2", { text: w.hands }),
    ...(items.length ? items : [el("p", { class: "note", text: w.no_hands })]));
}

function renderSettlement(v) {
  const st = v.settlement;
  $("settlement").replaceChildren(el("h2", { text: st.title }),
    el("table", {}, st.rows.map((r) => el("tr", {}, el("td", { text: r.name }),
      el("td", { class: tone(r.points), text: signed(r.points) }),
      el("td", { class: tone(r.points), text: r.money })))),
    el("ul", { class: "working" }, st.transfers.map((x) => el("li", { text: x }))));
}

function renderProposals(v) {
  const box = $("proposals");
  box.hidden = !v.proposals.length;
  const w = v.words;
  box.replaceChildren(el("h2", { text: w.pending }), ...v.proposals.map((p) =>
    el("div", { class: "proposal", "data-proposal": p.id },
      el("div", { class: "note", text: p.by }),
      el("h3", {}, el("span", { text: p.title }),
        p.score === null ? null : el("span", { class: "score", text: String(p.score) })),
      p.groups.length ? cards(p.groups) : null,
      p.doubts ? el("div", { class: "tag", text: p.doubts }) : null,
      p.working.length ? el("ul", { class: "working" }, p.working.map((l) => el("li", { text: l }))) : null,
      p.payouts.length ? payouts(p.payouts) : null,
      p.error ? el("div", { class: "error", text: p.error }) : null,
      p.photo ? el("img", { class: "photo", src: p.photo, alt: w.photo }) : null,
      v.role === "host" ? el("div", { class: "answers" },
        el("button", { text: w.accept, "data-answer": "accept", disabled: Boolean(p.error),
          onclick: () => answer(p.id, "accept") }),
        el("button", { class: "no", text: w.reject, "data-answer": "reject",
          onclick: () => answer(p.id, "reject") })) : null)));
}

async function answer(pid, verb) {
  const res = await fetch("proposal/" + encodeURIComponent(pid) + "/" + verb, { method: "POST" });
  const out = await res.json().catch(() => ({}));
  const w = view.words;
  note(res.ok ? (verb === "accept" ? w.accepted.replace("{n}", out.recorded) : w.rejected) : out.error,
    res.ok);
}

function note(text, ok) {
  const n = $("propose-note") || $("banner");
  n.textContent = text || "";
  n.className = ok ? "ok" : "error";
  if (n.id === "banner") n.hidden = !text;
}

function renderPropose(v) {
  const box = $("propose");
  const s = v.session;
  box.hidden = !v.proposals_open || s.locked;
  const key = [v.lang, v.proposals_open, s.locked, s.players.join("|"), mode].join("/");
  if (key === formKey) return;
  formKey = key;
  const w = v.words;
  const seat = (name, label) => el("label", {}, label, el("select", { name },
    el("option", { value: "", text: "—" }), s.players.map((p, i) => el("option", { value: i, text: p }))));
  const how = el("label", {}, w.won_by, el("select", { name: "won_by", onchange: fromShown },
    ["self_draw", "stock", "discard", "dealt"].map((k) => el("option", { value: k, text: w[k] }))));
  const from = seat("from", w.from_whom);
  from.hidden = true;
  function fromShown() { from.hidden = form.won_by.value !== "discard"; }
  const form = el("form", { onsubmit: (e) => { e.preventDefault(); send(form); } },
    seat("winner", w.winner), how, from,
    mode === "total" ? el("label", {}, w.total_label,
      el("input", { name: "total", type: "number", inputmode: "numeric", min: 0, max: 84 })) :
      el("label", {}, w.take_photo,
        el("input", { name: "photo", type: "file", accept: "image/*", capture: "environment" })),
    s.turned_cards ? el("label", {}, w.xing_count,
      el("input", { name: "xing", type: "number", inputmode: "numeric", min: 0, max: 21, value: 0 })) : null,
    el("label", {}, w.your_name, el("input", { name: "by", maxlength: 16, autocomplete: "nickname" })),
    el("button", { type: "submit", text: w.send }),
    el("div", { id: "propose-note", class: "note", role: "status", text: w.propose_hint }));
  const open = box.querySelector("details") ? box.querySelector("details").open : false;
  box.replaceChildren(el("details", { open }, el("summary", { text: w.propose }),
    el("div", { class: "tabs" },
      el("button", { type: "button", text: w.by_total, "aria-pressed": String(mode === "total"),
        onclick: () => { mode = "total"; renderPropose(view); } }),
      el("button", { type: "button", text: w.by_photo, "aria-pressed": String(mode === "photo"),
        onclick: () => { mode = "photo"; renderPropose(view); } })),
    form));
}

async function send(form) {
  const w = view.words;
  const fields = { winner: form.winner.value, won_by: form.won_by.value, by: form.by.value };
  if (fields.won_by === "discard") fields.from = form.from.value;
  if (form.xing) fields.xing = form.xing.value;
  if (fields.winner === "") return note(w.pick_winner, false);
  if (fields.won_by === "discard" && fields.from === "") return note(w.pick_from, false);
  let res;
  if (mode === "total") {
    if (form.total.value === "") return note(w.pick_total, false);
    const body = { ...fields, winner: Number(fields.winner), total: Number(form.total.value) };
    if (body.from !== undefined) body.from = Number(body.from);
    if (body.xing !== undefined) body.xing = Number(body.xing);
    res = await fetch("propose/total", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) });
  } else {
    const file = form.photo.files[0];
    if (!file) return note(w.take_photo, false);
    note(w.reading, true);
    res = await fetch("propose/photo?" + new URLSearchParams(fields), { method: "POST", body: file });
  }
  const out = await res.json().catch(() => ({ error: res.statusText }));
  note(res.ok ? w.sent : out.error, res.ok);
  if (res.ok) form.reset();
}

document.addEventListener("DOMContentLoaded", connect);
