/* hexa inspect: the bank section of the page (docs/ARCHITECTURE.md §8), inlined before client.js, which calls
   window.hexaBank(helpers) once: the timeline of every entry ever created, weights per round, the diff between
   two rounds, the lineage of merges and revisions, and evolver failures. */
window.hexaBank = function (H) {
  "use strict";
  var $ = H.$, esc = H.esc, fmt = H.fmt, chart = H.chart, select = H.select, state = H.state, runs = H.runs, currentRun = H.currentRun;
  function drawBankControls() {
    var all = runs();
    var controls = [];
    if (all.length > 1) controls.push(select("run-select", "run", all.map(function (x, i) { return { value: i, label: x.cell + " / " + x.run.id }; }), state.run, function (v) { state.run = Number(v); H.drawRunSections(); }));
    var run = currentRun();
    controls.push(select("bank-level", "level", [{ value: "all", label: "all levels" }].concat(run.bank.levels.map(function (l) { return { value: l, label: l }; })), state.level, function (v) { state.level = v; drawBank(); }));
    $("bank-controls").innerHTML = controls.map(function (c) { return c.html; }).join(" ");
    controls.forEach(function (c) { c.bind(); });
  }
  var inLevel = function (x) { return state.level === "all" || x.level === state.level; };
  function lastRound(run) { var s = run.bank.snapshots; return s.length ? s[s.length - 1].round : 0; }
  function drawTimeline(run) {
    var rows = run.bank.rows.filter(inLevel);
    var end = lastRound(run) + 1;
    var bars = rows.map(function (r) {
      return { key: r.key, level: r.level, id: r.id, kind: r.kind, title: r.title, born: r.born, until: r.end === undefined ? end : Math.max(r.end, r.born + 0.15), fate: r.end === undefined ? "in the bank" : r.endBy === "merged" ? "merged into " + r.endDetail : "pruned (" + r.endDetail + ")", origin: r.bornBy === "merge" ? "merged from " + r.parents.join(" + ") : "added", reason: r.events[0].reason, evidence: r.events[0].evidence.slice(0, 6).join(", "), revisions: r.revisions };
    });
    var order = bars.map(function (b) { return b.key; });
    var ticks = [];
    rows.forEach(function (r) { r.events.forEach(function (e) { if (e.type === "revise") ticks.push({ key: r.key, round: e.round + 0.5, reason: e.reason, evidence: e.evidence.slice(0, 6).join(", ") }); }); });
    var ends = bars.filter(function (b) { return b.fate !== "in the bank"; }).map(function (b) { return { key: b.key, round: b.until, fate: b.fate }; });
    var keyOf = {};
    rows.forEach(function (r) { if (r.end === undefined || !keyOf[r.level + "/" + r.id]) keyOf[r.level + "/" + r.id] = r.key; });
    var links = [];
    rows.forEach(function (r) {
      if (r.bornBy !== "merge") return;
      r.parents.forEach(function (p) {
        var parent = rows.filter(function (q) { return q.level === r.level && q.id === p && q.end === r.born && q.endBy === "merged"; })[0];
        if (parent) links.push({ from: parent.key, to: r.key, round: r.born + 0.5 });
      });
    });
    var failures = run.bank.failures.filter(inLevel).map(function (f) { return { round: f.round + 0.5, level: f.level, error: f.error }; });
    var y = { field: "key", type: "nominal", title: null, sort: order, scale: { domain: order }, axis: { labelLimit: 220 } };
    var x = { type: "quantitative", title: "round", scale: { domain: [0, end] }, axis: H.intAxis() };
    var layers = [
      { name: "entry_rows", data: { values: bars }, mark: { type: "bar", height: 10, cornerRadius: 2, cursor: "pointer" }, encoding: { y: y, x: Object.assign({ field: "born" }, x), x2: { field: "until" }, color: { field: "kind", scale: { domain: ["skill", "mistake"], range: ["#205dd6", "#d9822b"] } }, opacity: { condition: { test: "datum.fate === 'in the bank'", value: 1 }, value: 0.45 }, tooltip: [{ field: "key", title: "entry" }, { field: "title" }, { field: "origin" }, { field: "born", title: "born in round" }, { field: "reason" }, { field: "evidence" }, { field: "revisions" }, { field: "fate" }] } },
    ];
    if (ticks.length) layers.push({ name: "revisions", data: { values: ticks }, mark: { type: "tick", thickness: 2, color: "#111", size: 12 }, encoding: { y: y, x: Object.assign({ field: "round" }, x), tooltip: [{ field: "key", title: "revised" }, { field: "round" }, { field: "reason" }, { field: "evidence" }] } });
    if (ends.length) layers.push({ name: "ends", data: { values: ends }, mark: { type: "point", shape: "cross", color: "#b3261e", size: 50, filled: true }, encoding: { y: y, x: Object.assign({ field: "round" }, x), tooltip: [{ field: "key" }, { field: "fate" }] } });
    if (links.length) layers.push({ name: "merge_links", data: { values: links }, mark: { type: "rule", color: "#888", strokeDash: [3, 2] }, encoding: { y: Object.assign({}, y, { field: "from" }), y2: { field: "to" }, x: Object.assign({ field: "round" }, x), tooltip: [{ field: "from" }, { field: "to", title: "merged into" }] } });
    if (failures.length) layers.push({ name: "failures", data: { values: failures }, mark: { type: "rule", color: "#b3261e", strokeWidth: 2 }, encoding: { x: Object.assign({ field: "round" }, x), tooltip: [{ field: "level" }, { field: "round" }, { field: "error" }] } });
    if (!bars.length) { $("chart-timeline").innerHTML = "<p class=muted>No bank entries yet.</p>"; return; }
    chart("chart-timeline", { width: 640, height: Math.max(60, 15 * bars.length), layer: layers }).then(function (view) {
      view.addEventListener("click", function (ev, item) { if (item && item.datum && item.datum.key) showEntry(item.datum.key); });
    });
  }
  function showEntry(key) {
    var row = currentRun().bank.rows.filter(function (r) { return r.key === key; })[0];
    if (!row) return;
    $("entry-detail").innerHTML = "<div class=detail><b>" + esc(row.key) + "</b> (" + row.kind + ", " + (row.bornBy === "merge" ? "merged from " + esc(row.parents.join(" + ")) : "added") + " in round " + row.born + ")" +
      row.events.map(function (e) {
        return "<div class=entry><b>round " + e.round + ": " + e.type + "</b>" + (e.reason ? " — " + esc(e.reason) : "") + (e.weight !== undefined ? " (weight " + fmt(e.weight, 2) + ")" : "") +
          (e.evidence.length ? "<br><span class=muted>evidence: " + esc(e.evidence.join(", ")) + "</span>" : "") + (e.text ? "<pre>" + esc(e.text) + "</pre>" : "") + "</div>";
      }).join("") + "</div>";
  }
  function drawWeights(run) {
    var values = run.bank.weights.filter(inLevel).map(function (w) { return { key: w.level + "/" + w.id, level: w.level, kind: w.kind, round: w.round, weight: w.weight }; });
    if (!values.length) { $("chart-weights").innerHTML = "<p class=muted>No bank snapshots yet.</p>"; return; }
    chart("chart-weights", {
      width: 640, height: 200, data: { values: values },
      mark: { type: "line", point: true },
      encoding: { x: { field: "round", type: "quantitative", axis: H.intAxis() }, y: { field: "weight", type: "quantitative", title: "weight r_k", scale: { domain: [0, 1] } }, detail: { field: "key" }, color: { field: "level" }, strokeDash: { field: "kind" }, tooltip: [{ field: "key", title: "entry" }, { field: "round" }, { field: "weight", format: ".3f" }] },
    });
  }

  /* Word-level diff (longest common subsequence): enough for entry texts of a few hundred words. */
  function wordDiff(a, b) {
    var x = a.split(/(\s+)/), y = b.split(/(\s+)/), n = x.length, m = y.length, i, j;
    var L = []; for (i = 0; i <= n; i++) { L.push(new Array(m + 1).fill(0)); }
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    var out = ""; i = 0; j = 0;
    while (i < n && j < m) {
      if (x[i] === y[j]) { out += esc(x[i]); i++; j++; }
      else if (L[i + 1][j] >= L[i][j + 1]) { out += "<del>" + esc(x[i]) + "</del>"; i++; }
      else { out += "<ins>" + esc(y[j]) + "</ins>"; j++; }
    }
    while (i < n) out += "<del>" + esc(x[i++]) + "</del>";
    while (j < m) out += "<ins>" + esc(y[j++]) + "</ins>";
    return out;
  }
  function drawDiff(run) {
    var snaps = run.bank.snapshots;
    if (!snaps.length) { $("diff-controls").innerHTML = ""; $("diff-body").innerHTML = "<p class=muted>No bank snapshots yet.</p>"; return; }
    var rounds = snaps.map(function (s) { return s.round; });
    var d = state.diff;
    if (d.level === undefined || run.bank.levels.indexOf(d.level) < 0) d.level = run.bank.levels[0];
    if (d.a === undefined || rounds.indexOf(Number(d.a)) < 0) d.a = rounds[0];
    if (d.b === undefined || rounds.indexOf(Number(d.b)) < 0) d.b = rounds[rounds.length - 1];
    var opts = rounds.map(function (r) { return { value: r, label: "after round " + r }; });
    var controls = [
      select("diff-level", "level", run.bank.levels.map(function (l) { return { value: l, label: l }; }), d.level, function (v) { d.level = v; drawDiff(currentRun()); }),
      select("diff-a", "from", opts, d.a, function (v) { d.a = Number(v); drawDiff(currentRun()); }),
      select("diff-b", "to", opts, d.b, function (v) { d.b = Number(v); drawDiff(currentRun()); }),
    ];
    $("diff-controls").innerHTML = controls.map(function (c) { return c.html; }).join(" ");
    controls.forEach(function (c) { c.bind(); });
    var at = function (r) { var s = snaps.filter(function (x) { return x.round === Number(r); })[0]; return (s && s.banks[d.level]) || []; };
    var A = at(d.a), B = at(d.b);
    var byId = function (xs) { var o = {}; xs.forEach(function (e) { o[e.id] = e; }); return o; };
    var a = byId(A), b = byId(B);
    var added = B.filter(function (e) { return !a[e.id]; });
    var removed = A.filter(function (e) { return !b[e.id]; });
    var changed = B.filter(function (e) { return a[e.id] && (a[e.id].text !== e.text || a[e.id].weight !== e.weight); });
    var same = B.length - added.length - changed.length;
    var block = function (cls, title, items, body) {
      return "<div class=\"" + cls + "\" data-kind=\"" + cls + "\"><b>" + title + " (" + items.length + ")</b>" + items.map(function (e) { return "<div class=entry data-id=\"" + esc(e.id) + "\"><b>" + esc(e.id) + "</b> " + e.kind + " " + body(e) + "</div>"; }).join("") + "</div>";
    };
    $("diff-body").innerHTML =
      block("added", "added", added, function (e) { return "weight " + fmt(e.weight, 2) + "<pre><ins>" + esc(e.text) + "</ins></pre>"; }) +
      block("removed", "removed", removed, function (e) { return "weight " + fmt(e.weight, 2) + "<pre><del>" + esc(e.text) + "</del></pre>"; }) +
      block("changed", "changed", changed, function (e) { var o = a[e.id]; return "weight " + fmt(o.weight, 2) + " → " + fmt(e.weight, 2) + "<pre>" + wordDiff(o.text, e.text) + "</pre>"; }) +
      "<p class=muted>" + same + " entries unchanged.</p>";
  }
  function drawLineage(run) {
    var rows = run.bank.rows.filter(inLevel);
    var items = rows.filter(function (r) { return r.bornBy === "merge" || r.revisions > 0; }).map(function (r) {
      var revs = r.events.filter(function (e) { return e.type === "revise"; }).map(function (e) { return e.round; });
      return "<li><b>" + esc(r.key) + "</b>" + (r.bornBy === "merge" ? " ⟵ merged from " + r.parents.map(esc).join(" + ") + " in round " + r.born + " (" + esc(r.events[0].reason) + ")" : " added in round " + r.born) +
        (revs.length ? "; revised in round" + (revs.length > 1 ? "s " : " ") + revs.join(", ") : "") + (r.end !== undefined ? "; " + (r.endBy === "merged" ? "merged into " : "pruned: ") + esc(r.endDetail) + " in round " + r.end : "") + "</li>";
    });
    $("lineage").innerHTML = items.length ? "<ul>" + items.join("") + "</ul>" : "<p class=muted>No merges or revisions.</p>";
    var f = run.bank.failures.filter(inLevel);
    $("failures").innerHTML = f.length ? "<table><tr><th>level</th><th>round</th><th>error</th></tr>" + f.map(function (x) { return "<tr class=bad><td>" + esc(x.level) + "</td><td>" + x.round + "</td><td>" + esc(x.error) + "</td></tr>"; }).join("") + "</table>" : "<p class=muted>None.</p>";
  }
  function drawBank() {
    var run = currentRun();
    drawTimeline(run); drawWeights(run); drawDiff(run); drawLineage(run);
  }

  return { drawBank: drawBank, drawBankControls: drawBankControls };
};
