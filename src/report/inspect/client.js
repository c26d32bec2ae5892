/* hexa inspect: the page script (docs/ARCHITECTURE.md §8). Plain browser JavaScript, inlined into report.html after the vega
   and vega-lite bundles and client-bank.js (the bank section); it draws the report from the JSON in #hexa-data and, on a page served by
   `hexa inspect --serve`, redraws in place when the run writes (server-sent events), keeping the reader's
   filters, open episodes and scroll position. */
(function () {
  "use strict";
  var views = {};
  var state = { report: null, run: 0, level: "all", diff: {}, filters: { level: "", round: "", success: "", phase: "stream" }, open: {} };
  window.hexa = { views: views, state: state, updates: 0 };

  var $ = function (id) { return document.getElementById(id); };
  var esc = function (s) { return String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); };
  var pct = function (k, n) { return n ? Math.round((100 * k) / n) + "%" : "–"; };
  var fmt = function (v, d) { return Number(v).toFixed(d === undefined ? 1 : d); };
  var uniq = function (xs) { return xs.filter(function (x, i) { return xs.indexOf(x) === i; }); };

  function runs() {
    var out = [];
    state.report.cells.forEach(function (c) { c.runs.forEach(function (r) { out.push({ cell: c.name, run: r }); }); });
    return out;
  }
  function currentRun() { var all = runs(); return all[Math.min(state.run, all.length - 1)].run; }
  var single = function () { return state.report.cells.every(function (c) { return c.runs.length === 1; }) && state.report.kind === "run"; };

  /* ---------- charts ---------- */
  /* Series colours and dashes (src/report/palette.ts, inlined by html.ts); legends never cut a label. */
  var SERIES = window.HEXA_SERIES;
  var colourOf = function (i) { return SERIES.colours[i % SERIES.colours.length]; };
  var dashOf = function (i) { return SERIES.dashes[i % SERIES.dashes.length]; };
  /* An axis of whole numbers (seed index, round, candidate): integer ticks only, printed without decimals. */
  var intAxis = function () { return { tickMinStep: 1, format: "d" }; };
  function chart(id, spec) {
    var el = $(id);
    if (views[id]) { el.style.minHeight = el.offsetHeight + "px"; views[id].finalize(); }
    el.innerHTML = "";
    spec.config = Object.assign({ font: "system-ui, sans-serif", view: { stroke: null }, range: { category: SERIES.colours }, legend: { labelLimit: 0, titleLimit: 0 } }, spec.config || {});
    var view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "svg", container: el, hover: true });
    views[id] = view;
    return view.runAsync().then(function () { el.style.minHeight = ""; return view; });
  }

  /* Stream episodes of a run, level by level in the order metrics.json counts them (round, then seed). */
  function series(run) {
    var out = [];
    run.summary.levels.forEach(function (level) {
      var eps = run.episodes.filter(function (e) { return e.phase === "stream" && e.level === level; })
        .sort(function (a, b) { return a.round - b.round || a.seed - b.seed; });
      var wins = 0;
      eps.forEach(function (e, i) {
        wins += e.success ? 1 : 0;
        out.push({ level: level, index: i + 1, id: e.id, round: e.round, seed: e.seed, success: e.success ? "solved" : "unsolved", turns: e.turns, cumulative: wins / (i + 1) });
      });
    });
    return out;
  }
  function perRound(run) {
    var by = {};
    run.episodes.forEach(function (e) {
      if (e.phase !== "stream") return;
      var k = e.level + "|" + e.round;
      by[k] = by[k] || { level: e.level, round: e.round, episodes: 0, successes: 0 };
      by[k].episodes++; by[k].successes += e.success ? 1 : 0;
    });
    return Object.keys(by).map(function (k) { var r = by[k]; r.rate = r.successes / r.episodes; return r; });
  }
  /* A comparison: per cell and level, the mean over runs at each x with the band from the lowest to the highest run. */
  function banded(rowsOf, x, y) {
    var acc = {};
    state.report.cells.forEach(function (c) {
      c.runs.forEach(function (run) {
        rowsOf(run).forEach(function (p) {
          var k = c.name + "|" + p.level + "|" + p[x];
          acc[k] = acc[k] || { cell: c.name, level: p.level, x: p[x], ys: [] };
          acc[k].ys.push(p[y]);
        });
      });
    });
    return Object.keys(acc).map(function (k) {
      var a = acc[k];
      return { cell: a.cell, level: a.level, x: a.x, mean: a.ys.reduce(function (s, v) { return s + v; }, 0) / a.ys.length, lo: Math.min.apply(null, a.ys), hi: Math.max.apply(null, a.ys), runs: a.ys.length };
    });
  }
  var cellNames = function () { return state.report.cells.map(function (c) { return c.name; }); };
  /* One panel per level; each cell its colour and dash (named in the legend table above the charts): the mean over
     runs as a line over a light band from the lowest to the highest run, whose thin edges keep overlapping bands apart. */
  function bandSpec(values, xTitle, yTitle, yDomain, room) {
    var cells = cellNames();
    var levels = uniq(values.map(function (v) { return v.level; }));
    // Two panels a row where the page has room for them, each as wide as fits (axes and gaps take about 120 px).
    var columns = levels.length > 1 && room >= 760 ? 2 : 1;
    var width = Math.max(240, Math.min(columns > 1 ? 440 : 640, Math.floor((room - 80) / columns) - 50));
    var x = { field: "x", type: "quantitative", title: xTitle, axis: intAxis() };
    var y = function (field) { return { field: field, type: "quantitative", title: yTitle, scale: yDomain ? { domain: yDomain } : {}, axis: yDomain ? { format: "%" } : {} }; };
    var by = function (range) { return { field: "cell", type: "nominal", scale: { domain: cells, range: cells.map(function (_, i) { return range(i); }) }, legend: null }; };
    var tip = [{ field: "cell" }, { field: "level" }, { field: "x", title: xTitle }, { field: "mean", format: ".2f" }, { field: "lo", title: "lowest run", format: ".2f" }, { field: "hi", title: "highest run", format: ".2f" }, { field: "runs" }];
    return {
      data: { values: values },
      facet: { field: "level", type: "nominal", title: null, header: { labelFontSize: 13, labelFontWeight: "bold" } },
      columns: columns,
      spec: {
        width: width, height: 220,
        layer: [
          { name: "band", mark: { type: "area", opacity: 0.1 }, encoding: { x: x, y: y("lo"), y2: { field: "hi" }, color: by(colourOf) } },
          { name: "band_low", mark: { type: "line", strokeWidth: 1, opacity: 0.45 }, encoding: { x: x, y: y("lo"), color: by(colourOf) } },
          { name: "band_high", mark: { type: "line", strokeWidth: 1, opacity: 0.45 }, encoding: { x: x, y: y("hi"), color: by(colourOf) } },
          { name: "cell_lines", mark: { type: "line", strokeWidth: 2.5 }, encoding: { x: x, y: y("mean"), color: by(colourOf), strokeDash: by(dashOf), tooltip: tip } },
        ],
      },
    };
  }
  /* Cells whose mean lines are the same on a level lie on each other: say so under the chart. */
  function sameLines(values) {
    var groups = {};
    uniq(values.map(function (v) { return v.level; })).forEach(function (level) {
      var byCell = {};
      values.filter(function (v) { return v.level === level; }).sort(function (a, b) { return a.x - b.x; }).forEach(function (v) { byCell[v.cell] = (byCell[v.cell] || "") + v.x + ":" + v.mean.toFixed(9) + ","; });
      Object.keys(byCell).forEach(function (cell) { var k = level + "|" + byCell[cell]; groups[k] = (groups[k] || []).concat([cell]); });
    });
    return Object.keys(groups).filter(function (k) { return groups[k].length > 1; }).map(function (k) { return groups[k].join(" and ") + " on " + k.split("|")[0]; });
  }
  function bandChart(id, values, xTitle, yTitle, yDomain) {
    chart(id, bandSpec(values, xTitle, yTitle, yDomain, $("curves").clientWidth || 1200));
    var same = sameLines(values);
    $(id + "-note").textContent = same.length ? "Same line, drawn one over the other (the dashes show both): " + same.join("; ") + "." : "";
  }
  function swatch(i) {
    return "<svg class=swatch width=48 height=14 aria-hidden=true><rect x=0 y=1 width=48 height=12 fill=\"" + colourOf(i) + "\" fill-opacity=0.15></rect><line x1=2 y1=7 x2=46 y2=7 stroke=\"" + colourOf(i) + "\" stroke-width=2.5 stroke-dasharray=\"" + dashOf(i).join(" ") + "\"></line></svg>";
  }
  function drawLegend() {
    $("curve-legend").innerHTML = "<table class=legend><tr><th></th><th>cell: the line is the mean over its runs, the band spans the lowest to the highest run</th><th class=num>runs</th></tr>" +
      state.report.cells.map(function (c, i) { return "<tr><td>" + swatch(i) + "</td><td class=series-name>" + esc(c.name) + "</td><td class=num>" + c.runs.length + "</td></tr>"; }).join("") + "</table>";
  }
  function drawCurves() {
    if (single()) {
      $("curve-legend").innerHTML = "";
      ["chart-cumulative", "chart-turns", "chart-rounds"].forEach(function (id) { $(id + "-note").textContent = ""; });
      var pts = series(currentRun());
      var tip = [{ field: "id", title: "episode" }, { field: "success" }, { field: "turns" }, { field: "cumulative", format: ".2f" }];
      chart("chart-cumulative", {
        width: 640, height: 240, data: { values: pts },
        layer: [
          { mark: { type: "line", interpolate: "step-after" }, encoding: { x: { field: "index", type: "quantitative", title: "seed index (episodes played on the level)", axis: intAxis() }, y: { field: "cumulative", type: "quantitative", title: "cumulative success", scale: { domain: [0, 1] }, axis: { format: "%" } }, color: { field: "level" } } },
          { name: "episode_points", mark: { type: "point", filled: true, size: 36 }, encoding: { x: { field: "index", type: "quantitative" }, y: { field: "cumulative", type: "quantitative" }, color: { field: "level" }, shape: { field: "success", scale: { domain: ["solved", "unsolved"], range: ["circle", "cross"] } }, tooltip: tip } },
        ],
      });
      chart("chart-turns", {
        width: 420, height: 200, data: { values: pts },
        layer: [
          { mark: { type: "line", opacity: 0.5 }, encoding: { x: { field: "index", type: "quantitative", title: "seed index", axis: intAxis() }, y: { field: "turns", type: "quantitative", title: "turns (unsolved = T)" }, color: { field: "level" } } },
          { mark: { type: "point", filled: true, size: 24 }, encoding: { x: { field: "index", type: "quantitative" }, y: { field: "turns", type: "quantitative" }, color: { field: "level" }, tooltip: tip } },
        ],
      });
      chart("chart-rounds", {
        width: 420, height: 200, data: { values: perRound(currentRun()) },
        layer: [
          { mark: { type: "line", point: true }, encoding: { x: { field: "round", type: "quantitative", title: "round", axis: intAxis() }, y: { field: "rate", type: "quantitative", title: "success in the round", scale: { domain: [0, 1] }, axis: { format: "%" } }, color: { field: "level" }, tooltip: [{ field: "level" }, { field: "round" }, { field: "successes" }, { field: "episodes" }] } },
        ],
      });
    } else {
      drawLegend();
      bandChart("chart-cumulative", banded(series, "index", "cumulative"), "seed index", "cumulative success", [0, 1]);
      bandChart("chart-turns", banded(series, "index", "turns"), "seed index", "turns");
      bandChart("chart-rounds", banded(perRound, "round", "rate"), "round", "success in the round", [0, 1]);
    }
  }

  /* ---------- summary ---------- */
  function drawSummary() {
    var all = runs();
    var fields = [
      ["cell", function (x) { return esc(x.cell); }],
      ["run", function (x) { return esc(x.run.id); }],
      ["levels", function (x) { return esc(x.run.summary.levels.join(", ")); }],
      ["agent", function (x) { return esc(x.run.summary.labels.agent); }],
      ["evolver", function (x) { return esc(x.run.summary.labels.evolver); }],
      ["actor model", function (x) { return esc(x.run.summary.agent.indexOf("heuristic") === 0 ? "none (no LLM)" : x.run.summary.models.actor); }],
      ["init × update", function (x) { return esc(x.run.summary.init + " × " + x.run.summary.update); }],
      ["T / x / R / M / N", function (x) { var s = x.run.summary; return [s.T, s.x, s.R, s.M, s.N].join(" / ") + " <span class=muted>(M_max " + s.maxSkills + ", N_max " + s.maxMistakes + ")</span>"; }],
      ["seeds", function (x) { var s = x.run.summary; var seeds = x.run.episodes.filter(function (e) { return e.phase === "stream"; }).map(function (e) { return e.seed; }); return "certified seeds from index " + s.seedOffset + (seeds.length ? " (level seeds " + Math.min.apply(null, seeds) + "–" + Math.max.apply(null, seeds) + ")" : ""); }],
      ["success", function (x) { var t = x.run.summary.totals; return t.successes + "/" + t.episodes + " " + pct(t.successes, t.episodes) + " <span class=muted>(stream episodes)</span>"; }],
      ["mean turns", function (x) { return fmt(x.run.summary.totals.meanTurns); }],
      ["tokens, cost", function (x) { var t = x.run.summary.totals; return t.tokens + " tokens, $" + fmt(t.costUsd, 4); }],
      ["episode time", function (x) { return fmt(x.run.summary.totals.wallMs / 1000) + " s"; }],
      ["held-out evaluations", function (x) { var ev = x.run.summary.evals; return ev.length ? ev.map(function (e) { return esc(e.name) + ": " + e.successes + "/" + e.episodes; }).join("<br>") : "<span class=muted>none (hexa eval " + esc(x.run.path) + ")</span>"; }],
    ];
    if (!single()) return drawGridSummary(all, fields);
    var rows = fields.map(function (f) { return "<tr><th>" + f[0] + "</th>" + all.map(function (x) { return "<td>" + f[1](x) + "</td>"; }).join("") + "</tr>"; });
    var head = "";
    var perLevel = "";
    if (single()) {
      var run = currentRun();
      perLevel = "<h3>Per level</h3><table><tr><th>level</th><th class=num>offline</th><th class=num>stream success</th><th class=num>mean turns</th><th class=num>entries ever created</th><th class=num>in the final bank</th></tr>" +
        run.summary.levels.map(function (level) {
          var st = run.episodes.filter(function (e) { return e.phase === "stream" && e.level === level; });
          var off = run.episodes.filter(function (e) { return e.phase === "offline" && e.level === level; });
          var wins = st.filter(function (e) { return e.success; }).length;
          var last = run.bank.snapshots.length ? run.bank.snapshots[run.bank.snapshots.length - 1].banks[level] || [] : [];
          return "<tr><td>" + esc(level) + "</td><td class=num>" + off.filter(function (e) { return e.success; }).length + "/" + off.length + "</td><td class=num>" + wins + "/" + st.length + " " + pct(wins, st.length) + "</td><td class=num>" + fmt(st.reduce(function (a, e) { return a + e.turns; }, 0) / (st.length || 1)) + "</td><td class=num>" + run.bank.rows.filter(function (r) { return r.level === level; }).length + "</td><td class=num>" + last.length + "</td></tr>";
        }).join("") + "</table>";
    }
    $("summary-body").innerHTML = "<table class=summary>" + head + rows.join("") + "</table>" + perLevel;
  }

  /* Several runs: a row per run under its cell's swatch, the fields every run shares said once above the table. */
  function drawGridSummary(all, fields) {
    var shared = [], columns = [];
    fields.forEach(function (f) {
      if (f[0] === "cell" || f[0] === "run") return;
      var texts = uniq(all.map(function (x) { return f[1](x); }));
      if (texts.length === 1 && all.length > 1) shared.push("<tr><th>" + f[0] + "</th><td>" + texts[0] + "</td></tr>");
      else columns.push(f);
    });
    var cells = cellNames();
    var head = "<tr><th>cell</th><th>run</th>" + columns.map(function (f) { return "<th>" + f[0] + "</th>"; }).join("") + "</tr>";
    var rows = all.map(function (x) {
      var prefix = x.cell + "__";
      var id = x.run.id.indexOf(prefix) === 0 ? x.run.id.slice(prefix.length) : x.run.id;
      return "<tr><td class=series-name>" + swatch(cells.indexOf(x.cell)) + " " + esc(x.cell) + "</td><td class=run-id title=\"" + esc(x.run.path) + "\">" + esc(id) + "</td>" + columns.map(function (f) { return "<td>" + f[1](x) + "</td>"; }).join("") + "</tr>";
    });
    $("summary-body").innerHTML = (shared.length ? "<h3>Shared by every run</h3><table class=shared>" + shared.join("") + "</table><h3>Each run</h3>" : "") +
      "<div class=table-scroll><table class=summary>" + head + rows.join("") + "</table></div>";
  }

  function select(id, label, options, value, onChange) {
    var html = "<label>" + esc(label) + " <select id=\"" + id + "\">" + options.map(function (o) {
      return "<option value=\"" + esc(o.value) + "\"" + (String(o.value) === String(value) ? " selected" : "") + ">" + esc(o.label) + "</option>";
    }).join("") + "</select></label>";
    return { html: html, bind: function () { $(id).onchange = function (ev) { onChange(ev.target.value); }; } };
  }
  var search = window.hexaSearch({ $: $, esc: esc, fmt: fmt, chart: chart, select: select, state: state, intAxis: intAxis });
  var bank = window.hexaBank({ $: $, esc: esc, fmt: fmt, chart: chart, select: select, state: state, intAxis: intAxis, runs: runs, currentRun: currentRun, drawRunSections: function () { drawRunSections(); } });

  /* ---------- episodes ---------- */
  function drawFilters() {
    var run = currentRun(), f = state.filters;
    var eps = run.episodes;
    var controls = [
      select("f-phase", "phase", [{ value: "", label: "all" }].concat(uniq(eps.map(function (e) { return e.phase; })).map(function (p) { return { value: p, label: p }; })), f.phase, function (v) { f.phase = v; drawEpisodes(); }),
      select("f-level", "level", [{ value: "", label: "all" }].concat(run.summary.levels.map(function (l) { return { value: l, label: l }; })), f.level, function (v) { f.level = v; drawEpisodes(); }),
      select("f-round", "round", [{ value: "", label: "all" }].concat(uniq(eps.map(function (e) { return e.round; })).sort(function (a, b) { return a - b; }).map(function (r) { return { value: r, label: String(r) }; })), f.round, function (v) { f.round = v; drawEpisodes(); }),
      select("f-success", "result", [{ value: "", label: "all" }, { value: "yes", label: "solved" }, { value: "no", label: "unsolved" }], f.success, function (v) { f.success = v; drawEpisodes(); }),
    ];
    $("episode-filters").innerHTML = controls.map(function (c) { return c.html; }).join(" ") + " <span id=episode-count class=muted></span>";
    controls.forEach(function (c) { c.bind(); });
  }
  function shown(run) {
    var f = state.filters;
    return run.episodes.filter(function (e) {
      return (!f.phase || e.phase === f.phase) && (!f.level || e.level === f.level) && (f.round === "" || e.round === Number(f.round)) && (!f.success || (f.success === "yes") === e.success);
    });
  }
  function entriesShown(run, e) {
    if (e.bankRound === null || !e.retrieved.length) return "<p class=muted>No bank entries were shown.</p>";
    var snap = run.bank.snapshots.filter(function (s) { return s.round === e.bankRound; })[0];
    var bank = (snap && snap.banks[e.level]) || [];
    return e.retrieved.map(function (id) {
      var x = bank.filter(function (b) { return b.id === id; })[0];
      return "<div class=entry><b>" + esc(id) + "</b>" + (x ? " " + x.kind + ", weight " + fmt(x.weight, 2) + "<pre>" + esc(x.text) + "</pre>" : " <span class=muted>(not in banks/round-" + e.bankRound + ")</span>") + "</div>";
    }).join("");
  }
  function episodeDetail(run, e) {
    var pics = "<div class=pictures>" + (e.image ? "<img class=scene alt=\"scene with the final action\" width=240 height=240 src=\"" + e.image + "\">" : "");
    if (e.animation) pics += "<img class=animation alt=\"final rollout with its trail\" width=240 height=240 src=\"" + e.animation + "\">";
    else if (window.HEXA_LIVE && e.image && e.action !== "(none)") pics += "<img class=animation alt=\"final rollout with its trail\" width=240 height=240 loading=lazy src=\"/animation?run=" + encodeURIComponent(run.id) + "&id=" + encodeURIComponent(e.id) + "\">";
    else if (e.image && e.action !== "(none)") pics += "<span class=muted>animation not embedded (hexa inspect --animations all embeds every one; --serve makes them on demand)</span>";
    pics += "</div>";
    var turns = e.steps.map(function (s) {
      return "<div class=\"turn" + (s.ok ? "" : " failed") + "\"><b>turn " + s.turn + ": " + esc(s.tool) + "</b> <span class=muted>" + s.ms + " ms</span>" +
        (s.thought ? "<pre class=thought>" + esc(s.thought) + "</pre>" : "") + "<pre class=args>" + esc(s.args) + "</pre><pre class=observation>" + esc(s.observation) + "</pre></div>";
    }).join("");
    return "<div class=detail>" + pics + "<p>action: <code>" + esc(e.action) + "</code> · stop: " + esc(e.stopReason) + " · r(τ) " + fmt(e.r, 2) + " (" + esc(e.category) + ") · agent " + esc(e.agent) + " · model " + esc(e.model) + " · " + e.tokens + " tokens" + (e.error ? " · <span class=bad>" + esc(e.error) + "</span>" : "") + "</p>" +
      "<h3>Bank entries shown" + (e.bankRound !== null ? " (bank after round " + e.bankRound + ")" : "") + "</h3>" + entriesShown(run, e) + "<h3>Turns</h3>" + turns + "</div>";
  }
  function drawEpisodes() {
    var run = currentRun(), list = shown(run);
    $("episode-count").textContent = list.length + " of " + run.episodes.length + " episodes";
    var rows = list.map(function (e) {
      var open = state.open[run.id + "|" + e.id];
      return "<tr class=\"episode" + (open ? " open" : "") + "\" data-id=\"" + esc(e.id) + "\"><td>" + esc(e.id) + "</td><td>" + esc(e.level) + "</td><td class=num>" + e.round + "</td><td class=num>" + e.seed + "</td><td class=\"" + (e.success ? "ok" : "bad") + "\">" + (e.success ? "solved" : "unsolved") + "</td><td class=num>" + e.turns + "</td><td class=num>" + fmt(e.r, 2) + "</td><td><code>" + esc(e.action) + "</code></td><td>" + esc(e.retrieved.join(", ")) + "</td></tr>" +
        (open ? "<tr class=episode-detail data-for=\"" + esc(e.id) + "\"><td colspan=9>" + episodeDetail(run, e) + "</td></tr>" : "");
    });
    $("episode-list").innerHTML = "<table><tr><th>episode</th><th>level</th><th class=num>round</th><th class=num>seed</th><th>result</th><th class=num>turns</th><th class=num>r(τ)</th><th>action</th><th>entries shown</th></tr>" + rows.join("") + "</table>";
    Array.prototype.forEach.call(document.querySelectorAll("#episode-list tr.episode"), function (tr) {
      tr.onclick = function () { var k = run.id + "|" + tr.getAttribute("data-id"); state.open[k] = !state.open[k]; drawEpisodes(); };
    });
  }

  /* ---------- usage ---------- */
  function drawUsage() {
    var run = currentRun(), u = run.usage;
    if (!u.rows.length) {
      $("chart-usage").innerHTML = "<p class=muted>No model calls in this run" + (run.summary.agent.indexOf("heuristic") === 0 ? " (heuristic experimentalist and evolver, no LLM)" : "") + ".</p>";
    } else {
      chart("chart-usage", {
        width: 640, height: 200, data: { values: u.rows.map(function (r) { return { role: r.role, round: r.round, tokens: r.input + r.output, cost: r.costUsd, calls: r.calls }; }) },
        mark: "bar", encoding: { x: { field: "round", type: "ordinal" }, y: { aggregate: "sum", field: "tokens", type: "quantitative", title: "tokens" }, color: { field: "role" }, tooltip: [{ field: "role" }, { field: "round" }, { aggregate: "sum", field: "tokens", title: "tokens" }, { aggregate: "sum", field: "cost", title: "cost $", format: ".4f" }, { aggregate: "sum", field: "calls", title: "calls" }] },
      });
    }
    var roles = uniq(u.rows.map(function (r) { return r.role; }));
    var table = roles.length ? "<table><tr><th>role</th><th class=num>calls</th><th class=num>input</th><th class=num>cached</th><th class=num>output</th><th class=num>cost</th><th class=num>cache hits</th><th class=num>unpriced</th></tr>" + roles.map(function (role) {
      var rs = u.rows.filter(function (r) { return r.role === role; });
      var s = function (k) { return rs.reduce(function (a, r) { return a + r[k]; }, 0); };
      return "<tr><td>" + esc(role) + "</td><td class=num>" + s("calls") + "</td><td class=num>" + s("input") + "</td><td class=num>" + s("cached") + "</td><td class=num>" + s("output") + "</td><td class=num>$" + fmt(s("costUsd"), 4) + "</td><td class=num>" + s("cacheHits") + "</td><td class=num>" + s("unpriced") + "</td></tr>";
    }).join("") + "</table>" : "";
    var failed = "<h3>Failed model calls</h3>" + (u.failed.length ? "<table><tr><th>time</th><th>role</th><th>error</th></tr>" + u.failed.map(function (f) { return "<tr class=bad><td>" + esc(f.ts) + "</td><td>" + esc(f.role) + "</td><td>" + esc(f.error) + "</td></tr>"; }).join("") + "</table>" : "<p class=muted>None.</p>");
    $("usage-body").innerHTML = table + failed;
  }

  /* ---------- the whole page ---------- */
  function drawRunSections() { bank.drawBankControls(); bank.drawBank(); drawFilters(); drawEpisodes(); drawUsage(); }
  function draw(report) {
    state.report = report;
    $("title").textContent = report.title;
    $("notices").innerHTML = report.notices.map(function (n) { return "<div class=notice>" + esc(n) + "</div>"; }).join("");
    // A directory of reward searches only has no run sections to draw.
    var hasRuns = runs().length > 0;
    ["summary", "curves", "bank", "episodes", "usage"].forEach(function (id) {
      $(id).hidden = !hasRuns;
      var link = document.querySelector("header nav a[href=\"#" + id + "\"]");
      if (link) link.hidden = !hasRuns;
    });
    if (hasRuns) { drawSummary(); drawCurves(); drawRunSections(); }
    search.drawSearches();
    var searches = report.searches || [];
    $("footer").textContent = "hexa inspect · built " + report.builtAt + " · " + runs().length + " run(s) · " + runs().reduce(function (s, x) { return s + x.run.episodes.length; }, 0) + " episodes" +
      (searches.length ? " · " + searches.length + " reward search(es), " + searches.reduce(function (n, s) { return n + s.candidates.length; }, 0) + " candidates" : "");
  }

  var data = JSON.parse($("hexa-data").textContent);
  draw(data);
  if (window.HEXA_LIVE) {
    var status = $("live-status");
    var events = new EventSource("/events");
    status.textContent = "live: following the run";
    events.onmessage = function () {
      fetch("/report.json").then(function (r) { return r.json(); }).then(function (report) {
        var y = window.scrollY;
        draw(report);
        window.scrollTo(0, y);
        window.hexa.updates++;
        status.textContent = "live: updated " + new Date().toLocaleTimeString();
      });
    };
    events.onerror = function () { status.textContent = "live: server not answering (the report stays as it is)"; };
  }
})();
