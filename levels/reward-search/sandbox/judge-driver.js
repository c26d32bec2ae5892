// @ts-check
/**
 * Evaluated inside a judge's QuickJS context after the sandbox's prelude and before the judge's code
 * (judge-sandbox.ts calls the function this file evaluates to). It captures the intrinsics it needs, so the
 * judge's code cannot change what it does, and returns `run(judge, buf)`: it makes the trajectory object over
 * the packed buffer (trajectory-pack.ts), calls `judge(traj)` and copies the leaf results out as one bounded
 * JSON text, numbers that are not finite written as `{"$num": "NaN"}`. Plain JavaScript of the sandbox's dialect.
 */
/**
 * @param {string} layoutJson `{ header, steps, columns: { name: { offset, length, width } }, initial: { … } }`
 * @param {number} maxResults the most leaf results a judge may return
 * @param {number} maxNote the longest note kept, characters
 * @param {number} maxValue the longest text value kept, characters
 */
(function hexaJudgeDriver(layoutJson, maxResults, maxNote, maxValue) {
  const F64 = Float64Array,
    stringify = JSON.stringify,
    isArray = Array.isArray,
    isFinite = Number.isFinite,
    freeze = Object.freeze,
    Str = String,
    P = Promise,
    keysOf = Object.keys;
  const L = JSON.parse(layoutJson);
  const header = freeze(L.header);
  /** @param {string} tag @param {string} message */
  const fault = (tag, message) => stringify({ fault: tag, message });
  /** @param {unknown} v */
  const kind = (v) => (v === null ? "null" : isArray(v) ? "an array" : typeof v);
  /** @param {unknown} v */
  const num = (v) => (typeof v === "number" ? (isFinite(v) ? v : { $num: Str(v) }) : typeof v === "string" ? v.slice(0, 40) : null);

  /** @param {ArrayBuffer} buf */
  function trajectoryOver(buf) {
    /** @param {{ offset: number, length: number }} s */
    const view = (s) => new F64(buf, 8 * s.offset, s.length);
    /** @type {Record<string, any>} */
    const traj = { header, steps: L.steps, dt: header.dt, initial: {}, width: {} };
    for (const name in L.columns) {
      traj[name] = view(L.columns[name]);
      traj.width[name] = L.columns[name].width;
    }
    for (const name in L.initial) traj.initial[name] = view(L.initial[name]);
    /** Row t of a per-step column, a view. @param {string} name @param {number} t */
    traj.row = (name, t) => {
      const s = L.columns[name];
      if (s === undefined) throw new TypeError("traj.row: no column " + stringify(name) + "; columns: " + keysOf(L.columns).join(", "));
      return view(s).subarray(t * s.width, (t + 1) * s.width);
    };
    /** One reward term over the episode, a new array. @param {string} name */
    traj.term = (name) => {
      const k = header.terms.indexOf(name),
        w = header.terms.length,
        out = new F64(L.steps),
        col = traj.terms;
      if (k < 0) throw new TypeError("traj.term: no term " + stringify(name) + "; terms: " + header.terms.join(", "));
      for (let t = 0; t < L.steps; t++) out[t] = col[t * w + k];
      return out;
    };
    return traj;
  }

  /** @param {any} r one result as the judge returned it */
  function copyResult(r) {
    if (r === null || typeof r !== "object") return {};
    const id = r.id,
      value = r.value,
      note = r.note,
      passed = r.passed;
    return {
      id: typeof id === "string" ? id.slice(0, 33) : typeof id === "number" && isFinite(id) ? id : null,
      score: num(r.score),
      passed: typeof passed === "boolean" ? passed : null,
      value: typeof value === "boolean" ? value : typeof value === "string" ? value.slice(0, maxValue) : num(value),
      note: typeof note === "string" ? note.slice(0, maxNote) : "",
    };
  }

  /** @param {unknown} judge @param {ArrayBuffer} buf */
  function run(judge, buf) {
    if (typeof judge !== "function") return fault("error", "judge is " + kind(judge) + ", not a function; define function judge(traj) at top level");
    const r = judge(trajectoryOver(buf));
    const list = isArray(r) ? r : r !== null && typeof r === "object" && isArray(r.leaves) ? r.leaves : null;
    if (list === null)
      return fault(
        "shape",
        "judge returned " +
          (r instanceof P ? "a Promise (async functions cannot be used)" : kind(r)) +
          "; return an array of { id, value, score, passed, note }",
      );
    if (list.length > maxResults) return fault("shape", "judge returned " + list.length + " results, more than " + maxResults + "; return one per leaf");
    const out = [];
    for (let i = 0; i < list.length; i++) out.push(copyResult(list[i]));
    return stringify({ results: out });
  }
  return { run };
});
