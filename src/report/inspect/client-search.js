/* hexa inspect: the reward-search section of the page (docs/spec/reward-search.md §8.2), inlined before client.js, which calls
   window.hexaSearch(helpers) once: for each search found (candidates.jsonl), F of every candidate's final policy
   with an edge from its parent (Vega-Lite), and the lineage tree as nested lists whose nodes open to the
   candidate's thought, code and feedback. Open nodes stay open when a live page redraws. */
window.hexaSearch = function (H) {
  "use strict";
  var $ = H.$, esc = H.esc, fmt = H.fmt, chart = H.chart, select = H.select, state = H.state;
  state.search = state.search || 0;
  state.searchOpen = state.searchOpen || {};

  function searches() { return (state.report && state.report.searches) || []; }
  function current() { var all = searches(); return all[Math.min(state.search, all.length - 1)]; }
  var openKey = function (s, i) { return s.name + "|" + i; };

  function fitnessText(c) {
    if (c.fitness === null) return "<span class=bad>✗ " + esc(c.error || "failed") + "</span>";
    return "F " + fmt(c.fitness, 2) + (c.cached ? " <span class=muted>(cached)</span>" : "") +
      (c.bestCheckpoint ? " <span class=\"muted checkpoint\">best checkpoint " + fmt(c.bestCheckpoint.fitness, 2) + " at step " + c.bestCheckpoint.step + " (not the score)</span>" : "");
  }
  function summaryLine(c) {
    return "<span class=idx>#" + c.index + "</span> <span class=op>" + esc(c.operator) + "</span>" +
      (c.parent === null ? "" : " <span class=muted>of #" + c.parent + "</span>") + " · " + fitnessText(c) +
      (c.best ? " <span class=\"badge best\">best</span>" : "") +
      (c.vSelf === undefined ? "" : " <span class=muted>v_self " + fmt(c.vSelf, 2) + "</span>") +
      (c.related.length ? " <span class=muted>read " + c.related.map(function (r) { return "#" + r; }).join(", ") + "</span>" : "");
  }
  function body(c) {
    var design = c.design ? Object.keys(c.design).map(function (k) { return esc(k) + " " + Number(c.design[k].toPrecision(3)); }).join(", ") : "";
    var seeds = c.perSeed.length ? c.perSeed.map(function (p) { return p.seed + ": " + fmt(p.fitness, 1); }).join(", ") : c.evalSeeds.join(", ");
    return "<div class=candidate>" +
      "<p><b>final policy</b> " + (c.fitness === null ? "<span class=bad>no policy: " + esc(c.error || "") + "</span>" : "F " + fmt(c.fitness, 2) + " on evaluation seeds " + esc(seeds)) +
      (c.bestCheckpoint ? "<br><b>best checkpoint</b> (labelled, not the score) F " + fmt(c.bestCheckpoint.fitness, 2) + " at step " + c.bestCheckpoint.step + " of " + c.steps : "") +
      "<br><span class=muted>iteration " + c.iteration + ", training seed " + c.trainSeed + (c.children.length ? ", children " + c.children.map(function (i) { return "#" + i; }).join(", ") : "") + "</span></p>" +
      (c.note ? "<div class=notice>" + esc(c.note) + "</div>" : "") +
      (c.vSelfNote ? "<p class=muted>self-evaluation: " + esc(c.vSelfNote) + "</p>" : "") +
      "<h4>thought</h4><pre class=thought>" + esc(c.thought) + "</pre>" +
      (c.draftThought !== undefined ? "<h4>thought as first written (before alignment)</h4><pre class=draft>" + esc(c.draftThought) + "</pre>" : "") +
      (design ? "<h4>design</h4><pre class=design>" + design + "</pre>" : "") +
      "<h4>code</h4><pre class=code>" + esc(c.code) + "</pre>" +
      (c.repairs ? c.repairs.map(function (r, i) { return "<h4>code refused by the check before training (re-debug " + (i + 1) + " of " + c.repairs.length + ")</h4><pre class=code>" + esc(r.code) + "</pre><pre class=feedback>" + esc(r.error) + "</pre>"; }).join("") : "") +
      "<h4>feedback</h4><pre class=feedback>" + esc(c.feedback) + "</pre></div>";
  }
  function node(s, byIndex, i) {
    var c = byIndex[i];
    var open = state.searchOpen[openKey(s, i)] ? " open" : "";
    var kids = c.children.length ? "<ul>" + c.children.map(function (k) { return node(s, byIndex, k); }).join("") + "</ul>" : "";
    return "<li class=\"node" + (c.bestPath ? " best-path" : "") + (c.fitness === null ? " failed" : "") + "\" data-index=\"" + c.index + "\" data-parent=\"" + (c.parent === null ? "" : c.parent) + "\">" +
      "<details data-index=\"" + c.index + "\"" + open + "><summary>" + summaryLine(c) + "</summary>" + body(c) + "</details>" + kids + "</li>";
  }
  function drawTree(s) {
    var byIndex = {};
    s.candidates.forEach(function (c) { byIndex[c.index] = c; });
    $("search-tree").innerHTML = s.candidates.length ? "<ul class=tree>" + s.roots.map(function (i) { return node(s, byIndex, i); }).join("") + "</ul>" : "<p class=muted>No candidate has finished training yet.</p>";
    Array.prototype.forEach.call($("search-tree").querySelectorAll("details"), function (d) {
      d.addEventListener("toggle", function () { state.searchOpen[openKey(s, d.getAttribute("data-index"))] = d.open; });
    });
  }
  function reveal(s, index) {
    var d = $("search-tree").querySelector("details[data-index=\"" + index + "\"]");
    if (!d) return;
    d.open = true;
    state.searchOpen[openKey(s, index)] = true;
    d.scrollIntoView({ block: "nearest" });
  }
  function drawChart(s) {
    var ok = s.candidates.filter(function (c) { return c.fitness !== null; });
    if (!ok.length) { $("chart-search").innerHTML = "<p class=muted>No candidate trained successfully.</p>"; return; }
    var byIndex = {};
    s.candidates.forEach(function (c) { byIndex[c.index] = c; });
    var points = ok.map(function (c) { return { index: c.index, fitness: c.fitness, operator: c.operator, parent: c.parent === null ? "none" : "#" + c.parent, mark: c.best ? "best" : "candidate", checkpoint: c.bestCheckpoint ? c.bestCheckpoint.fitness : null }; });
    var edges = ok.filter(function (c) { return c.parent !== null && byIndex[c.parent] && byIndex[c.parent].fitness !== null; })
      .map(function (c) { return { from: c.parent, to: c.index, f0: byIndex[c.parent].fitness, f1: c.fitness, operator: c.operator }; });
    // Both scales reach a few pixels past the data, so that the first, the last, the best and the worst points are drawn whole.
    var x = { type: "quantitative", title: "candidate (training order)", scale: { zero: false, nice: false, padding: 16 }, axis: H.intAxis() };
    var y = { type: "quantitative", title: "F of the final policy", scale: { zero: false, padding: 16 } };
    var layers = [];
    if (edges.length) layers.push({ name: "parent_edges", data: { values: edges }, mark: { type: "rule", color: "#9aa5b1" }, encoding: { x: Object.assign({ field: "from" }, x), x2: { field: "to" }, y: Object.assign({ field: "f0" }, y), y2: { field: "f1" }, tooltip: [{ field: "from", title: "parent" }, { field: "to", title: "child" }, { field: "operator" }] } });
    layers.push({ name: "candidate_points", data: { values: points }, mark: { type: "point", filled: true, cursor: "pointer" }, encoding: {
      x: Object.assign({ field: "index" }, x), y: Object.assign({ field: "fitness" }, y), color: { field: "operator" },
      shape: { field: "mark", scale: { domain: ["candidate", "best"], range: ["circle", "diamond"] }, title: null },
      size: { field: "mark", scale: { domain: ["candidate", "best"], range: [50, 160] }, legend: null },
      tooltip: [{ field: "index", title: "candidate" }, { field: "operator" }, { field: "parent" }, { field: "fitness", title: "F (final policy)", format: ".2f" }, { field: "checkpoint", title: "best checkpoint F (not the score)", format: ".2f" }],
    } });
    chart("chart-search", { width: 640, height: 220, layer: layers }).then(function (view) {
      view.addEventListener("click", function (ev, item) { if (item && item.datum && item.datum.index !== undefined && item.datum.fitness !== undefined) reveal(s, item.datum.index); });
    });
  }
  function drawSummary(s) {
    var ops = Object.keys(s.operators).map(function (k) { return esc(k) + " " + s.operators[k]; }).join(", ");
    var best = s.best === null ? null : s.candidates.filter(function (c) { return c.index === s.best; })[0];
    var opts = Object.keys(s.options).map(function (k) { return esc(k) + " " + esc(JSON.stringify(s.options[k])); }).join(", ");
    $("search-summary").innerHTML = "<table class=search-summary>" +
      "<tr><th>search</th><td>" + esc(s.name) + " <span class=muted>" + esc(s.path) + "</span></td></tr>" +
      "<tr><th>strategy, proposer</th><td>" + esc(s.strategy) + ", " + esc(s.proposer) + (opts ? " <span class=muted>(" + opts + ")</span>" : "") + "</td></tr>" +
      "<tr><th>task, seed</th><td>" + esc(s.task) + (s.seed === null ? "" : ", instance " + s.seed) + "</td></tr>" +
      "<tr><th>candidates</th><td>" + s.counts.candidates + (s.budget === null ? "" : " of a budget of " + s.budget) + " (" + s.counts.ok + " trained, " + s.counts.failed + " failed, " + s.counts.cached + " from the trainer cache)" + (s.trainSteps === null ? "" : "; " + s.trainSteps + " env steps each") + "</td></tr>" +
      "<tr><th>operators</th><td>" + ops + "</td></tr>" +
      "<tr><th>best</th><td>" + (best ? "#" + best.index + " (" + esc(best.operator) + (best.parent === null ? "" : " of #" + best.parent) + "): F " + fmt(best.fitness, 2) + " of the final policy" + (best.bestCheckpoint ? "; best checkpoint " + fmt(best.bestCheckpoint.fitness, 2) + " at step " + best.bestCheckpoint.step + ", labelled, not the score" : "") : "<span class=muted>none trained successfully</span>") + "</td></tr>" +
      "</table>";
  }
  function drawSearches() {
    var all = searches();
    var nav = document.querySelector("header nav a[href=\"#searches\"]");
    $("searches").hidden = !all.length;
    if (nav) nav.hidden = !all.length;
    if (!all.length) return;
    var controls = all.length > 1 ? [select("search-select", "search", all.map(function (s, i) { return { value: i, label: s.name + " (" + s.strategy + " on " + s.task + ", " + s.candidates.length + ")" }; }), Math.min(state.search, all.length - 1), function (v) { state.search = Number(v); drawSearches(); })] : [];
    $("search-controls").innerHTML = controls.map(function (c) { return c.html; }).join(" ");
    controls.forEach(function (c) { c.bind(); });
    var s = current();
    drawSummary(s); drawTree(s); drawChart(s);
  }
  return { drawSearches: drawSearches };
};
